//! A session file shown in the Files panel: text as text, CSV as a table,
//! images as images; anything else by its size.

use base64::prelude::{Engine as _, BASE64_STANDARD};
use leptos::prelude::*;

/// Characters of a text file shown; the rest is a download away.
const TEXT_PREVIEW_CHARS: usize = 20_000;
/// Rows of a CSV file shown as a table.
const CSV_PREVIEW_ROWS: usize = 50;

/// What a file's bytes are shown as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Preview {
    /// Text, cut to [`TEXT_PREVIEW_CHARS`]; true when it was cut.
    Text(String, bool),
    /// A table's rows (the first is the header), cut to [`CSV_PREVIEW_ROWS`]; true when cut.
    Table(Vec<Vec<String>>, bool),
    /// An image: its MIME type and base64 bytes.
    Image(&'static str, String),
    /// Bytes that are not text.
    Binary(usize),
}

/// The image type a path names, by its extension.
fn image_mime(path: &str) -> Option<&'static str> {
    let extension = path.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match extension.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        _ => return None,
    })
}

impl Preview {
    /// The preview of `path`, whose bytes are `content_base64`.
    pub fn of(path: &str, content_base64: &str) -> Result<Self, String> {
        if let Some(mime) = image_mime(path) {
            return Ok(Self::Image(mime, content_base64.to_owned()));
        }
        let bytes = BASE64_STANDARD
            .decode(content_base64)
            .map_err(|e| format!("{path} could not be read: {e}"))?;
        let Ok(text) = String::from_utf8(bytes) else {
            return Ok(Self::Binary(
                BASE64_STANDARD
                    .decode(content_base64)
                    .map_or(0, |b| b.len()),
            ));
        };
        if path.to_ascii_lowercase().ends_with(".csv") {
            let mut rows = csv_rows(&text);
            let cut = rows.len() > CSV_PREVIEW_ROWS;
            rows.truncate(CSV_PREVIEW_ROWS);
            return Ok(Self::Table(rows, cut));
        }
        let cut = text.chars().count() > TEXT_PREVIEW_CHARS;
        Ok(Self::Text(
            text.chars().take(TEXT_PREVIEW_CHARS).collect(),
            cut,
        ))
    }
}

/// The rows of CSV text: comma-separated fields, `"` quoting (with `""`
/// for a quote) across commas and line breaks; blank lines skipped.
pub fn csv_rows(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let (mut row, mut field) = (Vec::new(), String::new());
    let (mut quoted, mut chars) = (false, text.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => row.push(std::mem::take(&mut field)),
            ('\n', false) => {
                row.push(std::mem::take(&mut field));
                if row.iter().any(|f| !f.is_empty()) {
                    rows.push(std::mem::take(&mut row));
                }
                row.clear();
            }
            ('\r', false) => {}
            (c, _) => field.push(c),
        }
    }
    row.push(field);
    if row.iter().any(|f| !f.is_empty()) {
        rows.push(row);
    }
    rows
}

/// A preview as the panel shows it.
#[component]
pub fn FilePreview(preview: Preview) -> impl IntoView {
    let cut_note = |cut: bool, what: &str| {
        cut.then(|| view! { <p class="hint">{format!("Showing the first {what}; download the file for the rest.")}</p> }.into_any())
    };
    match preview {
        Preview::Text(text, cut) => view! {
            <div class="file-preview" data-testid="file-preview" data-kind="text" tabindex="0">
                <pre>{text}</pre>
                {cut_note(cut, "20,000 characters")}
            </div>
        }
        .into_any(),
        Preview::Table(rows, cut) => {
            let mut rows = rows.into_iter();
            let header = rows.next().unwrap_or_default();
            view! {
                <div class="file-preview" data-testid="file-preview" data-kind="table" tabindex="0">
                    <table>
                        <thead><tr>{header.into_iter().map(|h| view! { <th scope="col">{h}</th> }.into_any()).collect_view()}</tr></thead>
                        <tbody>
                            {rows.map(|row| view! { <tr>{row.into_iter().map(|f| view! { <td>{f}</td> }.into_any()).collect_view()}</tr> }.into_any()).collect_view()}
                        </tbody>
                    </table>
                    {cut_note(cut, "50 rows")}
                </div>
            }
            .into_any()
        }
        Preview::Image(mime, content) => view! {
            <div class="file-preview" data-testid="file-preview" data-kind="image">
                <img src=format!("data:{mime};base64,{content}") alt="Preview of the image" />
            </div>
        }
        .into_any(),
        Preview::Binary(size) => view! {
            <div class="file-preview" data-testid="file-preview" data-kind="binary">
                <p class="hint">{format!("Not text ({size} bytes): download it to open it.")}</p>
            </div>
        }
        .into_any(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(text: &str) -> String {
        BASE64_STANDARD.encode(text)
    }

    #[test]
    fn csv_quotes_span_commas_and_lines() {
        let rows = csv_rows("name,note\r\n\"Doe, J\",\"said \"\"hi\"\"\nthen left\"\n\nlast,\n");
        assert_eq!(
            rows,
            vec![
                vec!["name".to_owned(), "note".to_owned()],
                vec!["Doe, J".to_owned(), "said \"hi\"\nthen left".to_owned()],
                vec!["last".to_owned(), String::new()],
            ]
        );
    }

    #[test]
    fn each_kind_of_file_gets_its_preview() {
        assert_eq!(
            Preview::of("a.txt", &encoded("hello")),
            Ok(Preview::Text("hello".into(), false))
        );
        assert!(
            matches!(Preview::of("data/t.CSV", &encoded("a,b\n1,2")), Ok(Preview::Table(rows, false)) if rows.len() == 2)
        );
        assert_eq!(
            Preview::of("plot.png", "iVBORw0KGgo="),
            Ok(Preview::Image("image/png", "iVBORw0KGgo=".into()))
        );
        assert_eq!(
            Preview::of("blob.bin", &BASE64_STANDARD.encode([0xff, 0xfe, 0x00])),
            Ok(Preview::Binary(3))
        );
        let long = "x".repeat(TEXT_PREVIEW_CHARS + 1);
        assert!(
            matches!(Preview::of("big.log", &encoded(&long)), Ok(Preview::Text(text, true)) if text.len() == TEXT_PREVIEW_CHARS)
        );
        assert!(Preview::of("a.txt", "not base64!").is_err());
    }
}
