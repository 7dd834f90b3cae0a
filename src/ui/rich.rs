//! Rich outputs: images inline, HTML only inside a sandboxed iframe, the rest as text.

use leptos::prelude::*;

use crate::js::bulk::Text;
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
    // Built as JS strings and set as properties: a figure or a page of HTML
    // never passes through wasm memory on its way to the DOM.
    if let Some(html) = bundle.html {
        let document = Text::from(HTML_OUTPUT_CSP).concat(&html);
        // No allow-same-origin: the frame gets an opaque origin and cannot
        // reach the page, its storage or its worker; no top navigation either.
        return view! {
            <iframe
                class="display display-html"
                data-testid="display"
                data-mime="text/html"
                sandbox="allow-scripts"
                prop:srcdoc=document.to_js()
                title="HTML output"
            ></iframe>
        }
        .into_any();
    }
    if let Some(svg) = bundle.svg {
        // As an <img>, SVG cannot run scripts.
        let encoded = Text::from(svg.with_str(js_sys::encode_uri_component));
        let src = Text::from("data:image/svg+xml;charset=utf-8,").concat(&encoded);
        return view! {
            <img class="display" data-testid="display" data-mime="image/svg+xml" prop:src=src.to_js() alt="SVG output" />
        }
        .into_any();
    }
    if let Some(png) = bundle.png {
        let src = Text::from("data:image/png;base64,").concat(&png);
        return view! {
            <img class="display" data-testid="display" data-mime="image/png" prop:src=src.to_js() alt="PNG output" />
        }
        .into_any();
    }
    let (mime, text) = if let Some(markdown) = bundle.markdown {
        ("text/markdown", markdown)
    } else if let Some(json) = bundle.json {
        ("application/json", json.pretty())
    } else {
        ("text/plain", bundle.text)
    };
    view! { <pre class="display display-text" data-testid="display" data-mime=mime prop:textContent=text.to_js()></pre> }
        .into_any()
}
