//! Each session's conversation with a model, kept in the page's IndexedDB
//! (`www/storage.js`) so a reload, even in the middle of the loop, keeps
//! what was asked, answered and run. The Python worker has no way to it.

use wasm_bindgen::JsValue;

use super::{decode, encode, js_load_conversations, js_save_conversation, StorageError};
use crate::model::conversation::Conversation;

/// Every kept conversation; one that cannot be read (another version's) is skipped.
pub async fn load() -> Result<Vec<Conversation>, StorageError> {
    let all: JsValue = js_load_conversations().await?;
    let all: js_sys::Array = all.into();
    Ok(all.iter().filter_map(decode).collect())
}

/// Keeps `conversation` under its session, replacing what was kept.
pub async fn save(conversation: &Conversation) -> Result<(), StorageError> {
    js_save_conversation(&conversation.session, encode(conversation)?).await?;
    Ok(())
}
