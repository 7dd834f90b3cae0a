//! The Ask panel's way in: a model the person picked calls Sandpit's tools.
//! This carries out the loop's effects ([`crate::model::agent`]): requests
//! to the model's API from the page's main thread (`model_stream`), tool
//! calls through the same [`ToolHost`] as every other surface, the wait of
//! a rate limit, and saving each session's conversation.
//!
//! The API key is read in `model_stream`, put in a request's headers for
//! the endpoint it was entered for, and goes nowhere else: the Python worker
//! is never sent it, and its CSP would let it reach no endpoint anyway.

use gloo_timers::callback::Timeout;
use leptos::logging::warn;
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::tool_host::ToolHost;
use crate::js::bulk::Json;
use crate::mcp::content::call_result;
use crate::model::agent::{AskLoop, Effect, Event};
use crate::model::conversation::Conversation;
use crate::model::settings::{KeyBinding, ModelSettings};
use crate::protocol::RunId;
use crate::store::{self, conversations};

mod model_stream;

/// Marks on the page's performance timeline, for the benchmark: the loop's
/// own time between a model's tool calls arriving and its next request
/// leaving, less the time the calls themselves ran.
mod marks {
    /// A model's answer with tool calls has arrived whole.
    pub const CALLS: &str = "sandpit-ask:calls";
    /// A tool call starts running.
    pub const TOOL_START: &str = "sandpit-ask:tool-start";
    /// A tool call has its result.
    pub const TOOL_END: &str = "sandpit-ask:tool-end";
    /// A request to the model leaves.
    pub const REQUEST: &str = "sandpit-ask:request";
}

fn mark(name: &str) {
    if let Some(performance) = window().performance() {
        let _ = performance.mark(name);
    }
}

/// What one session's loop has under way outside itself.
#[derive(Default)]
struct Inflight {
    /// Counts requests: the events of an abandoned one are dropped.
    serial: u32,
    abort: Option<web_sys::AbortController>,
    run: Option<RunId>,
    wait: Option<Timeout>,
}

/// `(session, value)` pairs: a page has a handful of sessions, and a list
/// is much less code in the wasm than a map.
type PerSession<T> = Vec<(String, T)>;

/// The value of `session` in `all`, made with `new` when it has none.
fn slot<'a, T>(all: &'a mut PerSession<T>, session: &str, new: impl FnOnce() -> T) -> &'a mut T {
    let at = match all.iter().position(|(name, _)| name == session) {
        Some(at) => at,
        None => {
            all.push((session.to_owned(), new()));
            all.len() - 1
        }
    };
    &mut all[at].1
}

/// `session`'s value in `all`, read.
fn find<'a, T>(all: &'a PerSession<T>, session: &str) -> Option<&'a T> {
    all.iter()
        .find(|(name, _)| name == session)
        .map(|(_, value)| value)
}

/// Every session's conversation and loop, and what they have under way.
#[derive(Clone, Copy)]
pub struct Ask {
    loops: RwSignal<PerSession<AskLoop>, LocalStorage>,
    inflight: StoredValue<PerSession<Inflight>, LocalStorage>,
    host: ToolHost,
    /// The model settings in force.
    pub settings: RwSignal<ModelSettings>,
    /// The saved key and the endpoint it belongs to.
    pub key: RwSignal<Option<KeyBinding>>,
    loaded: RwSignal<bool>,
    /// Why the conversations could not be kept, when they could not.
    pub save_error: RwSignal<Option<String>>,
    /// Saves under way.
    pub saving: RwSignal<u32>,
}

impl Ask {
    /// Starts with the saved settings and key, and loads the kept
    /// conversations (work a reload cut short is marked as such).
    pub fn start(host: ToolHost, settings: ModelSettings, key: Option<KeyBinding>) -> Self {
        let this = Self {
            loops: RwSignal::new_local(Vec::new()),
            inflight: StoredValue::new_local(Vec::new()),
            host,
            settings: RwSignal::new(settings),
            key: RwSignal::new(key),
            loaded: RwSignal::new(false),
            save_error: RwSignal::new(None),
            saving: RwSignal::new(0),
        };
        spawn_local(async move {
            match conversations::load().await {
                Ok(mut kept) => {
                    let mut reloaded = Vec::new();
                    this.loops.update(|loops| {
                        // A question asked before they were back started afresh: it stays.
                        kept.retain(|c| find(loops, &c.session).is_none());
                        for mut conversation in kept {
                            if conversation.working {
                                conversation.after_reload();
                                reloaded.push(conversation.session.clone());
                            }
                            loops.push((conversation.session.clone(), AskLoop::new(conversation)));
                        }
                    });
                    for session in reloaded {
                        this.save(&session);
                    }
                }
                Err(error) => this.save_error.set(Some(error.to_string())),
            }
            this.loaded.set(true);
        });
        this
    }

    /// Whether the kept conversations are back.
    pub fn loaded(self) -> bool {
        self.loaded.get()
    }

    /// Reads `session`'s loop; `None` while it has none (nothing was asked there).
    pub fn with<R>(self, session: &str, read: impl FnOnce(&AskLoop) -> R) -> Option<R> {
        self.loops.with(|loops| find(loops, session).map(read))
    }

