//! Whether the user's work is saved in this browser.

use leptos::prelude::*;

use crate::store::workspace::Persistence;

/// "Saved", "Saving…" or why the work is not being saved.
#[component]
pub fn SaveState(persistence: Persistence) -> impl IntoView {
    let tracker = persistence.tracker();
    let state = move || match (tracker.failure(), tracker.pending()) {
        (Some(_), _) => "failed",
        (None, 0) => "saved",
        (None, _) => "saving",
    };
    let text = move || match tracker.failure() {
        Some(error) => format!("Not saved: {error}"),
        None if tracker.pending() > 0 => "Saving…".to_owned(),
        None => "Saved in this browser".to_owned(),
    };
    view! {
        <span class="save-state" data-testid="save-state" data-state=move || state().to_owned()>
            {move || text()}
        </span>
    }
}
