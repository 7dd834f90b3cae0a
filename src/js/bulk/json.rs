//! [`Json`] as JSON data to read and write where it is: a message's fields,
//! a typed value read from it, a typed value written as one. In the browser
//! MCP messages (the embedding page's, a browser agent's) stay JS values
//! this way, and no tree of `serde_json::Value`s is built for them in wasm
//! memory, nor is serde_json's code in the app's wasm.

use serde::de::DeserializeOwned;
use serde::Serialize;
use wasm_bindgen::JsValue;

use super::Json;
use crate::js::json_data::{self, JsonError};

impl Json {
    /// `value` as JSON (in the browser, as [`super::to_js`] writes it).
    pub fn of(value: &impl Serialize) -> Self {
        #[cfg(target_arch = "wasm32")]
        return Self(super::to_js(value));
        #[cfg(not(target_arch = "wasm32"))]
        Self(serde_json::to_value(value).unwrap_or_default())
    }

    /// An empty object, `{}`.
    pub fn empty_object() -> Self {
        #[cfg(target_arch = "wasm32")]
        return Self(js_sys::Object::new().into());
        #[cfg(not(target_arch = "wasm32"))]
        Self(serde_json::Value::Object(serde_json::Map::new()))
    }

    /// Field `name` of this object; `None` when it has none (in JS, or it is
    /// `undefined`) or this is not an object.
    pub fn get(&self, name: &str) -> Option<Self> {
        #[cfg(target_arch = "wasm32")]
        return self
            .0
            .is_object()
            .then(|| js_sys::Reflect::get(&self.0, &name.into()).ok())
            .flatten()
            .filter(|value| !value.is_undefined())
            .map(Self);
        #[cfg(not(target_arch = "wasm32"))]
        self.0.get(name).cloned().map(Self)
    }

    /// The string this is, if it is one.
    pub fn as_string(&self) -> Option<String> {
        #[cfg(target_arch = "wasm32")]
        return self.0.as_string();
        #[cfg(not(target_arch = "wasm32"))]
        self.0.as_str().map(str::to_owned)
    }

    /// The boolean this is, if it is one.
    pub fn as_bool(&self) -> Option<bool> {
        self.0.as_bool()
    }

    /// Whether this is `null` (in JS, or `undefined`).
    pub fn is_null(&self) -> bool {
        #[cfg(target_arch = "wasm32")]
        return self.0.is_null() || self.0.is_undefined();
        #[cfg(not(target_arch = "wasm32"))]
        self.0.is_null()
    }

    /// Whether this is an object (and not an array).
    pub fn is_object(&self) -> bool {
        #[cfg(target_arch = "wasm32")]
        return self.0.is_object() && !self.is_array();
        #[cfg(not(target_arch = "wasm32"))]
        self.0.is_object()
    }

    /// Whether this is an array.
    pub fn is_array(&self) -> bool {
        #[cfg(target_arch = "wasm32")]
        return js_sys::Array::is_array(&self.0);
        #[cfg(not(target_arch = "wasm32"))]
        self.0.is_array()
    }

    /// This value read as a `T`, as `serde_json::from_value` reads it
    /// (errors in its words: [`crate::json_data`]).
    pub fn read<T: DeserializeOwned>(&self) -> Result<T, JsonError> {
        json_data::read(self.0.clone())
    }
}

impl From<JsValue> for Json {
    /// A value a browser API gave. Only the browser has JS values: natively
    /// this is never called.
    fn from(value: JsValue) -> Self {
        #[cfg(target_arch = "wasm32")]
        return Self(value);
        #[cfg(not(target_arch = "wasm32"))]
        Self(serde_wasm_bindgen::from_value(value).unwrap_or_default())
    }
}

impl From<serde_json::Value> for Json {
    /// Natively the value itself (tests build them with `json!`); in the
    /// browser it is written out as JS data.
    fn from(value: serde_json::Value) -> Self {
        #[cfg(target_arch = "wasm32")]
        return Self(super::to_js(&value));
        #[cfg(not(target_arch = "wasm32"))]
        Self(value)
    }
}
