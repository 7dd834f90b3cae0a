//! Settings: whether the app works offline, which packages and origins
//! Python has, how much it stores, and "Clear data".

use leptos::logging::warn;
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde::Deserialize;

use crate::format;
use crate::names::CONFIG_FILE;
use crate::pwa::{self, InstallProgress, PwaState};
use crate::store::{self, records::Usage};
use crate::ui::model_settings::ModelSettingsForm;

/// A panel in the header: the offline copy's state and version, storage
/// usage (read when the panel opens), and clearing the saved work.
#[component]
pub fn Settings(
    pwa: ReadSignal<PwaState>,
    /// Whether the page offers its tools to browser agents (WebMCP).
    web_mcp: RwSignal<bool>,
    /// Why the deployment's model preset was refused, if it was.
    model_refused: RwSignal<Option<String>>,
) -> impl IntoView {
    let usage = RwSignal::new(None::<Result<Usage, String>>);
    let deployment = RwSignal::new(None::<Result<Deployment, String>>);
    let confirming = RwSignal::new(false);
    let refresh = move || {
        spawn_local(async move {
            usage.set(Some(store::usage().await.map_err(|e| e.to_string())));
        });
        spawn_local(async move {
            deployment.set(Some(Deployment::read().await));
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
                <p
                    data-testid="snapshot-state"
                    data-state=move || pwa.with(|pwa| if pwa.snapshot_bytes.is_some() { "stored" } else { "absent" })
                >
                    {move || pwa.with(|pwa| snapshot_line(pwa.snapshot_bytes))}
                </p>
                <DeploymentFacts deployment />
                <super::agent_access::AgentAccess web_mcp />
                <ModelSettingsForm refused=model_refused />
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
                    {view! {
                        <span class="confirm">
                            "Delete the saved code, files, run history and conversations? The offline copy of the app stays. "
                            <button data-testid="confirm-clear-data" on:click=clear>
                                "Delete"
                            </button>
                            <button on:click=move |_| confirming.set(false)>"Cancel"</button>
                        </span>
                    }
                    .into_any()}
                </Show>
            </div>
        </details>
    }
}

/// What the deployment gives Python: the packages that come with the app
/// (they work offline) and the origins its code may reach.
#[derive(Debug, Clone, PartialEq, Default)]
struct Deployment {
    bundled: Vec<String>,
    network: Vec<String>,
}

impl Deployment {
    /// Reads Pyodide's manifest and the config (which the service worker then keeps).
    async fn read() -> Result<Self, String> {
        #[derive(Deserialize, Default)]
        struct Manifest {
            #[serde(default)]
            bundled: Vec<String>,
        }
        #[derive(Deserialize, Default)]
        struct Network {
            #[serde(default)]
            allow: Vec<String>,
        }
        #[derive(Deserialize, Default)]
        struct Config {
            #[serde(default)]
            network: Network,
        }
        let manifest: Manifest = crate::js::fetch::json("pyodide/manifest.json").await?;
        let config: Config = crate::js::fetch::json(CONFIG_FILE).await?;
        Ok(Self {
            bundled: manifest.bundled,
            network: config.network.allow,
        })
    }

    /// The packages line, e.g. `"Packages that work offline: sympy, tabulate."`.
    fn packages_line(&self) -> String {
        if self.bundled.is_empty() {
            return "No packages come with this deployment: each downloads on first use."
                .to_owned();
        }
        format!(
            "Packages that work offline: {}. Others (numpy, pandas, matplotlib…) download on first use.",
            self.bundled.join(", ")
        )
    }

    /// The network line: where Python may connect.
    fn network_line(&self) -> String {
        if self.network.is_empty() {
            return format!(
                "Python reaches no website (only package downloads); a deployment allows origins in {CONFIG_FILE} under network.allow."
            );
        }
        format!("Python may reach: {}.", self.network.join(", "))
    }
}

/// The deployment's packages and network allowlist.
#[component]
fn DeploymentFacts(deployment: RwSignal<Option<Result<Deployment, String>>>) -> impl IntoView {
    view! {
        {move || {
            deployment.get().map(|facts| match facts {
                Ok(facts) => view! {
                    <p data-testid="offline-packages">{facts.packages_line()}</p>
                    <p data-testid="network-allow">{facts.network_line()}</p>
                    <p data-testid="session-limits">{sessions_line()}</p>
                }
                .into_any(),
                Err(error) => view! { <p data-testid="offline-packages">{error}</p> }.into_any(),
            })
        }}
    }
}

/// How sessions run: each in a worker of its own, how many at once, how much memory each.
fn sessions_line() -> String {
    let limits = use_context::<crate::app::SharedRuntime>()
        .map(|runtime| runtime.with_value(|runtime| runtime.limits()));
    match limits {
        Some(limits) => format!(
            "Each session runs in a Python worker of its own, with up to {} of memory: up to {} workers stay \
             alive (past that, an idle one is parked and restored by replay on its next run), and {} run at \
             once, one per core (the others' calls wait their turn); a deployment sets the memory and the \
             workers under sessions in {CONFIG_FILE}.",
            format::mebibytes(limits.memory_bytes),
            limits.resident,
            limits.running
        ),
        None => String::new(),
    }
}

/// The start-up snapshot's line, e.g. `"Start-up snapshot: 31.5 MB kept; …"`.
fn snapshot_line(bytes: Option<f64>) -> String {
    match bytes {
        Some(bytes) => format!(
            "Start-up snapshot: {} kept; Python restores it instead of starting from scratch.",
            format::bytes(bytes as u64)
        ),
        None => "Start-up snapshot: none kept yet; one is made after the first run.".to_owned(),
    }
}

/// The offline copy's download, e.g. `"Downloading the offline copy: 12.0 MB of 24.0 MB…"`.
fn install_progress_line(progress: Option<InstallProgress>) -> String {
    match progress {
        Some(InstallProgress { done, total }) => format!(
            "Downloading the offline copy: {} of {}…",
            format::bytes(done as u64),
            format::bytes(total as u64)
        ),
        None => "Preparing offline use…".to_owned(),
    }
}

/// Whether the app starts without a network, and which version is cached.
#[component]
fn OfflineState(pwa: ReadSignal<PwaState>) -> impl IntoView {
    let retry = move |_| {
        if let Err(error) = pwa::retry_install() {
            warn!("sandpit: could not retry the install: {error}");
        }
    };
    let state = move || {
        pwa.with(|pwa| match pwa {
            PwaState {
                error: Some(error), ..
            } => ("failed", format!("Offline use failed: {error}")),
            PwaState {
                install_error: Some(error),
                offline_ready: false,
                ..
            } => (
                "failed",
                format!("The offline copy could not be installed ({error}). The app works while online."),
            ),
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
            PwaState {
                install_progress, ..
            } => ("preparing", install_progress_line(*install_progress)),
        })
    };
    view! {
        <p
            data-testid="offline-state"
            data-state=move || state().0.to_owned()
            data-version=move || pwa.with(|pwa| pwa.version.clone())
            aria-live="polite"
        >
            {move || state().1}
            <Show when=move || pwa.with(|pwa| pwa.install_error.is_some() && !pwa.offline_ready)>
                {view! {
                    " "
                    <button data-testid="retry-install" on:click=retry>"Try again"</button>
                }
                .into_any()}
            </Show>
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
    fn deployment_lines_name_the_packages_and_origins() {
        let mut facts = Deployment {
            bundled: vec!["sympy".into(), "tabulate".into()],
            network: vec![],
        };
        assert!(facts
            .packages_line()
            .starts_with("Packages that work offline: sympy, tabulate."));
        assert!(facts.network_line().contains("network.allow"));
        facts.network.push("https://api.example.org".into());
        assert_eq!(
            facts.network_line(),
            "Python may reach: https://api.example.org."
        );
        facts.bundled.clear();
        assert!(facts.packages_line().starts_with("No packages come"));
    }

    #[test]
    fn install_progress_says_how_far() {
        assert_eq!(install_progress_line(None), "Preparing offline use…");
        let line = install_progress_line(Some(InstallProgress {
            done: 12e6,
            total: 24e6,
        }));
        assert_eq!(line, "Downloading the offline copy: 12.0 MB of 24.0 MB…");
    }

    #[test]
    fn the_snapshot_line_says_whether_one_is_kept() {
        assert!(snapshot_line(None).contains("none kept yet"));
        assert!(snapshot_line(Some(31.5e6)).starts_with("Start-up snapshot: 31.5 MB kept"));
    }

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
