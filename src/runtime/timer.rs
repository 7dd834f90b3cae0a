//! A one-shot browser timer that is cancelled when dropped.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

/// Calls its callback once after a delay, unless dropped first.
///
/// Owning the closure here (instead of leaking it) means a finished or
/// cancelled run leaves nothing behind.
pub struct Timer {
    handle: i32,
    _callback: Closure<dyn FnMut()>,
}

impl Timer {
    /// Starts a timer; `None` when the page has no window (never in practice).
    pub fn start(delay_ms: u32, callback: impl FnOnce() + 'static) -> Option<Self> {
        let callback = Closure::once(callback);
        let delay = i32::try_from(delay_ms).unwrap_or(i32::MAX);
        let handle = web_sys::window()?
            .set_timeout_with_callback_and_timeout_and_arguments_0(
                callback.as_ref().unchecked_ref(),
                delay,
            )
            .ok()?;
        Some(Self {
            handle,
            _callback: callback,
        })
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        if let Some(window) = web_sys::window() {
            window.clear_timeout_with_handle(self.handle);
        }
    }
}
