//! The model the Ask panel talks to, in Settings: provider, endpoint,
//! model, API key, step limit, and presets for local servers.
//!
//! The form is drawn again whenever the settings change, from plain values,
//! and one listener on it takes every change: a field with reactive bindings
//! and a listener of its own each cost the app's wasm more than the form does.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use crate::js::bulk::Json;
use crate::model::settings::{
    deployment_preset, normal_endpoint, KeyBinding, Provider, MAX_STEP_LIMIT, PRESETS,
};
use crate::names::CONFIG_FILE;
use crate::surfaces::ask::Ask;

/// Applies the deployment's model preset (`model` in the config) when the
/// person has chosen no endpoint yet; a config that holds a key is refused
/// and the reason kept for Settings to show.
pub fn apply_deployment_preset(ask: Ask, saved: bool, refused: RwSignal<Option<String>>) {
    spawn_local(async move {
        let config: Json = match crate::js::fetch::json(CONFIG_FILE).await {
            Ok(config) => config,
            Err(error) => return refused.set(Some(error)),
        };
        match deployment_preset(config.get("model").as_ref()) {
            Ok(Some(preset)) if !saved => ask.settings.set(preset),
            Ok(_) => {}
            Err(error) => refused.set(Some(error)),
        }
    });
}

/// Where the saved key stands for the endpoint in force.
fn key_state(key: Option<&KeyBinding>, endpoint: &str) -> (&'static str, String) {
    let endpoint = normal_endpoint(endpoint);
    match key {
        None => (
            "none",
            "No API key saved (a local server needs none).".to_owned(),
        ),
        Some(binding) if binding.key_for(&endpoint).is_some() => {
            ("saved", format!("A key is saved for {endpoint}."))
        }
        Some(binding) => (
            "other",
            format!(
                "The saved key was entered for {}: it is not sent to {endpoint} unless you confirm.",
                binding.endpoint
            ),
        ),
    }
}

/// The model section of Settings.
#[component]
pub fn ModelSettingsForm(refused: RwSignal<Option<String>>) -> impl IntoView {
    let Some(ask) = use_context::<Ask>() else {
        return ().into_any();
    };
    let problem = RwSignal::new(None::<String>);
    // Every field's change, told apart by the field's `name`.
    let changed = move |event: leptos::ev::Event| {
        let Some(field) = event
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            // The provider's <select>.
            let id = event_target_value(&event);
            let mut settings = ask.settings.get_untracked();
            settings.provider = Provider::from_id(&id).unwrap_or_default();
            return problem.set(ask.set_settings(settings).err());
        };
        let mut settings = ask.settings.get_untracked();
        let value = field.value();
        match field.name().as_str() {
            "endpoint" => settings.endpoint = normal_endpoint(&value),
            "model" => settings.model = value.trim().to_owned(),
            "steps" => {
                let steps = field.value_as_number();
                settings.step_limit = if steps.is_finite() {
                    steps.clamp(1.0, f64::from(MAX_STEP_LIMIT)) as u32
                } else {
                    1
                };
            }
            "images" => settings.send_images = field.checked(),
            "key" if !value.trim().is_empty() => {
                let binding = KeyBinding::new(&settings.endpoint, &value);
                field.set_value("");
                return problem.set(ask.set_key(Some(binding)).err());
            }
            _ => return,
        }
        problem.set(ask.set_settings(settings).err());
    };
    let clicked = move |event: leptos::ev::MouseEvent| {
        let Some(button) = event
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlButtonElement>().ok())
        else {
            return;
        };
        let settings = ask.settings.get_untracked();
        let done = match button.name().as_str() {
            "preset" => {
                let preset = PRESETS.iter().find(|p| p.label == button.value());
                match preset {
                    Some(preset) => ask.set_settings(settings.with_preset(preset)),
                    None => Ok(()),
                }
            }
            "confirm-key" => {
                let moved = ask.key.with_untracked(|key| {
                    key.as_ref()
                        .map(|k| KeyBinding::new(&settings.endpoint, &k.key))
                });
                ask.set_key(moved)
            }
            "forget-key" => ask.set_key(None),
            _ => Ok(()),
        };
        problem.set(done.err());
    };
    let form = move || {
        let settings = ask.settings.get();
        let (state, says) = ask
            .key
            .with(|key| key_state(key.as_ref(), &settings.endpoint));
        let said = problem.get().or_else(|| settings.problem());
        view! {
            <div class="presets">
                {PRESETS
                    .iter()
                    .map(|preset| {
                        view! {
                            <button type="button" name="preset" value=preset.label data-testid="model-preset">
                                {preset.label}
                            </button>
                        }
                        .into_any()
                    })
                    .collect_view()}
            </div>
            <label>
                "Provider "
                <select data-testid="model-provider" name="provider">
                    {Provider::ALL
                        .into_iter()
                        .map(|provider| {
                            view! {
                                <option value=provider.id() selected=settings.provider == provider>
                                    {provider.label()}
                                </option>
                            }
                            .into_any()
                        })
                        .collect_view()}
                </select>
            </label>
            <label>
                "Endpoint "
                <input data-testid="model-endpoint" name="endpoint" type="url" placeholder="https://…/v1" value=settings.endpoint.clone() />
            </label>
            <label>
                "Model "
                <input data-testid="model-name" name="model" placeholder="e.g. qwen2.5-coder" value=settings.model.clone() />
            </label>
            <label>
                "API key "
                <input
                    data-testid="model-key"
                    name="key"
                    type="password"
                    autocomplete="off"
                    placeholder="kept in this browser, sent only to this endpoint"
                />
            </label>
            <p class="key-state" data-testid="model-key-state" data-state=state>
                {says}
                " "
                <button type="button" name="confirm-key" data-testid="model-key-confirm" hidden=state != "other">
                    "Use it for this endpoint"
                </button>
                <button type="button" name="forget-key" data-testid="model-key-forget" hidden=state == "none">
                    "Forget the key"
                </button>
            </p>
            <label>
                "Step limit "
                <input data-testid="model-steps" name="steps" type="number" min="1" max=MAX_STEP_LIMIT.to_string() value=settings.step_limit.to_string() />
            </label>
            <label class="checkbox">
                <input data-testid="model-images" name="images" type="checkbox" checked=settings.send_images />
                " Send figures to the model as images (needs a vision model)"
            </label>
            <p class="status-error" data-testid="model-settings-problem">{said}</p>
            {refused.get().map(|error| view! { <p class="status-error" data-testid="model-config-error">{error}</p> }.into_any())}
        }
        .into_any()
    };
    view! {
        <fieldset class="model-settings" data-testid="model-settings" on:change=changed on:click=clicked>
            <legend>"Model for the Ask panel"</legend>
            {move || form()}
        </fieldset>
    }
    .into_any()
}
