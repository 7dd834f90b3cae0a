//! The Ask panel's requests to the model: its API called from the page's
//! main thread (`www/model-stream.js`, where `fetch` streams the answer),
//! each chunk handed to the loop as it arrives.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::prelude::*;

use super::{mark, marks, Ask};
use crate::js::bulk::to_js;
use crate::model::agent::Event;
use crate::model::failure::HttpFailure;
use crate::model::request::build;
use crate::tools::Tool;

#[wasm_bindgen(module = "/www/model-stream.js")]
extern "C" {
    /// A request's answer: its status, and its body as it streams.
    type Opened;

    #[wasm_bindgen(catch, js_name = open)]
    async fn js_open(
        url: &str,
        headers: JsValue,
        body: &JsValue,
        signal: &web_sys::AbortSignal,
    ) -> Result<Opened, JsValue>;

    #[wasm_bindgen(method, getter)]
    fn status(this: &Opened) -> u16;

    #[wasm_bindgen(method, getter, js_name = retryAfter)]
    fn retry_after(this: &Opened) -> Option<String>;

    #[wasm_bindgen(method, getter, js_name = errorBody)]
    fn error_body(this: &Opened) -> String;

    #[wasm_bindgen(method, catch)]
    async fn next(this: &Opened) -> Result<JsValue, JsValue>;
}

impl Ask {
    /// Sends the model the conversation of `session` and streams its answer
    /// back into the loop.
    pub(super) fn request(self, session: &str) {
        let settings = self.settings.get_untracked();
        let key = self.key.with_untracked(|key| {
            key.as_ref()
                .and_then(|k| k.key_for(&settings.endpoint))
                .map(str::to_owned)
        });
        let Some(request) = self.with_untracked(session, |ask| {
            build(
                &settings,
                key.as_deref(),
                &ask.conversation,
                &Tool::descriptors(),
            )
        }) else {
            return;
        };
        let Ok(abort) = web_sys::AbortController::new() else {
            self.dispatch(
                session,
                Event::Unreachable("the browser cannot abort requests".to_owned()),
            );
            return;
        };
        let signal = abort.signal();
        let serial = self.with_inflight(session, |inflight| {
            inflight.serial += 1;
            inflight.abort = Some(abort);
            inflight.serial
        });
        let current = move |session: &str| self.with_inflight(session, |i| i.serial) == serial;
        let headers = to_js(&request.headers);
        let session = session.to_owned();
        spawn_local(async move {
            mark(marks::REQUEST);
            let opened = js_open(&request.url, headers, &to_js(&request.body), &signal).await;
            if !current(&session) {
                return;
            }
            let opened = match opened {
                Ok(opened) => opened,
                Err(error) => {
                    return self.dispatch(
                        &session,
                        Event::Unreachable(crate::js::error::message(&error)),
                    );
                }
            };
            let status = opened.status();
            if !(200..300).contains(&status) {
                let failure = HttpFailure {
                    status,
                    retry_after: opened.retry_after(),
                    body: opened.error_body(),
                };
                return self.dispatch(&session, Event::Refused(failure));
            }
            self.dispatch(&session, Event::Responded);
            loop {
                let next = opened.next().await;
                if !current(&session) {
                    return;
                }
                match next {
                    Ok(piece) => match piece.as_string() {
                        Some(text) => self.dispatch(&session, Event::Chunk(&text)),
                        None => return self.dispatch(&session, Event::Ended),
                    },
                    Err(error) => {
                        return self.dispatch(
                            &session,
                            Event::Unreachable(crate::js::error::message(&error)),
                        );
                    }
                }
            }
        });
    }
}
