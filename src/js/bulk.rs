//! The bulky parts of run results (output, values, rich outputs, files),
//! kept outside the app's wasm memory.
//!
//! A wasm module's linear memory only ever grows: a page that once held a
//! hundred results with 100 KB of output each keeps those megabytes for
//! good, even after the results are gone. So in the browser [`Text`] and
//! [`Json`] are JavaScript values, on the JS heap, which the garbage
//! collector shrinks again. They arrive from the worker as they are,
//! reach the DOM, IndexedDB and the embedding page as they are, and come
//! into Rust only for a moment where Rust must read them (formatting a
//! summary, decoding a file). Natively (tests, schema generation) they are
//! a `String` and a `serde_json::Value`, so the logic on them stays testable.
//!
//! Serialisation passes the JS value through unchanged, which only
//! `serde_wasm_bindgen` understands: in the browser, anything holding them
//! is serialised with it, never with `serde_json`.

mod json;

use std::fmt;

use schemars::{JsonSchema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use wasm_bindgen::JsValue;

#[cfg(target_arch = "wasm32")]
type TextRepr = js_sys::JsString;
#[cfg(not(target_arch = "wasm32"))]
type TextRepr = String;

/// Text that may be large: a JS string in the browser, a `String` natively.
///
/// Cloning it in the browser copies a handle, not the text.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Text(TextRepr);

impl Text {
    /// Whether it has no characters.
    pub fn is_empty(&self) -> bool {
        #[cfg(target_arch = "wasm32")]
        return self.0.length() == 0;
        #[cfg(not(target_arch = "wasm32"))]
        self.0.is_empty()
    }

    /// Calls `read` with the text as a `&str`. In the browser the text is
    /// copied into wasm memory for the call and freed after it: keep what
    /// `read` returns small.
    pub fn with_str<R>(&self, read: impl FnOnce(&str) -> R) -> R {
        #[cfg(target_arch = "wasm32")]
        return read(&String::from(&self.0));
        #[cfg(not(target_arch = "wasm32"))]
        read(&self.0)
    }

    /// Length in UTF-8 bytes, as the output limits count.
    pub fn utf8_len(&self) -> usize {
        self.with_str(str::len)
    }

    /// This text followed by `other`; in the browser the engine joins them
    /// without copying either.
    pub fn concat(&self, other: &Text) -> Text {
        #[cfg(target_arch = "wasm32")]
        return Text(self.0.concat(&other.0));
        #[cfg(not(target_arch = "wasm32"))]
        Text(format!("{}{}", self.0, other.0))
    }

    /// All of `parts` in order, as one text.
    pub fn join<'a>(parts: impl IntoIterator<Item = &'a Text>) -> Text {
        // One part is that part itself: in the browser the same string, shared.
        parts.into_iter().fold(Text::default(), |joined, part| {
            if joined.is_empty() {
                part.clone()
            } else {
                joined.concat(part)
            }
        })
    }

    /// The text without trailing newlines.
    pub fn trim_end_newlines(&self) -> Text {
        #[cfg(target_arch = "wasm32")]
        {
            let newline = f64::from(b'\n');
            let mut end = self.0.length();
            while end > 0 && self.0.char_code_at(end - 1) == newline {
                end -= 1;
            }
            Text(self.0.slice(0, end))
        }
        #[cfg(not(target_arch = "wasm32"))]
        Text(self.0.trim_end_matches('\n').to_owned())
    }

    /// The text cut into pieces of whole lines: each piece but the last ends
    /// with the first newline at or after `size` units from its start
    /// (UTF-16 units in the browser, bytes natively), the last is the rest.
    /// Joined, the pieces are the text; a text of `size` units or fewer, or
    /// with no newline to cut at, is one piece. In the browser the pieces
    /// are slices of the JS string: the text never enters wasm memory.
    pub fn line_pieces(&self, size: usize) -> Vec<Text> {
        let size = size.max(1);
        let mut pieces = Vec::new();
        let mut start = 0;
        #[cfg(target_arch = "wasm32")]
        {
            let length = self.0.length() as usize;
            while length - start > size {
                let Ok(end) = usize::try_from(self.0.index_of("\n", (start + size - 1) as i32))
                else {
                    break;
                };
                pieces.push(Text(self.0.slice(start as u32, end as u32 + 1)));
                start = end + 1;
            }
            if start < length || pieces.is_empty() {
                pieces.push(Text(self.0.slice(start as u32, length as u32)));
            }
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            while self.0.len() - start > size {
                let Some(end) = self.0[start + size - 1..].find('\n') else {
                    break;
                };
                let end = start + size - 1 + end;
                pieces.push(Text(self.0[start..=end].to_owned()));
                start = end + 1;
            }
            if start < self.0.len() || pieces.is_empty() {
                pieces.push(Text(self.0[start..].to_owned()));
            }
        }
        pieces
    }

    /// Its length in the units [`Text::line_pieces`] counts: UTF-16 units
    /// in the browser, bytes natively.
    pub fn units(&self) -> usize {
        #[cfg(target_arch = "wasm32")]
        return self.0.length() as usize;
        #[cfg(not(target_arch = "wasm32"))]
        self.0.len()
    }

    /// The text after its first `units` units (see [`Text::units`]); empty
    /// when that is all of it. Natively `units` must end on a character.
    pub fn after(&self, units: usize) -> Text {
        #[cfg(target_arch = "wasm32")]
        return Text(self.0.slice(units as u32, self.0.length()));
        #[cfg(not(target_arch = "wasm32"))]
        Text(self.0.get(units..).unwrap_or_default().to_owned())
    }

    /// How many newlines the text holds.
    pub fn newlines(&self) -> usize {
        #[cfg(target_arch = "wasm32")]
        return (self.0.split("\n").length() as usize).saturating_sub(1);
        #[cfg(not(target_arch = "wasm32"))]
        self.0.matches('\n').count()
    }

    /// Whether the text ends with a newline.
    pub fn ends_with_newline(&self) -> bool {
        #[cfg(target_arch = "wasm32")]
        return self.0.ends_with("\n", self.0.length() as i32);
        #[cfg(not(target_arch = "wasm32"))]
        self.0.ends_with('\n')
    }

    /// The text as a JS value, for a DOM property or a message. Only the
    /// browser has JS values: natively this is never called.
    pub fn to_js(&self) -> JsValue {
        #[cfg(target_arch = "wasm32")]
        return self.0.clone().into();
        #[cfg(not(target_arch = "wasm32"))]
        JsValue::from_str(&self.0)
    }
}

