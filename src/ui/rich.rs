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
    DISPLAY_PREFERENCE, HTML_FRAME_HEIGHT_KEY as FRAME_HEIGHT_KEY, HTML_FRAME_MAX_HEIGHT,
    HTML_FRAME_MIN_HEIGHT, HTML_OUTPUT_CSP, HTML_OUTPUT_SIZER, MIME_HTML, MIME_JSON, MIME_LATEX,
    MIME_MARKDOWN, MIME_PNG, MIME_SVG, MIME_TEXT,
};
use crate::protocol::MimeBundle;

#[wasm_bindgen(module = "/www/sandpit-math.js")]
extern "C" {
    #[wasm_bindgen(js_name = renderMath)]
    async fn render_math(element: &web_sys::HtmlElement, latex: &JsValue) -> JsValue;
}

/// The tallest an HTML output's frame grows (CSS pixels); beyond, it scrolls.
const MAX_FRAME_HEIGHT: f64 = HTML_FRAME_MAX_HEIGHT as f64;

/// The frame's height for a document `reported` pixels tall: its content,
/// at least a line, at most [`MAX_FRAME_HEIGHT`]; none for a nonsense report.
fn frame_height(reported: f64) -> Option<f64> {
    reported.is_finite().then(|| {
        reported
            .ceil()
            .clamp(f64::from(HTML_FRAME_MIN_HEIGHT), MAX_FRAME_HEIGHT)
    })
}

/// The part of `bundle` that is shown: the first of [`DISPLAY_PREFERENCE`] it has.
fn shown_part(bundle: &MimeBundle) -> &'static str {
    let has = |mime: &str| match mime {
        MIME_HTML => bundle.html.is_some(),
        MIME_SVG => bundle.svg.is_some(),
        MIME_PNG => bundle.png.is_some(),
        MIME_LATEX => bundle.latex.is_some(),
        MIME_MARKDOWN => bundle.markdown.is_some(),
        MIME_JSON => bundle.json.is_some(),
        _ => mime == MIME_TEXT,
    };
    DISPLAY_PREFERENCE
        .into_iter()
        .find(|mime| has(mime))
        .unwrap_or(MIME_TEXT)
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

/// One display output, in its richest safe form (see [`shown_part`]).
#[component]
pub fn RichOutput(bundle: MimeBundle) -> impl IntoView {
    // Built as JS strings and set as properties: a figure or a page of HTML
    // never passes through wasm memory on its way to the DOM.
    let shown = shown_part(&bundle);
    let MimeBundle {
        text,
        html,
        markdown,
        latex,
        png,
        svg,
        json,
        ..
    } = bundle;
    match shown {
        MIME_HTML => html.map(html_frame),
        MIME_SVG => svg.map(|svg| {
            // As an <img>, SVG cannot run scripts.
            let encoded = Text::from(svg.with_str(js_sys::encode_uri_component));
            let src = Text::from("data:image/svg+xml;charset=utf-8,").concat(&encoded);
            view! {
                <img class="display display-image" data-testid="display" data-mime=MIME_SVG prop:src=src.to_js() alt="SVG output" />
            }
            .into_any()
        }),
        MIME_PNG => png.map(|png| {
            let src = Text::from("data:image/png;base64,").concat(&png);
            view! {
                <img class="display display-image" data-testid="display" data-mime=MIME_PNG prop:src=src.to_js() alt="PNG output" />
            }
            .into_any()
        }),
        MIME_LATEX => latex.map(|latex| view! { <MathOutput latex plain=text.clone() /> }.into_any()),
        MIME_MARKDOWN => markdown.map(|markdown| text_output(MIME_MARKDOWN, markdown)),
        MIME_JSON => json.map(|json| text_output(MIME_JSON, json.pretty())),
        _ => None,
    }
    .unwrap_or_else(|| text_output(MIME_TEXT, text))
}

/// HTML, only inside a sandboxed frame sized to its content.
fn html_frame(html: Text) -> AnyView {
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
    view! {
        <iframe
            class="display display-html"
            data-testid="display"
            data-mime=MIME_HTML
            sandbox="allow-scripts"
            prop:srcdoc=document
            title="HTML output"
        ></iframe>
    }
    .into_any()
}

/// A text form of a display output, as text.
fn text_output(mime: &'static str, text: Text) -> AnyView {
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

    #[test]
    fn the_richest_part_is_shown_in_the_shared_order() {
        let text = |value: &str| Some(Text::from(value));
        let mut bundle = MimeBundle {
            text: Text::from("<Figure>"),
            png: text("iVBORw0KGgo="),
            svg: text("<svg/>"),
            ..MimeBundle::default()
        };
        assert_eq!(shown_part(&bundle), MIME_SVG);
        bundle.svg = None;
        assert_eq!(shown_part(&bundle), MIME_PNG);
        bundle.html = text("<b>x</b>");
        assert_eq!(shown_part(&bundle), MIME_HTML);
        let plain = MimeBundle {
            text: Text::from("x"),
            markdown: text("*x*"),
            latex: text("x^2"),
            ..MimeBundle::default()
        };
        assert_eq!(shown_part(&plain), MIME_LATEX);
        assert_eq!(shown_part(&MimeBundle::default()), MIME_TEXT);
    }
}
