//! The model settings and the API key, in the page's `localStorage`: the
//! app's own storage, which a worker (the Python worker included) has no
//! `localStorage` to reach. The key is kept apart from the settings, with
//! the endpoint it was entered for ([`KeyBinding`]).

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::js::bulk::to_js;
use crate::model::settings::{KeyBinding, ModelSettings};

/// Where the settings are kept.
const SETTINGS_KEY: &str = "sandpit-model";
/// Where the API key is kept, with its endpoint.
const API_KEY_KEY: &str = "sandpit-model-key";

fn storage() -> Option<web_sys::Storage> {
    leptos::prelude::window().local_storage().ok().flatten()
}

fn read<T: DeserializeOwned>(name: &str) -> Option<T> {
    let text = storage()?.get_item(name).ok().flatten()?;
    serde_wasm_bindgen::from_value(js_sys::JSON::parse(&text).ok()?).ok()
}

fn write(name: &str, value: Option<&impl Serialize>) -> Result<(), String> {
    let storage = storage().ok_or("this browser keeps nothing for the page (no localStorage)")?;
    let refused = |error: wasm_bindgen::JsValue| crate::js::error::message(&error);
    match value {
        Some(value) => {
            let text = js_sys::JSON::stringify(&to_js(value)).map_err(refused)?;
            storage.set_item(name, &String::from(text)).map_err(refused)
        }
        None => storage.remove_item(name).map_err(refused),
    }
}

/// The saved settings, if any.
pub fn load() -> Option<ModelSettings> {
    read(SETTINGS_KEY)
}

/// Saves the settings.
pub fn save(settings: &ModelSettings) -> Result<(), String> {
    write(SETTINGS_KEY, Some(settings))
}

/// The saved key and its endpoint, if any.
pub fn load_key() -> Option<KeyBinding> {
    read(API_KEY_KEY)
}

/// Saves the key with its endpoint, or forgets it.
pub fn save_key(binding: Option<&KeyBinding>) -> Result<(), String> {
    write(API_KEY_KEY, binding)
}
