//! Reading run results and the worker's messages field by field, without
//! serde's `Deserialize` derive.
//!
//! A derived `Deserialize` is a visitor per struct (field names matched as
//! strings, each field held aside until the end, then checked for absence),
//! and reading a [`crate::protocol::RunResult`] that way was the largest
//! single piece of the app's wasm. In the browser, a run's result, its
//! streamed output, a check report, the worker's messages and the records
//! kept in browser storage (runs, files, the workspace, conversations) are
//! read with this instead, wherever serde meets them (a worker message's
//! field, a stored record): each struct asks its source for its fields by
//! name. The readers are derived (`#[derive(FromSource)]`, the `derive/`
//! crate) from the types' serde attributes, so each name on the wire is
//! written once. Natively serde's derive reads them, and `tests/reader.rs`
//! reads the same JSON both ways, so the two agree field for field.
//!
//! It accepts what `serde_wasm_bindgen` with the derive accepted: a struct is
//! an object, of which only the named fields are read (others are ignored,
//! as that deserializer never hands them to the derive); an `Option` field
//! that is absent, `null` or `undefined` is `None`, and a `#[serde(default)]`
//! field that is absent its default; every other field must be present and
//! of its type; a list is an array; a map is an object (not an array); an
//! enum whose variants hold a value is an object with one field, the
//! variant's name, and one of unit variants is the variant's name.
//! Strings, numbers, [`Text`], [`Json`] and the remaining enums are still
//! read by serde: small, and so the same.

use litemap::LiteMap;
use serde::de::{DeserializeOwned, Error as _};
use wasm_bindgen::{JsCast, JsValue};

use crate::js::bulk::{Json, Text};

pub use sandpit_derive::{FromSource, WireName};

/// A value to read from: a JS value in the browser, JSON natively (tests).
pub trait Source: Sized {
    /// Why a value was refused.
    type Error: serde::de::Error;

    /// Field `name` of this value, which must be an object; `None` when the
    /// field is absent (in JS, or `undefined`).
    fn field(&self, name: &'static str) -> Result<Option<Self>, Self::Error>;

    /// Whether this is `null` (in JS, or `undefined`).
    fn is_nullish(&self) -> bool;

    /// The items of this value, which must be an array.
    fn items(self) -> Result<Vec<Self>, Self::Error>;

    /// The name and value of this value's only field: it must be an object
    /// with exactly one.
    fn only_field(self) -> Result<(String, Self), Self::Error>;

    /// The names and values of this value's fields, in order: it must be an
    /// object (and not an array).
    fn entries(self) -> Result<Vec<(String, Self)>, Self::Error>;

    /// This value read by serde.
    fn deserialize<T: DeserializeOwned>(self) -> Result<T, Self::Error>;
}

/// A type read from a [`Source`]: derived (`#[derive(FromSource)]`) from
/// the type's serde attributes, so its names on the wire are serde's.
pub trait FromSource: Sized {
    /// Reads `source` as this type.
    fn read<S: Source>(source: S) -> Result<Self, S::Error>;

    /// This type when its field, `name`, is absent: refused, as serde does
    /// for a field that is neither optional nor defaulted.
    fn absent<E: serde::de::Error>(name: &'static str) -> Result<Self, E> {
        Err(E::missing_field(name))
    }
}

/// Field `name` of `source` read as a `T` (for the derived readers).
pub fn read_field<T: FromSource, S: Source>(source: &S, name: &'static str) -> Result<T, S::Error> {
    match source.field(name)? {
        Some(value) => T::read(value).map_err(|error| in_field(name, error)),
        None => T::absent(name),
    }
}

/// Field `name` of `source` read as a `T`, or `default()` when it is absent
/// (a field with `#[serde(default)]`).
pub fn read_field_or<T: FromSource, S: Source>(
    source: &S,
    name: &'static str,
    default: impl FnOnce() -> T,
) -> Result<T, S::Error> {
    match source.field(name)? {
        Some(value) => T::read(value).map_err(|error| in_field(name, error)),
        None => Ok(default()),
    }
}

/// `error`, saying in which field (or variant) `name` it happened.
pub fn in_field<E: serde::de::Error>(name: &str, error: E) -> E {
    E::custom(format_args!("field `{name}`: {error}"))
}

impl<T: FromSource> FromSource for Option<T> {
    fn read<S: Source>(source: S) -> Result<Self, S::Error> {
        if source.is_nullish() {
            return Ok(None);
        }
        T::read(source).map(Some)
    }

