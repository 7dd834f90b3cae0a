//! Rich outputs: images inline, math with KaTeX, HTML only inside a
//! sandboxed iframe sized to its content, the rest as text.

use std::cell::RefCell;

use gloo_events::EventListener;
use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

use crate::js::bulk::Text;
use crate::names::{
    HTML_FRAME_HEIGHT_KEY as FRAME_HEIGHT_KEY, HTML_FRAME_MAX_HEIGHT, HTML_OUTPUT_CSP,
    HTML_OUTPUT_SIZER,
};
use crate::protocol::MimeBundle;

#[wasm_bindgen(module = "/www/math.js")]
extern "C" {
    #[wasm_bindgen(js_name = renderMath)]
    async fn render_math(element: &web_sys::HtmlElement, latex: &JsValue) -> JsValue;
}

/// The tallest an HTML output's frame grows (CSS pixels); beyond, it scrolls.
const MAX_FRAME_HEIGHT: f64 = HTML_FRAME_MAX_HEIGHT as f64;

/// The frame's height for a document `reported` pixels tall: its content,
/// at least a line, at most [`MAX_FRAME_HEIGHT`]; none for a nonsense report.
fn frame_height(reported: f64) -> Option<f64> {
    reported
        .is_finite()
        .then(|| reported.ceil().clamp(24.0, MAX_FRAME_HEIGHT))
}

thread_local! {
    /// The page's one listener for output frames' heights, kept for the page's life.
    static FRAME_HEIGHTS: RefCell<Option<EventListener>> = const { RefCell::new(None) };
}

/// Listens, once per page, for HTML outputs' heights. A message counts only
/// from one of the page's own output frames (its `source` is the frame's
/// window), and only its number is read.
fn watch_frame_heights() {
    if FRAME_HEIGHTS.with(|slot| slot.borrow().is_some()) {
        return;
    }
    let listener = EventListener::new(&window(), "message", |event| {
        let Some(event) = event.dyn_ref::<web_sys::MessageEvent>() else {
            return;
        };
        let reported = js_sys::Reflect::get(&event.data(), &FRAME_HEIGHT_KEY.into())
            .ok()
            .and_then(|height| height.as_f64());
        let (Some(height), Some(source)) = (reported.and_then(frame_height), event.source()) else {
            return;
        };
        let Ok(frames) = document().query_selector_all("iframe.display-html") else {
            return;
        };
        for index in 0..frames.length() {
            let Some(frame) = frames
                .item(index)
                .and_then(|node| node.dyn_into::<web_sys::HtmlIFrameElement>().ok())
            else {
                continue;
            };
            let from_frame = frame
                .content_window()
                .is_some_and(|window| js_sys::Object::is(&window, &source));
            if from_frame {
                let _ = web_sys::HtmlElement::style(&frame)
                    .set_property("height", &format!("{height}px"));
                return;
            }
        }
    });
    FRAME_HEIGHTS.with(|slot| *slot.borrow_mut() = Some(listener));
}

/// The frame document's `color-scheme` for the page's `theme`: without it
/// a dark page shows an opaque white frame.
fn frame_color_scheme(theme: &str) -> &'static str {
    if theme == "dark" {
        "<meta name=\"color-scheme\" content=\"dark\">"
    } else {
        "<meta name=\"color-scheme\" content=\"light\">"
    }
}

/// One display output, in its richest safe form.
#[component]
pub fn RichOutput(bundle: MimeBundle) -> impl IntoView {
    // Built as JS strings and set as properties: a figure or a page of HTML
    // never passes through wasm memory on its way to the DOM.
    if let Some(html) = bundle.html {
        watch_frame_heights();
        // Built again when the theme changes: the frame reloads in the new one.
        let theme = super::theme::shown();
        let document = move || {
            Text::from(HTML_OUTPUT_CSP)
                .concat(&Text::from(frame_color_scheme(theme.get())))
                .concat(&Text::from(HTML_OUTPUT_SIZER))
                .concat(&html)
                .to_js()
        };
        // No allow-same-origin: the frame gets an opaque origin and cannot
        // reach the page, its storage or its worker; no top navigation either.
        return view! {
            <iframe
                class="display display-html"
                data-testid="display"
                data-mime="text/html"
                sandbox="allow-scripts"
                prop:srcdoc=document
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
            <img class="display display-image" data-testid="display" data-mime="image/svg+xml" prop:src=src.to_js() alt="SVG output" />
        }
        .into_any();
    }
    if let Some(png) = bundle.png {
        let src = Text::from("data:image/png;base64,").concat(&png);
        return view! {
            <img class="display display-image" data-testid="display" data-mime="image/png" prop:src=src.to_js() alt="PNG output" />
        }
        .into_any();
    }
    if let Some(latex) = bundle.latex {
        return view! { <MathOutput latex plain=bundle.text /> }.into_any();
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

/// Math: the plain text at once, replaced by KaTeX's rendering once it is
/// loaded; where KaTeX refuses the input the plain text stays, saying why.
#[component]
fn MathOutput(latex: Text, plain: Text) -> impl IntoView {
    let element = NodeRef::<html::Div>::new();
    let state = RwSignal::new("rendering");
    let refused = RwSignal::new(None::<String>);
    Effect::new(move |_| {
        let Some(target) = element.get() else { return };
        let latex = latex.to_js();
        spawn_local(async move {
            let reason = render_math(&target, &latex).await.as_string();
            state.set(if reason.is_some() {
                "plain"
            } else {
                "rendered"
            });
            refused.set(reason.map(|why| format!("Shown as text: {why}")));
        });
    });
    view! {
        <div
            class="display display-math"
            data-testid="display"
            data-mime="text/latex"
            data-state=move || state.get().to_owned()
            title=move || refused.get()
            node_ref=element
        >
            <pre class="display-text" prop:textContent=plain.to_js()></pre>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_is_as_tall_as_its_content_within_bounds() {
        assert_eq!(frame_height(120.2), Some(121.0));
        assert_eq!(frame_height(3.0), Some(24.0));
        assert_eq!(frame_height(5000.0), Some(MAX_FRAME_HEIGHT));
        assert_eq!(frame_height(f64::NAN), None);
        assert!(HTML_OUTPUT_SIZER.contains(FRAME_HEIGHT_KEY));
    }
}
