//! Settings: whether the app works offline, how much it stores, and "Clear data".

use leptos::logging::warn;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::format;
use crate::pwa::PwaState;
use crate::storage::{self, Usage};

/// A panel in the header: the offline copy's state and version, storage
/// usage (read when the panel opens), and clearing the saved work.
#[component]
pub fn Settings(pwa: ReadSignal<PwaState>) -> impl IntoView {
    let usage = RwSignal::new(None::<Result<Usage, String>>);
    let confirming = RwSignal::new(false);
    let refresh = move || {
        spawn_local(async move {
            usage.set(Some(storage::usage().await.map_err(|e| e.to_string())));
        });
    };
    let clear = move |_| {
        spawn_local(async move {
            match storage::clear().await {
                // A fresh start: the default session and code, no history, a new Python.
                Ok(()) => {
                    if let Err(error) = window().location().reload() {
                        warn!(
                            "sandpit: could not reload: {}",
                            crate::js_error::message(&error)
                        );
                    }
                }
                Err(error) => {
                    confirming.set(false);
                    usage.set(Some(Err(error.to_string())));
                }
            }
        });
    };
    view! {
        <details
            class="settings"
            data-testid="settings"
            on:toggle=move |_| {
                confirming.set(false);
                refresh();
            }
        >
            <summary>"Settings"</summary>
            <div class="settings-body">
                <OfflineState pwa />
                <p data-testid="storage-usage">{move || usage.get().map(|usage| match usage {
                    Ok(usage) => format::storage_usage(&usage),
                    Err(error) => format!("Storage: {error}"),
                })}</p>
                <Show
                    when=move || confirming.get()
                    fallback=move || {
                        view! {
                            <button data-testid="clear-data" on:click=move |_| confirming.set(true)>
                                "Clear data"
                            </button>
                        }
                    }
                >
                    <span class="confirm">
                        "Delete the saved code, files and run history? The offline copy of the app stays. "
                        <button data-testid="confirm-clear-data" on:click=clear>
                            "Delete"
                        </button>
                        <button on:click=move |_| confirming.set(false)>"Cancel"</button>
                    </span>
                </Show>
            </div>
        </details>
    }
}

/// Whether the app starts without a network, and which version is cached.
#[component]
fn OfflineState(pwa: ReadSignal<PwaState>) -> impl IntoView {
    let state = move || {
        pwa.with(|pwa| match pwa {
            PwaState {
                error: Some(error), ..
            } => ("failed", format!("Offline use failed: {error}")),
            PwaState {
                supported: false, ..
            } => (
                "unsupported",
                "Offline use is not available in this browser.".to_owned(),
            ),
            PwaState {
                offline_ready: true,
                version,
                cached_bytes,
                ..
            } => (
                "ready",
                format!(
                    "Works offline: version {}, {} cached.",
                    version.as_deref().unwrap_or("unknown"),
                    cached_bytes.map_or_else(|| "?".to_owned(), |b| format::bytes(b as u64)),
                ),
            ),
            _ => ("preparing", "Preparing offline use…".to_owned()),
        })
    };
    view! {
        <p
            data-testid="offline-state"
            data-state=move || state().0
            data-version=move || pwa.with(|pwa| pwa.version.clone())
        >
            {move || state().1}
        </p>
    }
}
