//! The model settings and the API key, in the page's `localStorage`: the
//! app's own storage, which a worker (the Python worker included) has no
//! `localStorage` to reach. The key is kept apart from the settings, with
//! the endpoint it was entered for ([`KeyBinding`]). Each field is an item
//! of its own, as plain text.

use crate::model::settings::{KeyBinding, ModelSettings, Provider};

const PROVIDER: &str = "sandpit-model-provider";
const ENDPOINT: &str = "sandpit-model-endpoint";
const MODEL: &str = "sandpit-model-name";
const STEPS: &str = "sandpit-model-steps";
const IMAGES: &str = "sandpit-model-images";
const KEY: &str = "sandpit-model-key";
const KEY_ENDPOINT: &str = "sandpit-model-key-endpoint";

fn storage() -> Option<web_sys::Storage> {
    leptos::prelude::window().local_storage().ok().flatten()
}

fn read(name: &str) -> Option<String> {
    storage()?.get_item(name).ok().flatten()
}

/// Sets each item to its value, or removes it (`None`).
fn write(items: &[(&str, Option<&str>)]) -> Result<(), String> {
    let storage = storage().ok_or("this browser keeps nothing for the page (no localStorage)")?;
    for (name, value) in items {
        match value {
            Some(value) => storage.set_item(name, value),
            None => storage.remove_item(name),
        }
        .map_err(|error| crate::js::error::message(&error))?;
    }
    Ok(())
}

/// The saved settings, if any were saved.
pub fn load() -> Option<ModelSettings> {
    let provider = read(PROVIDER)?;
    let defaults = ModelSettings::default();
    Some(ModelSettings {
        provider: Provider::from_id(&provider).unwrap_or_default(),
        endpoint: read(ENDPOINT).unwrap_or_default(),
        model: read(MODEL).unwrap_or_default(),
        step_limit: read(STEPS)
            .and_then(|steps| steps.parse().ok())
            .unwrap_or(defaults.step_limit),
        send_images: read(IMAGES).map_or(defaults.send_images, |images| images == "true"),
    })
}

/// Saves the settings.
pub fn save(settings: &ModelSettings) -> Result<(), String> {
    let steps = settings.step_limit.to_string();
    write(&[
        (PROVIDER, Some(settings.provider.id())),
        (ENDPOINT, Some(&settings.endpoint)),
        (MODEL, Some(&settings.model)),
        (STEPS, Some(&steps)),
        (
            IMAGES,
            Some(if settings.send_images {
                "true"
            } else {
                "false"
            }),
        ),
    ])
}

/// The saved key and its endpoint, if any.
pub fn load_key() -> Option<KeyBinding> {
    Some(KeyBinding::new(&read(KEY_ENDPOINT)?, &read(KEY)?))
}

/// Saves the key with its endpoint, or forgets it.
pub fn save_key(binding: Option<&KeyBinding>) -> Result<(), String> {
    write(&[
        (KEY, binding.map(|b| b.key.as_str())),
        (KEY_ENDPOINT, binding.map(|b| b.endpoint.as_str())),
    ])
}
