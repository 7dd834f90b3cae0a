//! Handing bytes to the browser as a file download.

use base64::prelude::{Engine as _, BASE64_STANDARD};
use leptos::prelude::document;
use wasm_bindgen::{JsCast, JsValue};

use crate::js::bulk::Text;

/// The name a download of `path` is saved under: its last segment.
pub fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Saves `content` (base64) as a download of `path`.
pub fn save(path: &str, mime: &str, content: &str) -> Result<(), String> {
    let bytes = BASE64_STANDARD.decode(content).map_err(|e| e.to_string())?;
    save_part(
        path,
        mime,
        &js_sys::Uint8Array::from(bytes.as_slice()).into(),
    )
}

/// Saves `text` as a download of `path` (in the browser the JS string
/// itself goes into the file, not a copy through wasm memory).
pub fn save_text(path: &str, mime: &str, text: &Text) -> Result<(), String> {
    save_part(path, mime, &text.to_js())
}

/// Saves one blob part (bytes or a string) as a download of `path`.
fn save_part(path: &str, mime: &str, part: &JsValue) -> Result<(), String> {
    let refused = |_| "the browser refused the download".to_owned();
    let parts = js_sys::Array::of1(part);
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob =
        web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options).map_err(refused)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(refused)?;
    let anchor = document()
        .create_element("a")
        .map_err(refused)?
        .unchecked_into::<web_sys::HtmlAnchorElement>();
    anchor.set_href(&url);
    anchor.set_download(file_name(path));
    anchor.click();
    // The download has its own reference now; the URL is no longer needed.
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}