    fn absent<E: serde::de::Error>(_: &'static str) -> Result<Self, E> {
        Ok(None)
    }
}

impl<T: FromSource> FromSource for Box<T> {
    fn read<S: Source>(source: S) -> Result<Self, S::Error> {
        T::read(source).map(Box::new)
    }
}

impl<T: FromSource> FromSource for Vec<T> {
    fn read<S: Source>(source: S) -> Result<Self, S::Error> {
        // A plain loop: `collect` into a `Result` brings an adapter and an
        // in-place collection per item type, larger than the loop.
        let items = source.items()?;
        let mut read = Vec::with_capacity(items.len());
        for item in items {
            read.push(T::read(item)?);
        }
        Ok(read)
    }
}

/// [`FromSource`] for types serde reads as they are.
macro_rules! read_by_serde {
    ($($type:ty),* $(,)?) => {$(
        impl $crate::js::reader::FromSource for $type {
            fn read<S: $crate::js::reader::Source>(source: S) -> Result<Self, S::Error> {
                source.deserialize()
            }
        }
    )*};
}
pub(crate) use read_by_serde;

read_by_serde!(String, u32, u64, i32, f64, bool, Text, Json);

/// A map, as serde writes one: an object, each key a field name.
impl<T: FromSource> FromSource for LiteMap<String, T> {
    fn read<S: Source>(source: S) -> Result<Self, S::Error> {
        let mut map = LiteMap::new();
        for (key, value) in source.entries()? {
            let value = T::read(value).map_err(|error| in_field(&key, error))?;
            map.insert(key, value);
        }
        Ok(map)
    }
}

/// In the browser, where serde meets these types (a worker message's
/// field, a stored run) it hands over the JS value as it is, to be read by
/// [`FromSource`]; natively they keep the derive.
macro_rules! deserialize_by_hand {
    ($($type:ty),* $(,)?) => {$(
        #[cfg(target_arch = "wasm32")]
        impl<'de> serde::Deserialize<'de> for $type {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value: wasm_bindgen::JsValue =
                    serde_wasm_bindgen::preserve::deserialize(deserializer)?;
                <Self as $crate::js::reader::FromSource>::read(value)
                    .map_err(<D::Error as serde::de::Error>::custom)
            }
        }
    )*};
}
pub(crate) use deserialize_by_hand;

impl Source for JsValue {
    type Error = serde_wasm_bindgen::Error;

    fn field(&self, name: &'static str) -> Result<Option<Self>, Self::Error> {
        // `Reflect.get` throws for anything but an object.
        let value = js_sys::Reflect::get(self, &JsValue::from_str(name))
            .map_err(|_| Self::Error::custom("expected an object"))?;
        Ok((!value.is_undefined()).then_some(value))
    }

    fn is_nullish(&self) -> bool {
        self.is_null() || self.is_undefined()
    }

    fn items(self) -> Result<Vec<Self>, Self::Error> {
        let array = self
            .dyn_into::<js_sys::Array>()
            .map_err(|_| Self::Error::custom("expected an array"))?;
        Ok(array.iter().collect())
    }

    fn only_field(self) -> Result<(String, Self), Self::Error> {
        let object = self
            .dyn_into::<js_sys::Object>()
            .map_err(|_| Self::Error::custom("expected an object"))?;
        let entries = js_sys::Object::entries(&object);
        if entries.length() != 1 {
            return Err(Self::Error::invalid_length(entries.length() as usize, &"1"));
        }
        let entry: js_sys::Array = entries.get(0).unchecked_into();
        Ok((entry.get(0).as_string().unwrap_or_default(), entry.get(1)))
    }

    fn entries(self) -> Result<Vec<(String, Self)>, Self::Error> {
        let object = self
            .dyn_into::<js_sys::Object>()
            .ok()
            .filter(|object| !js_sys::Array::is_array(object))
            .ok_or_else(|| Self::Error::custom("expected an object"))?;
        let entries = js_sys::Object::entries(&object);
        let fields = entries.iter().map(|entry| {
            let entry: js_sys::Array = entry.unchecked_into();
            (entry.get(0).as_string().unwrap_or_default(), entry.get(1))
        });
        Ok(fields.collect())
    }

    fn deserialize<T: DeserializeOwned>(self) -> Result<T, Self::Error> {
        serde_wasm_bindgen::from_value(self)
    }
}

impl Source for serde_json::Value {
    type Error = serde_json::Error;

    fn field(&self, name: &'static str) -> Result<Option<Self>, Self::Error> {
        match self {
            Self::Object(fields) => Ok(fields.get(name).cloned()),
            _ => Err(Self::Error::custom("expected an object")),
        }
    }

    fn is_nullish(&self) -> bool {
        self.is_null()
    }

    fn items(self) -> Result<Vec<Self>, Self::Error> {
        match self {
            Self::Array(items) => Ok(items),
            _ => Err(Self::Error::custom("expected an array")),
        }
    }

    fn only_field(self) -> Result<(String, Self), Self::Error> {
        let Self::Object(fields) = self else {
            return Err(Self::Error::custom("expected an object"));
        };
        let count = fields.len();
        match fields.into_iter().next() {
            Some(field) if count == 1 => Ok(field),
            _ => Err(Self::Error::invalid_length(count, &"1")),
        }
    }

    fn entries(self) -> Result<Vec<(String, Self)>, Self::Error> {
        match self {
            Self::Object(fields) => Ok(fields.into_iter().collect()),
            _ => Err(Self::Error::custom("expected an object")),
        }
    }

    fn deserialize<T: DeserializeOwned>(self) -> Result<T, Self::Error> {
        serde_json::from_value(self)
    }
}