impl From<js_sys::JsString> for Text {
    /// A string a browser API made. Only the browser has JS strings:
    /// natively this is never called.
    fn from(text: js_sys::JsString) -> Self {
        Self(text.into())
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Self {
        Self(text.into())
    }
}

impl From<String> for Text {
    fn from(text: String) -> Self {
        #[cfg(target_arch = "wasm32")]
        return Self(text.into());
        #[cfg(not(target_arch = "wasm32"))]
        Self(text)
    }
}

impl fmt::Display for Text {
    /// Copies the text into wasm memory in the browser, for the moment it is formatted.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.with_str(|text| f.write_str(text))
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.with_str(|text| fmt::Debug::fmt(text, f))
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.with_str(|text| text == other)
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self == *other
    }
}

impl Serialize for Text {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[cfg(target_arch = "wasm32")]
        return serde_wasm_bindgen::preserve::serialize(&self.0, serializer);
        #[cfg(not(target_arch = "wasm32"))]
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Text {
    /// In the browser only a JS string is accepted, as JSON Schema's `string`.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[cfg(target_arch = "wasm32")]
        return serde_wasm_bindgen::preserve::deserialize(deserializer).map(Self);
        #[cfg(not(target_arch = "wasm32"))]
        String::deserialize(deserializer).map(Self)
    }
}

impl JsonSchema for Text {
    fn inline_schema() -> bool {
        String::inline_schema()
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        String::schema_name()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        String::schema_id()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> schemars::Schema {
        String::json_schema(generator)
    }
}

#[cfg(target_arch = "wasm32")]
type JsonRepr = JsValue;
#[cfg(not(target_arch = "wasm32"))]
type JsonRepr = serde_json::Value;

/// A JSON value that may be large: the JS value itself in the browser
/// (equal there as by `===`: a string or number to an equal one, anything
/// else only to itself), a `serde_json::Value` natively. MCP messages are
/// held as these too, and read where they are (`bulk/json.rs`).
#[derive(Clone, PartialEq)]
pub struct Json(JsonRepr);

impl Json {
    /// The value as indented JSON text, for showing it.
    pub fn pretty(&self) -> Text {
        pretty_json(self)
    }
}

/// `value` as JS data, as JSON would give it (maps as objects, `None` as
/// `null`); [`Text`] and [`Json`] in it go as they are.
pub fn to_js(value: &impl Serialize) -> JsValue {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .unwrap_or(JsValue::NULL)
}

/// `value` as indented JSON text, for showing it. In the browser the text
/// is written by `JSON.stringify`, so it never passes through wasm memory.
pub fn pretty_json(value: &impl Serialize) -> Text {
    #[cfg(target_arch = "wasm32")]
    return js_sys::JSON::stringify_with_replacer_and_space(
        &to_js(value),
        &JsValue::NULL,
        &JsValue::from(2),
    )
    .map(Text)
    .unwrap_or_default();
    #[cfg(not(target_arch = "wasm32"))]
    Text(serde_json::to_string_pretty(value).unwrap_or_default())
}

impl fmt::Debug for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.pretty(), f)
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[cfg(target_arch = "wasm32")]
        return serde_wasm_bindgen::preserve::serialize(&self.0, serializer);
        #[cfg(not(target_arch = "wasm32"))]
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[cfg(target_arch = "wasm32")]
        return serde_wasm_bindgen::preserve::deserialize(deserializer).map(Self);
        #[cfg(not(target_arch = "wasm32"))]
        serde_json::Value::deserialize(deserializer).map(Self)
    }
}

impl JsonSchema for Json {
    fn inline_schema() -> bool {
        serde_json::Value::inline_schema()
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        serde_json::Value::schema_name()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        serde_json::Value::schema_id()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> schemars::Schema {
        serde_json::Value::json_schema(generator)
    }
}
