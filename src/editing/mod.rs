//! What the code editor shows of Python's answers and when it may ask:
//! marks in the code from a check or a run's error ([`marks`]), questions
//! asked one at a time ([`gate`]), and cursor positions between the
//! editor's count and Python's. Plain logic, tested natively.

pub mod gate;
pub mod marks;

/// The character (code point) offset of `utf16` code units into `text`:
/// the editor counts in UTF-16, Python in characters. An offset past the
/// end, or inside a character, counts the characters wholly before it.
pub fn chars_before(text: &str, utf16: u32) -> u32 {
    let mut units = 0;
    let mut chars = 0;
    for c in text.chars() {
        units += c.len_utf16() as u32;
        if units > utf16 {
            break;
        }
        chars += 1;
    }
    chars
}
