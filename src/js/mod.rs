//! Codecs at the boundary with JavaScript: values that stay on the JS heap
//! ([`bulk`]), thrown values as messages ([`error`]), the deployment's JSON
//! files ([`fetch`]), tool arguments read where they are ([`json_data`]),
//! and records read field by field ([`reader`]).

pub mod bulk;
pub mod error;
pub mod fetch;
pub mod json_data;
pub mod reader;
