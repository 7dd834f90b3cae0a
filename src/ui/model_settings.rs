//! The model the Ask panel talks to, in Settings: provider, endpoint,
//! model, API key, step limit, and presets for local servers.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde::Deserialize;

use crate::js::bulk::Json;
use crate::model::settings::{
    deployment_preset, normal_endpoint, KeyBinding, ModelSettings, Provider, MAX_STEP_LIMIT,
    PRESETS,
};
use crate::names::CONFIG_FILE;
use crate::surfaces::ask::Ask;

/// Applies the deployment's model preset (`model` in the config) when the
/// person has chosen no endpoint yet; a config that holds a key is refused
/// and the reason kept for Settings to show.
pub fn apply_deployment_preset(ask: Ask, saved: bool, refused: RwSignal<Option<String>>) {
    #[derive(Deserialize, Default)]
    struct Config {
        #[serde(default)]
        model: Option<Json>,
    }
    spawn_local(async move {
        let config: Config = match crate::js::fetch::json(CONFIG_FILE).await {
            Ok(config) => config,
            Err(error) => return refused.set(Some(error)),
        };
        match deployment_preset(config.model.as_ref()) {
            Ok(Some(preset)) if !saved => ask.settings.set(preset),
            Ok(_) => {}
            Err(error) => refused.set(Some(error)),
        }
    });
}

/// The model section of Settings.
#[component]
pub fn ModelSettingsForm(refused: RwSignal<Option<String>>) -> impl IntoView {
    let Some(ask) = use_context::<Ask>() else {
        return ().into_any();
    };
    let problem = RwSignal::new(None::<String>);
    let change = move |edit: &dyn Fn(&mut ModelSettings)| {
        let mut settings = ask.settings.get_untracked();
        edit(&mut settings);
        problem.set(ask.set_settings(settings).err());
    };
    let key_text = RwSignal::new(String::new());
    let save_key = move || {
        let key = key_text.get_untracked();
        if key.trim().is_empty() {
            return;
        }
        let endpoint = ask.settings.with_untracked(|s| s.endpoint.clone());
        problem.set(ask.set_key(Some(KeyBinding::new(&endpoint, &key))).err());
        key_text.set(String::new());
    };
    let key_state = move || {
        let endpoint = ask.settings.with(|s| normal_endpoint(&s.endpoint));
        ask.key.with(|key| match key {
            None => ("none", "No API key saved (a local server needs none).".to_owned()),
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
        })
    };
    let confirm_key = move |_| {
        let endpoint = ask.settings.with_untracked(|s| s.endpoint.clone());
        let moved = ask
            .key
            .with_untracked(|key| key.as_ref().map(|k| KeyBinding::new(&endpoint, &k.key)));
        problem.set(ask.set_key(moved).err());
    };
    view! {
        <fieldset class="model-settings" data-testid="model-settings">
            <legend>"Model for the Ask panel"</legend>
            <div class="presets">
                {PRESETS
                    .iter()
                    .map(|preset| {
                        view! {
                            <button
                                type="button"
                                data-testid="model-preset"
                                on:click=move |_| change(&|s| *s = s.clone().with_preset(preset))
                            >
                                {preset.label}
                            </button>
                        }
                    })
                    .collect_view()}
            </div>
            <label>
                "Provider "
                <select
                    data-testid="model-provider"
                    on:change=move |event| {
                        let id = event_target_value(&event);
                        change(&|s| s.provider = Provider::from_id(&id).unwrap_or_default());
                    }
                >
                    {Provider::ALL
                        .into_iter()
                        .map(|provider| {
                            view! {
                                <option
                                    value=provider.id()
                                    selected=move || ask.settings.with(|s| s.provider == provider)
                                >
                                    {provider.label()}
                                </option>
                            }
                        })
                        .collect_view()}
                </select>
            </label>
            <label>
                "Endpoint "
                <input
                    data-testid="model-endpoint"
                    type="url"
                    placeholder="https://…/v1"
                    prop:value=move || ask.settings.with(|s| s.endpoint.clone())
                    on:change=move |event| {
                        let endpoint = normal_endpoint(&event_target_value(&event));
                        change(&|s| s.endpoint = endpoint.clone());
                    }
                />
            </label>
            <label>
                "Model "
                <input
                    data-testid="model-name"
                    placeholder="e.g. qwen2.5-coder"
                    prop:value=move || ask.settings.with(|s| s.model.clone())
                    on:change=move |event| {
                        let model = event_target_value(&event).trim().to_owned();
                        change(&|s| s.model = model.clone());
                    }
                />
            </label>
            <label>
                "API key "
                <input
                    data-testid="model-key"
                    type="password"
                    autocomplete="off"
                    placeholder="kept in this browser, sent only to this endpoint"
                    prop:value=move || key_text.get()
                    on:input=move |event| key_text.set(event_target_value(&event))
                    on:change=move |_| save_key()
                />
            </label>
            <p class="key-state" data-testid="model-key-state" data-state=move || key_state().0>
                {move || key_state().1}
                " "
                <Show when=move || key_state().0 == "other">
                    <button type="button" data-testid="model-key-confirm" on:click=confirm_key>
                        "Use it for this endpoint"
                    </button>
                </Show>
                <Show when=move || key_state().0 != "none">
                    <button
                        type="button"
                        data-testid="model-key-forget"
                        on:click=move |_| problem.set(ask.set_key(None).err())
                    >
                        "Forget the key"
                    </button>
                </Show>
            </p>
            <label>
                "Step limit "
                <input
                    data-testid="model-steps"
                    type="number"
                    min="1"
                    max=MAX_STEP_LIMIT
                    prop:value=move || ask.settings.with(|s| s.step_limit)
                    on:change=move |event| {
                        let steps = event_target::<web_sys::HtmlInputElement>(&event).value_as_number();
                        let steps = if steps.is_finite() { steps.clamp(1.0, f64::from(MAX_STEP_LIMIT)) as u32 } else { 1 };
                        change(&|s| s.step_limit = steps);
                    }
                />
            </label>
            <label class="checkbox">
                <input
                    data-testid="model-images"
                    type="checkbox"
                    prop:checked=move || ask.settings.with(|s| s.send_images)
                    on:change=move |event| {
                        let checked = event_target_checked(&event);
                        change(&|s| s.send_images = checked);
                    }
                />
                " Send figures to the model as images (needs a vision model)"
            </label>
            <p class="status-error" data-testid="model-settings-problem">
                {move || problem.get().or_else(|| ask.settings.with(ModelSettings::problem))}
            </p>
            <Show when=move || refused.with(Option::is_some)>
                <p class="status-error" data-testid="model-config-error">{move || refused.get()}</p>
            </Show>
        </fieldset>
    }
    .into_any()
}
