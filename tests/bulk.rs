//! Bulky text: how long output is cut into pieces for the page.

use sandpit::js::bulk::Text;

fn pieces(text: &str, size: usize) -> Vec<String> {
    Text::from(text)
        .line_pieces(size)
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn short_text_is_one_piece() {
    assert_eq!(pieces("a\nb\n", 4), ["a\nb\n"]);
    assert_eq!(pieces("", 4), [""]);
}

#[test]
fn pieces_end_at_the_first_newline_after_the_size() {
    assert_eq!(
        pieces("aa\nbb\ncc\ndd\nee", 4),
        ["aa\nbb\n", "cc\ndd\n", "ee"]
    );
    // A newline right at the size ends the piece there.
    assert_eq!(pieces("abc\ndef\n", 4), ["abc\n", "def\n"]);
}

#[test]
fn a_line_longer_than_the_size_is_never_cut() {
    assert_eq!(pieces("abcdefgh\nij", 2), ["abcdefgh\n", "ij"]);
    assert_eq!(pieces("abcdefgh", 2), ["abcdefgh"]);
}

#[test]
fn pieces_join_back_into_the_text() {
    let text: String = (0..500).map(|i| format!("line {i}\n")).collect();
    let joined: String = pieces(&text, 100).concat();
    assert_eq!(joined, text);
    assert_eq!(Text::from(text.as_str()).newlines(), 500);
    assert!(Text::from("x\n").ends_with_newline());
    assert!(!Text::from("x").ends_with_newline());
}
