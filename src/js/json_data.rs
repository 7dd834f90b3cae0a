//! JSON data read by serde the way `serde_json::from_value` reads a
//! `serde_json::Value`, whether the data is a JS value or a `Value`.
//!
//! Tool arguments arrive as JS values (a postMessage, a WebMCP call), and a
//! model reads the errors serde's derive gives for them in serde_json's
//! words: "invalid type: integer `42`, expected a string", "null", "unknown
//! field `colour`". Turning the JS value into a `serde_json::Value` first,
//! to read it from there, put serde_json's tree, its maps and its
//! deserializer in the app's wasm for that alone. [`read`] reads
//! the JS value where it is, as serde_json reads the same data; natively it
//! reads a `Value`, and `tests/json_data.rs` checks it against serde_json.
//!
//! It reads what tool arguments are made of: structs, strings, numbers,
//! booleans, options and lists. Enums are not among them, and are not read
//! as serde_json reads them.

use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, Visitor};
use wasm_bindgen::{JsCast, JsValue};

/// Reads a `T` from `data` as `serde_json::from_value` reads the same JSON.
pub fn read<T: DeserializeOwned>(data: impl JsonData) -> Result<T, JsonError> {
    T::deserialize(Deserializer(data.kind()?))
}

/// One JSON value as a deserializer sees it: its kind and contents.
#[derive(Debug, PartialEq)]
pub enum Kind<T> {
    /// `null` (from JS also `undefined`, NaN and the infinities).
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer of 0 or more.
    Unsigned(u64),
    /// A negative integer.
    Signed(i64),
    /// Any other number.
    Float(f64),
    /// A string.
    String(String),
    /// An array's items.
    Array(Vec<T>),
    /// An object's fields.
    Object(Vec<(String, T)>),
}

impl<T> Kind<T> {
    /// A JS number as serde_json held it after `serde_wasm_bindgen` read
    /// it: a safe integer (at most 2^53 - 1 either side of 0) as an
    /// integer, NaN and the infinities as `null`, any other as a float.
    pub fn of_js_number(number: f64) -> Self {
        const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;
        if number.trunc() == number && number.abs() <= MAX_SAFE_INTEGER {
            if number >= 0.0 {
                Self::Unsigned(number as u64)
            } else {
                Self::Signed(number as i64)
            }
        } else if number.is_finite() {
            Self::Float(number)
        } else {
            Self::Null
        }
    }
}

/// Data that can say what kind of JSON value it is.
pub trait JsonData: Sized {
    /// This value's kind, or an error for a value JSON cannot hold.
    fn kind(self) -> Result<Kind<Self>, JsonError>;
}

impl JsonData for JsValue {
    fn kind(self) -> Result<Kind<Self>, JsonError> {
        if let Some(value) = self.as_bool() {
            return Ok(Kind::Bool(value));
        }
        if let Some(number) = self.as_f64() {
            return Ok(Kind::of_js_number(number));
        }
        if let Some(text) = self.as_string() {
            return Ok(Kind::String(text));
        }
        if self.is_null() || self.is_undefined() {
            return Ok(Kind::Null);
        }
        if let Some(array) = self.dyn_ref::<js_sys::Array>() {
            return Ok(Kind::Array(array.iter().collect()));
        }
        if !self.is_object() {
            return Err(de::Error::custom(
                "a BigInt, symbol or function is not JSON",
            ));
        }
        let entries = js_sys::Object::entries(self.unchecked_ref());
        let fields = entries.iter().map(|entry| {
            let entry: js_sys::Array = entry.unchecked_into();
            (entry.get(0).as_string().unwrap_or_default(), entry.get(1))
        });
        Ok(Kind::Object(fields.collect()))
    }
}

impl JsonData for serde_json::Value {
    fn kind(self) -> Result<Kind<Self>, JsonError> {
        use serde_json::Value;
        Ok(match self {
            Value::Null => Kind::Null,
            Value::Bool(value) => Kind::Bool(value),
            Value::Number(number) => match (number.as_u64(), number.as_i64()) {
                (Some(value), _) => Kind::Unsigned(value),
                (None, Some(value)) => Kind::Signed(value),
                (None, None) => Kind::Float(number.as_f64().unwrap_or_default()),
            },
            Value::String(value) => Kind::String(value),
            Value::Array(items) => Kind::Array(items),
            Value::Object(fields) => Kind::Object(fields.into_iter().collect()),
        })
    }
}

/// Why data did not fit: the text serde_json gives for the same data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError(String);

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for JsonError {}

impl de::Error for JsonError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        Self(message.to_string())
    }

    fn invalid_type(unexpected: de::Unexpected, expected: &dyn de::Expected) -> Self {
        Self::custom(format_args!(
            "invalid type: {}, expected {expected}",
            Unexpected(unexpected)
        ))
    }

    fn invalid_value(unexpected: de::Unexpected, expected: &dyn de::Expected) -> Self {
        Self::custom(format_args!(
            "invalid value: {}, expected {expected}",
            Unexpected(unexpected)
        ))
    }
}

