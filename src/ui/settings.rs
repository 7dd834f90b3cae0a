//! Settings: whether the app works offline, how much it stores, and "Clear data".

use leptos::logging::warn;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::format;
use crate::pwa::PwaState;
use crate::store::{self, records::Usage};

/// A panel in the header: the offline copy's state and version, storage
/// usage (read when the panel opens), and clearing the saved work.
#[component]
pub fn Settings(pwa: ReadSignal<PwaState>) -> impl IntoView {
    let usage = RwSignal::new(None::<Result<Usage, String>>);
    let confirming = RwSignal::new(false);
    let refresh = move || {
        spawn_local(async move {
            usage.set(Some(store::usage().await.map_err(|e| e.to_string())));
        });
    };
    let clear = move |_| {
        spawn_local(async move {
            match store::clear().await {
                // A fresh start: the default session and code, no history, a new Python.
                Ok(()) => {
                    if let Err(error) = window().location().reload() {
                        warn!(
                            "sandpit: could not reload: {}",
                            crate::js::error::message(&error)
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
                    Ok(usage) => storage_usage(&usage),
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

/// Settings' storage line, e.g. `"Storage: 13.5 MB used of 10.0 GB (app 13.4 MB, your work 20.5 KB)."`;
/// the breakdown only where the browser gives one.
pub fn storage_usage(usage: &Usage) -> String {
    let size = |b: f64| format::bytes(b.max(0.0) as u64);
    let parts: Vec<String> = [
        usage.caches.map(|b| format!("app {}", size(b))),
        usage.indexed_db.map(|b| format!("your work {}", size(b))),
    ]
    .into_iter()
    .flatten()
    .collect();
    let detail = if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    };
    format!(
        "Storage: {} used of {}{detail}.",
        size(usage.usage),
        size(usage.quota)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_usage_breaks_down_where_the_browser_does() {
        let mut usage = Usage {
            usage: 13_520_000.0,
            quota: 10e9,
            caches: Some(13_400_000.0),
            indexed_db: Some(20_480.0),
        };
        assert_eq!(
            storage_usage(&usage),
            "Storage: 13.5 MB used of 10.0 GB (app 13.4 MB, your work 20.5 KB)."
        );
        usage.caches = None;
        usage.indexed_db = None;
        assert_eq!(storage_usage(&usage), "Storage: 13.5 MB used of 10.0 GB.");
    }
}
