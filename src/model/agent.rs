//! The generate, verify, repair loop's decisions: events in (the person
//! asks or stops, the endpoint answers or fails, a tool call finishes),
//! effects out (send a request, run a tool, wait, save). Pure: the page's
//! driver (`crate::surfaces::ask`) carries the effects out.
//!
//! A step is one answer of the model that calls tools; the loop asks the
//! model again after each step's calls have run, until it answers without a
//! call, the person presses Stop, or the step limit is reached.

use super::conversation::{failed_reply, Answer, AnswerEnd, Conversation, Entry, Note, NoteKind};
use super::failure::{unreachable, Decision, HttpFailure};
use super::settings::ModelSettings;
use super::sse::SseDecoder;
use super::stream::{TurnBuilder, Update};
use crate::js::bulk::Json;
use crate::tools::ToolCall;

/// What the loop is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Nothing: waiting for the person.
    Idle,
    /// A request to the model is on its way.
    Requesting,
    /// The model's answer is streaming in.
    Streaming,
    /// A tool call of the last answer is running.
    Running,
    /// Waiting to send the request again (rate limited).
    Waiting,
}

/// Something that happened.
#[derive(Debug, Clone, PartialEq)]
pub enum Event<'a> {
    /// The person asked this.
    Ask(&'a str),
    /// The person pressed Continue: ask the model again as things stand.
    Continue,
    /// The endpoint answered with a success status; the body streams in.
    Responded,
    /// A piece of the body.
    Chunk(&'a str),
    /// The body ended.
    Ended,
    /// The endpoint answered with an error status.
    Refused(HttpFailure),
    /// The request or the body's stream failed (network, CORS, ...).
    Unreachable(String),
    /// The tool call that was running came to this MCP `CallToolResult`.
    ToolDone(Json),
    /// The wait before trying again is over.
    RetryDue,
    /// The person pressed Stop.
    Stop,
}

/// Something the driver must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Send the model a request for its next answer to the conversation.
    Request,
    /// Abandon the request in flight.
    Abort,
    /// Carry out this tool call (then report [`Event::ToolDone`]).
    Run(ToolCall),
    /// Stop the tool call that is running (it still reports `ToolDone`).
    Cancel,
    /// Report [`Event::RetryDue`] after this many milliseconds.
    Wait(u64),
    /// Forget the wait under way.
    CancelWait,
    /// Keep the conversation (it changed in a way a reload must not lose).
    Save,
}

/// The loop of one conversation.
#[derive(Debug)]
pub struct AskLoop {
    /// The conversation so far.
    pub conversation: Conversation,
    phase: Phase,
    settings: ModelSettings,
    /// Steps since the person last asked or continued.
    steps: u32,
    /// Tries of the request under way that were rate limited.
    attempt: u32,
    decoder: SseDecoder,
    turn: Option<TurnBuilder>,
    /// The call of the last answer that runs (or runs next).
    next_call: usize,
    /// Stop was pressed while a call ran: its result is awaited, then no more.
    stopping: bool,
}

impl AskLoop {
    /// A loop over `conversation`, idle.
    pub fn new(conversation: Conversation) -> Self {
        Self {
            conversation,
            phase: Phase::Idle,
            settings: ModelSettings::default(),
            steps: 0,
            attempt: 0,
            decoder: SseDecoder::default(),
            turn: None,
            next_call: 0,
            stopping: false,
        }
    }

    /// What it is doing.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Steps since the person last asked or continued.
    pub fn steps(&self) -> u32 {
        self.steps
    }

    /// Whether Stop has something to stop.
    pub fn busy(&self) -> bool {
        self.phase != Phase::Idle
    }

    /// Takes the person's question or Continue with `settings` (the step
    /// limit, and which API the answers come in); anything else as it comes.
    pub fn start(&mut self, event: Event, settings: &ModelSettings) -> Vec<Effect> {
        if self.phase == Phase::Idle {
            self.settings = settings.clone();
        }
        self.handle(event)
    }

