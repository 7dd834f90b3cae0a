//! Which pages may drive the widget (`embed.allow` in the deployment's
//! config), and what a refused page is told: the file and the exact entry
//! that would let it in.

use sandpit::names::{CONFIG_FILE, WIDGET_PAGE};
use sandpit::surfaces::postmessage::EmbedPolicy;

fn policy(allow: &[&str]) -> EmbedPolicy {
    EmbedPolicy {
        allow: allow.iter().map(|origin| (*origin).to_owned()).collect(),
    }
}

#[test]
fn only_listed_origins_or_any_with_a_star_may_drive_the_widget() {
    let listed = policy(&["https://chat.example"]);
    assert!(listed.allows("https://chat.example"));
    assert!(!listed.allows("https://chat.example:8443"));
    assert!(!listed.allows("https://evil.example"));
    assert!(policy(&["*"]).allows("https://anyone.example"));
    assert!(!policy(&[]).allows("https://chat.example"));
}

#[test]
fn a_refusal_names_the_file_and_the_entry_to_add() {
    let empty = policy(&[]).refusal("https://chat.example");
    assert!(
        empty.starts_with("Sandpit refuses requests from https://chat.example:"),
        "{empty}"
    );
    assert!(empty.contains(CONFIG_FILE), "{empty}");
    assert!(empty.contains(WIDGET_PAGE), "{empty}");
    assert!(
        empty.contains(r#""embed": { "allow": ["https://chat.example"] }"#),
        "{empty}"
    );
    assert!(empty.contains("No rebuild is needed"), "{empty}");

    // The entries already there stay in the line to write.
    let some = policy(&["http://127.0.0.1:8081"]).refusal("https://chat.example");
    assert!(
        some.contains(r#""embed": { "allow": ["http://127.0.0.1:8081", "https://chat.example"] }"#),
        "{some}"
    );
}
