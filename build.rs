//! Ships `src/tools.json` without the indentation it is committed with (for
//! review): the app's wasm embeds the text. serde_json writes it again
//! compactly, in the same key order (its maps are sorted, as in the file).

use std::path::PathBuf;

fn main() {
    println!("cargo::rerun-if-changed=src/tools.json");
    let text = std::fs::read_to_string("src/tools.json").expect("src/tools.json is readable");
    let tools: serde_json::Value = serde_json::from_str(&text).expect("src/tools.json is JSON");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("tools.json"), tools.to_string()).expect("OUT_DIR is writable");
}