    /// Takes one event; returns what to do.
    pub fn handle(&mut self, event: Event) -> Vec<Effect> {
        match (self.phase, event) {
            (Phase::Idle, Event::Ask(text)) => {
                self.conversation
                    .entries
                    .push(Entry::Asked(text.to_owned()));
                self.begin()
            }
            (Phase::Idle, Event::Continue) => self.begin(),
            (Phase::Requesting, Event::Responded) => {
                self.phase = Phase::Streaming;
                self.decoder = SseDecoder::default();
                self.turn = Some(TurnBuilder::new(self.settings.provider));
                self.conversation.entries.push(Entry::Answer(Answer {
                    text: String::new(),
                    calls: Vec::new(),
                    end: AnswerEnd::Streaming,
                }));
                Vec::new()
            }
            (Phase::Streaming, Event::Chunk(text)) => self.chunk(text),
            (Phase::Streaming, Event::Ended) => self.ended(),
            (Phase::Requesting, Event::Refused(failure)) => {
                let decision =
                    failure.decide(self.attempt, &self.settings.endpoint, &self.settings.model);
                match decision {
                    Decision::Retry { after_ms, note } => {
                        self.attempt += 1;
                        self.phase = Phase::Waiting;
                        self.note(NoteKind::Waiting, note);
                        vec![Effect::Save, Effect::Wait(after_ms)]
                    }
                    Decision::Stop(note) => self.halt(NoteKind::Failed, note, Vec::new()),
                }
            }
            (Phase::Requesting, Event::Unreachable(reason)) => {
                let note = unreachable(&self.settings.endpoint, &reason);
                self.halt(NoteKind::Failed, note, Vec::new())
            }
            (Phase::Streaming, Event::Unreachable(reason)) => {
                self.cut(AnswerEnd::Cut);
                let note = format!(
                    "The connection broke while the model answered ({reason}). What arrived is kept: press Continue to ask again."
                );
                self.halt(NoteKind::Failed, note, Vec::new())
            }
            (Phase::Running, Event::ToolDone(reply)) => self.tool_done(reply),
            (Phase::Waiting, Event::RetryDue) => {
                self.phase = Phase::Requesting;
                vec![Effect::Request]
            }
            (Phase::Requesting, Event::Stop) => self.stopped(vec![Effect::Abort]),
            (Phase::Streaming, Event::Stop) => {
                self.cut(AnswerEnd::Stopped);
                self.stopped(vec![Effect::Abort])
            }
            (Phase::Waiting, Event::Stop) => self.stopped(vec![Effect::CancelWait]),
            (Phase::Running, Event::Stop) => {
                self.stopping = true;
                vec![Effect::Cancel]
            }
            // Late news of what was stopped, or a second click: nothing to do.
            _ => Vec::new(),
        }
    }

    fn begin(&mut self) -> Vec<Effect> {
        self.conversation.working = true;
        self.steps = 0;
        self.attempt = 0;
        self.stopping = false;
        self.phase = Phase::Requesting;
        vec![Effect::Save, Effect::Request]
    }

    fn chunk(&mut self, text: &str) -> Vec<Effect> {
        let Some(turn) = self.turn.as_mut() else {
            return Vec::new();
        };
        let mut added = String::new();
        let mut failure = None;
        for event in self.decoder.push(text) {
            match turn.event(&event) {
                Ok(Update::Text(text)) => added.push_str(&text),
                Ok(Update::Nothing) => {}
                Err(error) => {
                    failure = Some(error);
                    break;
                }
            }
        }
        if let Some(answer) = self.conversation.last_answer_mut() {
            answer.text.push_str(&added);
        }
        match failure {
            None => Vec::new(),
            Some(error) => {
                self.cut(AnswerEnd::Cut);
                let note = format!(
                    "{}. What arrived is kept: press Continue to ask again.",
                    capitalised(&error.to_string())
                );
                self.halt(NoteKind::Failed, note, vec![Effect::Abort])
            }
        }
    }

