//! What a run's checks found and what Sandpit proposes: the fix of its
//! error, tried before it is offered; its tests, each passed or failed and
//! why (formulas with KaTeX); the warnings of its lint. Each fix shows its
//! diff and, on the page, **Apply fix**, which puts the fixed code in the
//! editor of the run's session. Drawn by www/sandpit-findings.js, as the
//! embedding client draws them.

use leptos::html;
use leptos::prelude::*;
use serde::Serialize;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue};

use crate::app::EditorCode;
use crate::js::bulk;
use crate::protocol::{Fix, LintWarning, Verification};

#[wasm_bindgen(module = "/www/sandpit-findings.js")]
extern "C" {
    #[wasm_bindgen(js_name = renderFindings)]
    fn render_findings(
        element: &web_sys::HtmlElement,
        findings: &JsValue,
        apply: Option<js_sys::Function>,
    );
}

/// What the drawing reads.
#[derive(Serialize)]
struct Found<'a> {
    fix: Option<&'a Fix>,
    verification: Option<&'a Verification>,
    warnings: &'a [LintWarning],
}

/// A run's fix (under its error), tests and warnings; where the page has
/// an editor, each fix's Apply fix puts its code in `session`'s.
#[component]
pub(super) fn Findings(
    fix: Option<Box<Fix>>,
    verification: Option<Verification>,
    warnings: Vec<LintWarning>,
    session: String,
) -> impl IntoView {
    let element = NodeRef::<html::Div>::new();
    // Kept while the view lives: the buttons call it.
    let apply = StoredValue::new_local(use_context::<EditorCode>().map(|editor| {
        Closure::<dyn Fn(String)>::new(move |code| editor.open(session.clone(), Some(code)))
    }));
    Effect::new(move |_| {
        let Some(target) = element.get() else { return };
        let found = bulk::to_js(&Found {
            fix: fix.as_deref(),
            verification: verification.as_ref(),
            warnings: &warnings,
        });
        let apply = apply.with_value(|apply| {
            apply
                .as_ref()
                .map(|apply| apply.as_ref().unchecked_ref::<js_sys::Function>().clone())
        });
        render_findings(&target, &found, apply);
    });
    view! { <div class="findings" data-testid="findings" node_ref=element></div> }
}
