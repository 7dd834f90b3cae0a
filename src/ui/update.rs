//! "Reload to update" and "Install": the offline app's two prompts.

use leptos::logging::warn;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::app::RunEntry;
use crate::pwa::{self, PwaState, PwaWatch, UpdateState};
use crate::runtime::RuntimeStatus;

/// The service worker's state as a signal, for as long as the calling
/// component lives (the watch is dropped with it). The offline copy is
/// installed once Python has started (or failed to), and its wheels are
/// downloaded once the first of this visit's `runs` is over.
pub fn watch_pwa(
    python: RwSignal<RuntimeStatus>,
    runs: RwSignal<Vec<RunEntry>>,
) -> ReadSignal<PwaState> {
    let state = RwSignal::new(PwaState::default());
    Effect::new(move |told: Option<bool>| {
        if told == Some(true) {
            return true;
        }
        let over = runs.with(|runs| {
            runs.iter()
                .any(|run| !run.earlier && !run.phase.with(|phase| phase.is_active()))
        });
        if over {
            if let Err(error) = pwa::first_result() {
                warn!("sandpit: {error}");
            }
        }
        over
    });
    Effect::new(move |installing: Option<bool>| {
        if installing == Some(true) {
            return true;
        }
        let started = python.with(RuntimeStatus::start_over);
        if started {
            if let Err(error) = pwa::install_offline_copy() {
                warn!("sandpit: no offline copy: {error}");
            }
        }
        started
    });
    match PwaWatch::start(move |next| state.set(next)) {
        Ok(watch) => {
            StoredValue::new_local(watch);
        }
        Err(error) => {
            warn!("sandpit: no offline support: {error}");
            state.set(PwaState {
                error: Some(error.to_string()),
                ..PwaState::default()
            });
        }
    }
    state.read_only()
}

/// Offers the waiting version, or says another tab already switched to it.
#[component]
pub fn UpdatePrompt(pwa: ReadSignal<PwaState>) -> impl IntoView {
    let update = move || pwa.with(|state| state.update);
    let apply = move |_| {
        if let Err(error) = pwa::apply_update() {
            warn!("sandpit: could not update: {error}");
        }
    };
    let state_name = move || match update() {
        UpdateState::None => "none",
        UpdateState::Ready => "ready",
        UpdateState::Activated => "activated",
        UpdateState::Failed => "failed",
    };
    let message = move || match update() {
        UpdateState::None => None,
        UpdateState::Ready => Some("A new version of Sandpit is ready."),
        UpdateState::Activated => Some("Sandpit was updated in another tab."),
        UpdateState::Failed => {
            Some("A new version could not be downloaded; this one keeps working.")
        }
    };
    let can_reload = move || matches!(update(), UpdateState::Ready | UpdateState::Activated);
    view! {
        <div class="update-prompt" data-testid="update-prompt" data-state=move || state_name().to_owned()>
            {move || message().map(str::to_owned)}
            <Show when=can_reload>
                {view! {
                    <button data-testid="apply-update" on:click=apply>
                        "Reload to update"
                    </button>
                }
                .into_any()}
            </Show>
        </div>
    }
}

/// Shown only while the browser offers installation.
#[component]
pub fn InstallButton(pwa: ReadSignal<PwaState>) -> impl IntoView {
    let install = move |_| {
        spawn_local(async move {
            if let Err(error) = pwa::prompt_install().await {
                warn!("sandpit: install prompt failed: {error}");
            }
        });
    };
    view! {
        <Show when=move || pwa.with(PwaState::can_install)>
            {view! {
                <button class="install-button" data-testid="install" on:click=install>
                    "Install"
                </button>
            }
            .into_any()}
        </Show>
    }
}