/// An unexpected value in serde_json's words: `null` rather than serde's
/// "unit value", and a float written as serde_json writes it. A string is
/// quoted here too: serde quotes it with `{:?}`, which the release build
/// compiles to nothing.
struct Unexpected<'a>(de::Unexpected<'a>);

impl fmt::Display for Unexpected<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            de::Unexpected::Unit => f.write_str("null"),
            de::Unexpected::Float(value) => {
                f.write_str("floating point `")?;
                write_float(f, value)?;
                f.write_str("`")
            }
            de::Unexpected::Str(value) => write!(f, "string {}", crate::format::quoted(value)),
            other => other.fmt(f),
        }
    }
}

/// A finite float as serde_json writes it (with the `zmij` crate): the
/// fewest digits that read back as the same number, plainly when its
/// decimal exponent is -5 to 15 (`0.00001`, `2.5`, `1e15` as
/// `1000000000000000.0`), else as `1e-6`, `1.5e+300`. Worked out from
/// Rust's own plain formatting, which has the same digits and is already in
/// the app's wasm, where a float formatter's tables would not be.
fn write_float(f: &mut fmt::Formatter<'_>, value: f64) -> fmt::Result {
    let plain = value.abs().to_string();
    let (whole, fraction) = plain.split_once('.').unwrap_or((&plain, ""));
    let digits = format!("{whole}{fraction}");
    let significant = digits.trim_start_matches('0');
    // The power of ten of the first significant digit (0 for zero).
    let exponent = if significant.is_empty() {
        0
    } else {
        whole.len() as i32 - 1 - (digits.len() - significant.len()) as i32
    };
    if (-5..=15).contains(&exponent) {
        let point = if fraction.is_empty() { ".0" } else { "" };
        return write!(f, "{value}{point}");
    }
    let significant = significant.trim_end_matches('0');
    let (first, rest) = significant.split_at(1);
    let sign = if value < 0.0 { "-" } else { "" };
    let point = if rest.is_empty() { "" } else { "." };
    let exponent_sign = if exponent > 0 { "+" } else { "" };
    write!(f, "{sign}{first}{point}{rest}e{exponent_sign}{exponent}")
}

/// A JSON value of known kind, read by serde.
struct Deserializer<T>(Kind<T>);

impl<'de, T: JsonData> de::Deserializer<'de> for Deserializer<T> {
    type Error = JsonError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, JsonError> {
        match self.0 {
            Kind::Null => visitor.visit_unit(),
            Kind::Bool(value) => visitor.visit_bool(value),
            Kind::Unsigned(value) => visitor.visit_u64(value),
            Kind::Signed(value) => visitor.visit_i64(value),
            Kind::Float(value) => visitor.visit_f64(value),
            Kind::String(value) => visitor.visit_string(value),
            Kind::Array(items) => {
                let length = items.len();
                let mut items = Items(items.into_iter());
                let value = visitor.visit_seq(&mut items)?;
                all_read(items.0.len(), length, "fewer elements in array")?;
                Ok(value)
            }
            Kind::Object(mut fields) => {
                // serde_json's maps keep their fields sorted by name: the
                // first of several errors is then the same one.
                fields.sort_unstable_by(|(a, _), (b, _)| a.cmp(b));
                let length = fields.len();
                let mut fields = Fields {
                    rest: fields.into_iter(),
                    value: None,
                };
                let value = visitor.visit_map(&mut fields)?;
                all_read(fields.rest.len(), length, "fewer elements in map")?;
                Ok(value)
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, JsonError> {
        match self.0 {
            Kind::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, JsonError> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

/// Fails, as serde_json does, when a visitor left `left` of `length`
/// entries unread.
fn all_read(left: usize, length: usize, expected: &'static str) -> Result<(), JsonError> {
    if left == 0 {
        Ok(())
    } else {
        Err(de::Error::invalid_length(length, &expected))
    }
}

/// An array's items, read in order.
struct Items<T>(std::vec::IntoIter<T>);

impl<'de, T: JsonData> de::SeqAccess<'de> for Items<T> {
    type Error = JsonError;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, JsonError> {
        match self.0.next() {
            Some(item) => seed.deserialize(Deserializer(item.kind()?)).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// An object's fields, read in order: each name, then its value.
struct Fields<T> {
    rest: std::vec::IntoIter<(String, T)>,
    /// The value of the field whose name was read last.
    value: Option<T>,
}

impl<'de, T: JsonData> de::MapAccess<'de> for Fields<T> {
    type Error = JsonError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, JsonError> {
        let Some((name, value)) = self.rest.next() else {
            return Ok(None);
        };
        self.value = Some(value);
        seed.deserialize(name.into_deserializer()).map(Some)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, JsonError> {
        match self.value.take() {
            Some(value) => seed.deserialize(Deserializer(value.kind()?)),
            None => Err(de::Error::custom("value is missing")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.rest.len())
    }
}
