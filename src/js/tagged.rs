//! Reading an internally tagged JS object (`{"type": "done", ...}`) tag
//! first, then field by field.
//!
//! serde's derive reads such an enum by first copying the whole object into
//! a buffer of its own (`Content`), then reading the variant from that
//! buffer: every type that can sit in the enum is compiled a second time, to
//! be read from the buffer, which cost the app's wasm about a tenth of its
//! size (issue 6). In the browser, the enums read from JS objects (the
//! worker's messages, [`crate::runtime`]; stored refusals, [`crate::store::kept_files`])
//! are read with this instead; natively their derived `Deserialize` stays.

use js_sys::{Object, Reflect};
use serde::de::{DeserializeOwned, Error as _};
use serde_wasm_bindgen::Error;
use wasm_bindgen::{JsCast, JsValue};

use crate::js::reader::in_field;

/// A JS object whose tag is read, and whose fields are read one by one.
pub struct Tagged {
    data: JsValue,
    tag_name: &'static str,
    /// The tag's value, e.g. `done`.
    pub tag: String,
    /// The fields read so far: any other is unknown, an error as with serde's
    /// `deny_unknown_fields` on the protocol's types.
    read: std::cell::RefCell<Vec<&'static str>>,
}

impl Tagged {
    /// Reads the tag named `tag_name` of `data`.
    pub fn new(data: JsValue, tag_name: &'static str) -> Result<Self, Error> {
        let tag = Reflect::get(&data, &tag_name.into())
            .ok()
            .and_then(|tag| tag.as_string())
            .ok_or_else(|| Error::missing_field(tag_name))?;
        Ok(Self {
            data,
            tag_name,
            tag,
            read: Default::default(),
        })
    }

    /// The field `name` as it is in JS (`undefined` when absent).
    pub fn field_value(&self, name: &'static str) -> Result<JsValue, Error> {
        self.read.borrow_mut().push(name);
        Reflect::get(&self.data, &name.into()).map_err(|_| Error::missing_field(name))
    }

    /// The field `name`, read as a `T` (an absent field reads as `None`).
    pub fn field<T: DeserializeOwned>(&self, name: &'static str) -> Result<T, Error> {
        serde_wasm_bindgen::from_value(self.field_value(name)?)
            .map_err(|error| in_field(name, error))
    }

    /// The error for when no variant has this tag.
    pub fn unknown_tag(&self) -> Error {
        Error::custom(format_args!("unknown {} `{}`", self.tag_name, self.tag))
    }

    /// Fails on a field that was not read: one the protocol does not define.
    pub fn finish(self) -> Result<(), Error> {
        let read = self.read.into_inner();
        for key in Object::keys(self.data.unchecked_ref::<Object>()).iter() {
            let key = key.as_string().unwrap_or_default();
            if key != self.tag_name && !read.contains(&key.as_str()) {
                return Err(Error::custom(format_args!("unknown field `{key}`")));
            }
        }
        Ok(())
    }
}
