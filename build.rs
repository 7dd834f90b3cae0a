//! Ships `src/tools.json` without the indentation it is committed with (for
//! review): the app's wasm embeds the text, and its whitespace cost about
//! 0.4 KB gzip (issue 6). Whitespace inside strings is kept; JSON has no
//! other place where whitespace means anything.

use std::path::PathBuf;

fn main() {
    println!("cargo::rerun-if-changed=src/tools.json");
    let text = std::fs::read_to_string("src/tools.json").expect("src/tools.json is readable");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("tools.json"), without_indentation(&text))
        .expect("OUT_DIR is writable");
}

/// `json` without the whitespace between its tokens.
fn without_indentation(json: &str) -> String {
    let (mut in_string, mut escaped) = (false, false);
    json.chars()
        .filter(|&c| {
            if in_string {
                (in_string, escaped) = (escaped || c != '"', !escaped && c == '\\');
                return true;
            }
            in_string = c == '"';
            !c.is_ascii_whitespace()
        })
        .collect()
}
