//! [`Json`] as JSON data to read and write where it is: a message's fields,
//! a typed value read from it, a typed value written as one. In the browser
//! MCP messages (the embedding page's, a browser agent's) stay JS values
//! this way, and no tree of `serde_json::Value`s is built for them in wasm
//! memory, nor is serde_json's code in the app's wasm.

use serde::de::DeserializeOwned;
use serde::Serialize;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen::JsCast;
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

    /// The number this is, if it is one.
    pub fn as_f64(&self) -> Option<f64> {
        self.0.as_f64()
    }

    /// A copy of this object with field `name` set to `value` (the fields
    /// themselves shared, not copied).
    pub fn with(&self, name: &str, value: &str) -> Self {
        #[cfg(target_arch = "wasm32")]
        {
            let copy = js_sys::Object::assign(&js_sys::Object::new(), self.0.unchecked_ref());
            let _ = js_sys::Reflect::set(&copy, &name.into(), &value.into());
            Self(copy.into())
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            let mut copy = self.0.clone();
            if let Some(object) = copy.as_object_mut() {
                object.insert(name.to_owned(), value.into());
            }
            Self(copy)
        }
    }

    /// The names of this object's fields (none when it is not an object).
    pub fn keys(&self) -> Vec<String> {
        #[cfg(target_arch = "wasm32")]
        return self
            .0
            .dyn_ref::<js_sys::Object>()
            .filter(|_| self.is_object())
            .map(|object| {
                js_sys::Object::keys(object)
                    .iter()
                    .filter_map(|key| key.as_string())
                    .collect()
            })
            .unwrap_or_default();
        #[cfg(not(target_arch = "wasm32"))]
        self.0
            .as_object()
            .map(|object| object.keys().cloned().collect())
            .unwrap_or_default()
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

    /// JSON text read as a value; the error says why it is not JSON. In
    /// the browser `JSON.parse` reads it, so serde_json's parser stays out
    /// of the app's wasm.
    pub fn parse(text: &str) -> Result<Self, String> {
        #[cfg(target_arch = "wasm32")]
        return js_sys::JSON::parse(text)
            .map(Self)
            .map_err(|error| crate::js::error::message(&error));
        #[cfg(not(target_arch = "wasm32"))]
        serde_json::from_str(text)
            .map(Self)
            .map_err(|error| error.to_string())
    }

    /// The value as compact JSON text (in the browser, by `JSON.stringify`).
    pub fn compact(&self) -> super::Text {
        #[cfg(target_arch = "wasm32")]
        return js_sys::JSON::stringify(&self.0)
            .map(super::Text::from)
            .unwrap_or_default();
        #[cfg(not(target_arch = "wasm32"))]
        super::Text::from(self.0.to_string())
    }

    /// The string this is, as [`super::Text`] (in the browser the JS string
    /// itself, not copied into wasm memory).
    pub fn as_text(&self) -> Option<super::Text> {
        #[cfg(target_arch = "wasm32")]
        return self
            .0
            .clone()
            .dyn_into::<js_sys::JsString>()
            .ok()
            .map(super::Text::from);
        #[cfg(not(target_arch = "wasm32"))]
        self.0.as_str().map(super::Text::from)
    }

    /// The items of this array (none when it is not one).
    pub fn items(&self) -> Vec<Self> {
        #[cfg(target_arch = "wasm32")]
        return self
            .0
            .clone()
            .dyn_into::<js_sys::Array>()
            .map(|array| array.iter().map(Self).collect())
            .unwrap_or_default();
        #[cfg(not(target_arch = "wasm32"))]
        self.0
            .as_array()
            .map(|items| items.iter().cloned().map(Self).collect())
            .unwrap_or_default()
    }

    /// This value read field by field as a `T` (a run's result, say), as
    /// [`crate::js::reader`] reads the worker's messages.
    pub fn read_record<T: crate::js::reader::FromSource>(&self) -> Result<T, String> {
        T::read(self.0.clone()).map_err(|error| error.to_string())
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
