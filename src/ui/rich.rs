//! Rich outputs: images inline, HTML only inside a sandboxed iframe, the rest as text.

use leptos::prelude::*;

use crate::protocol::MimeBundle;

/// Put in front of every HTML output: the frame may run its own inline
/// scripts and styles (tables, interactive charts) but load nothing from
/// anywhere, so HTML cannot carry data out in an image or a request.
const HTML_OUTPUT_CSP: &str =
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; img-src data: blob:; \
font-src data:; media-src data: blob:\">";

/// One display output, in its richest safe form.
#[component]
pub fn RichOutput(bundle: MimeBundle) -> impl IntoView {
    if let Some(html) = bundle.html {
        let document = format!("{HTML_OUTPUT_CSP}{html}");
        // No allow-same-origin: the frame gets an opaque origin and cannot
        // reach the page, its storage or its worker; no top navigation either.
        return view! {
            <iframe
                class="display display-html"
                data-testid="display"
                data-mime="text/html"
                sandbox="allow-scripts"
                srcdoc=document
                title="HTML output"
            ></iframe>
        }
        .into_any();
    }
    if let Some(svg) = bundle.svg {
        // As an <img>, SVG cannot run scripts.
        let src = format!(
            "data:image/svg+xml;charset=utf-8,{}",
            js_sys::encode_uri_component(&svg)
        );
        return view! {
            <img class="display" data-testid="display" data-mime="image/svg+xml" src=src alt="SVG output" />
        }
        .into_any();
    }
    if let Some(png) = bundle.png {
        let src = format!("data:image/png;base64,{png}");
        return view! {
            <img class="display" data-testid="display" data-mime="image/png" src=src alt="PNG output" />
        }
        .into_any();
    }
    let (mime, text) = if let Some(markdown) = bundle.markdown {
        ("text/markdown", markdown)
    } else if let Some(json) = bundle.json {
        (
            "application/json",
            serde_json::to_string_pretty(&json).unwrap_or_default(),
        )
    } else {
        ("text/plain", bundle.text)
    };
    view! { <pre class="display display-text" data-testid="display" data-mime=mime>{text}</pre> }
        .into_any()
}
