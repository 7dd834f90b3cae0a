//! Browser entry point: everything else lives in the library so tests can use it.

fn main() {
    console_error_panic_hook::set_once();
    // One build serves both pages: the full app, and the widget other sites embed.
    if sandpit::ui::is_widget_page() {
        leptos::mount::mount_to_body(sandpit::ui::Widget);
    } else {
        leptos::mount::mount_to_body(sandpit::ui::App);
    }
}