    fn with_untracked<R>(self, session: &str, read: impl FnOnce(&AskLoop) -> R) -> Option<R> {
        self.loops
            .with_untracked(|loops| find(loops, session).map(read))
    }

    /// The person asks `text` in `session`.
    pub fn ask(self, session: &str, text: &str) {
        if let Some(performance) = window().performance() {
            // The benchmark reads one question's marks; a long visit keeps few.
            for name in [
                marks::CALLS,
                marks::TOOL_START,
                marks::TOOL_END,
                marks::REQUEST,
            ] {
                performance.clear_marks_with_mark_name(name);
            }
        }
        self.begin(session, Event::Ask(text));
    }

    /// The person presses Continue in `session`.
    pub fn resume(self, session: &str) {
        self.begin(session, Event::Continue);
    }

    /// The person presses Stop in `session`.
    pub fn stop(self, session: &str) {
        self.dispatch(session, Event::Stop);
    }

    /// Forgets `session`'s conversation (not while its model is at work).
    pub fn clear(self, session: &str) {
        if self.with_untracked(session, AskLoop::busy).unwrap_or(false) {
            return;
        }
        self.loops.update(|loops| {
            *slot(loops, session, || AskLoop::new(Conversation::new(session))) =
                AskLoop::new(Conversation::new(session));
        });
        self.save(session);
    }

    fn begin(self, session: &str, event: Event) {
        let settings = self.settings.get_untracked();
        let effects = self.loops.try_update(|loops| {
            slot(loops, session, || AskLoop::new(Conversation::new(session)))
                .start(event, &settings)
        });
        self.apply(session, effects.unwrap_or_default());
    }

    fn dispatch(self, session: &str, event: Event) {
        if event == Event::Ended {
            mark(marks::CALLS);
        }
        let effects = self.loops.try_update(|loops| {
            loops
                .iter_mut()
                .find(|(name, _)| name == session)
                .map(|(_, ask)| ask.handle(event))
                .unwrap_or_default()
        });
        self.apply(session, effects.unwrap_or_default());
    }

    fn apply(self, session: &str, effects: Vec<Effect>) {
        for effect in effects {
            match effect {
                Effect::Request => self.request(session),
                Effect::Abort => self.with_inflight(session, |inflight| {
                    inflight.serial += 1;
                    if let Some(abort) = inflight.abort.take() {
                        abort.abort();
                    }
                }),
                Effect::Run(call) => {
                    mark(marks::TOOL_START);
                    let (run, outcome) = self.host.start(call, |_| {});
                    self.with_inflight(session, |inflight| inflight.run = run);
                    let session = session.to_owned();
                    spawn_local(async move {
                        let reply = Json::of(&call_result(&outcome.await));
                        mark(marks::TOOL_END);
                        self.with_inflight(&session, |inflight| inflight.run = None);
                        self.dispatch(&session, Event::ToolDone(reply));
                    });
                }
                Effect::Cancel => {
                    let run = self.with_inflight(session, |inflight| inflight.run);
                    if let Some(run) = run {
                        self.host.cancel(run);
                    }
                }
                Effect::Wait(ms) => {
                    let owned = session.to_owned();
                    let timer = Timeout::new(ms.min(u64::from(u32::MAX)) as u32, move || {
                        self.with_inflight(&owned, |inflight| inflight.wait = None);
                        self.dispatch(&owned, Event::RetryDue);
                    });
                    self.with_inflight(session, |inflight| inflight.wait = Some(timer));
                }
                Effect::CancelWait => self.with_inflight(session, |inflight| inflight.wait = None),
                Effect::Save => self.save(session),
            }
        }
    }

    fn with_inflight<R: Default>(
        self,
        session: &str,
        change: impl FnOnce(&mut Inflight) -> R,
    ) -> R {
        self.inflight
            .try_update_value(|all| change(slot(all, session, Inflight::default)))
            .unwrap_or_default()
    }

    /// Forgets `session`'s conversation for good (the session was deleted),
    /// stopping its model first.
    pub fn forget(self, session: &str) {
        self.stop(session);
        self.loops
            .update(|loops| loops.retain(|(name, _)| name != session));
        self.keep(Conversation::new(session));
    }

    fn save(self, session: &str) {
        if let Some(conversation) = self.with_untracked(session, |ask| ask.conversation.clone()) {
            self.keep(conversation);
        }
    }

    fn keep(self, conversation: Conversation) {
        self.saving.update(|n| *n += 1);
        spawn_local(async move {
            let saved = conversations::save(&conversation).await;
            if let Err(error) = &saved {
                warn!("sandpit: could not keep the conversation: {error}");
            }
            self.save_error.set(saved.err().map(|e| e.to_string()));
            self.saving.update(|n| *n -= 1);
        });
    }

    /// Saves new settings (and keeps them in force).
    pub fn set_settings(self, settings: ModelSettings) -> Result<(), String> {
        let saved = store::model_settings::save(&settings);
        self.settings.set(settings);
        saved
    }

    /// Keeps `key` for `endpoint`, or forgets the key (`None`).
    pub fn set_key(self, binding: Option<KeyBinding>) -> Result<(), String> {
        let saved = store::model_settings::save_key(binding.as_ref());
        self.key.set(binding);
        saved
    }
}