    fn ended(&mut self) -> Vec<Effect> {
        let Some(turn) = self.turn.take() else {
            return Vec::new();
        };
        let turn = turn.finish();
        if !turn.complete {
            self.cut(AnswerEnd::Cut);
            return self.halt(
                NoteKind::Failed,
                "The model's answer was cut off midway: the connection closed before it ended. What arrived is kept: press Continue to ask again.".to_owned(),
                Vec::new(),
            );
        }
        let Some(answer) = self.conversation.last_answer_mut() else {
            return Vec::new();
        };
        answer.end = AnswerEnd::Complete;
        answer.calls = turn.calls;
        if answer.calls.is_empty() {
            self.finish();
            return vec![Effect::Save];
        }
        self.steps += 1;
        self.phase = Phase::Running;
        self.next_call = 0;
        saved(self.next_tool())
    }

    /// Starts the next call of the last answer that can run; calls whose
    /// arguments are not JSON, or name no tool, get their error as their
    /// result at once, as any MCP client would.
    fn next_tool(&mut self) -> Vec<Effect> {
        let session = self.conversation.session.clone();
        loop {
            let Some(answer) = self.conversation.last_answer_mut() else {
                return Vec::new();
            };
            let Some(call) = answer.calls.get_mut(self.next_call) else {
                return self.calls_done();
            };
            let prepared = call
                .parsed_arguments()
                .map_err(|reason| {
                    format!(
                        "The arguments of {} are not valid JSON ({reason}). Send the call again with its arguments as one JSON object.",
                        call.name
                    )
                })
                .and_then(|arguments| {
                    ToolCall::parse_in(&call.name, &arguments, &session).map_err(|e| e.to_string())
                });
            match prepared {
                Ok(tool_call) => return vec![Effect::Run(tool_call)],
                Err(message) => {
                    call.reply = Some(failed_reply(&message));
                    self.next_call += 1;
                }
            }
        }
    }

    fn tool_done(&mut self, reply: Json) -> Vec<Effect> {
        let index = self.next_call;
        if let Some(call) = self
            .conversation
            .last_answer_mut()
            .and_then(|answer| answer.calls.get_mut(index))
        {
            call.reply = Some(reply);
        }
        self.next_call += 1;
        if self.stopping {
            if let Some(answer) = self.conversation.last_answer_mut() {
                for call in answer.calls.iter_mut().filter(|c| c.reply.is_none()) {
                    call.reply = Some(failed_reply("Not run: the person pressed Stop."));
                }
            }
            return self.stopped(Vec::new());
        }
        saved(self.next_tool())
    }

    /// Every call of the step has its result: ask the model again, unless
    /// that was the last step allowed.
    fn calls_done(&mut self) -> Vec<Effect> {
        let limit = self.settings.steps();
        if self.steps >= limit {
            let note = format!(
                "Stopped after {limit} step{}: that is the step limit (Settings). The model's last code and its result are above; press Continue to give it {limit} more.",
                if limit == 1 { "" } else { "s" }
            );
            return self.halt(NoteKind::StepLimit, note, Vec::new());
        }
        self.attempt = 0;
        self.phase = Phase::Requesting;
        vec![Effect::Request]
    }

    /// Ends the answer arriving now as `end`: its text stays, its calls
    /// (maybe half arrived) are dropped.
    fn cut(&mut self, end: AnswerEnd) {
        self.turn = None;
        if let Some(answer) = self.conversation.last_answer_mut() {
            answer.end = end;
            answer.calls.clear();
        }
    }

    fn stopped(&mut self, effects: Vec<Effect>) -> Vec<Effect> {
        self.halt(NoteKind::Stopped, "Stopped.".to_owned(), effects)
    }

    /// Stops the loop with a note for the person.
    fn halt(&mut self, kind: NoteKind, text: String, mut effects: Vec<Effect>) -> Vec<Effect> {
        self.note(kind, text);
        self.finish();
        effects.push(Effect::Save);
        effects
    }

    fn finish(&mut self) {
        self.phase = Phase::Idle;
        self.turn = None;
        self.stopping = false;
        self.conversation.working = false;
    }

    fn note(&mut self, kind: NoteKind, text: String) {
        self.conversation
            .entries
            .push(Entry::Note(Note { kind, text }));
    }
}

/// `effects`, saving first, once.
fn saved(mut effects: Vec<Effect>) -> Vec<Effect> {
    effects.retain(|effect| *effect != Effect::Save);
    effects.insert(0, Effect::Save);
    effects
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}
