//! A conversation with a model: what the person asked, what the model
//! answered and which tools it called, what each call came to (the MCP
//! `CallToolResult` every other client gets), and notes for the person
//! alone. Plain data, kept with its session across reloads.

use serde::{Deserialize, Serialize};

use crate::js::bulk::{Json, Text};
use crate::js::reader::FromSource;
use crate::mcp::content::call_result;
use crate::mcp::ToolOutcome;
use crate::protocol::RunResult;
use crate::tools::Tool;

/// One tool call the model made, and what it came to.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, FromSource)]
pub struct ToolUse {
    /// The provider's id for the call, which its result must name.
    pub id: String,
    /// The tool's name, as the model gave it (maybe no tool's).
    pub name: String,
    /// The arguments as the model sent them: JSON text, maybe not valid.
    pub arguments: String,
    /// The MCP `CallToolResult` it came to; `None` until it has run.
    pub reply: Option<Json>,
}

impl ToolUse {
    /// The arguments as JSON, or why they are not.
    pub fn parsed_arguments(&self) -> Result<Json, String> {
        let text = self.arguments.trim();
        // A call without arguments may come with none at all.
        let text = if text.is_empty() { "{}" } else { text };
        let value = Json::parse(text)?;
        if value.is_object() {
            Ok(value)
        } else {
            Err("they must be one JSON object".to_owned())
        }
    }

    /// The code a `run_python` or `check_python` call sent, when it is one.
    pub fn code(&self) -> Option<String> {
        let runs = [Tool::RunPython.name(), Tool::CheckPython.name()].contains(&self.name.as_str());
        runs.then(|| self.parsed_arguments().ok()?.get("code")?.as_string())
            .flatten()
    }

    /// The tests a `run_python` call sent with its code.
    pub fn tests(&self) -> Option<String> {
        (self.name == Tool::RunPython.name())
            .then(|| self.parsed_arguments().ok()?.get("tests")?.as_string())
            .flatten()
    }

    /// The run's result, for a `run_python` call that ran.
    pub fn run_result(&self) -> Option<RunResult> {
        (self.name == Tool::RunPython.name())
            .then(|| {
                self.reply
                    .as_ref()?
                    .get("structuredContent")?
                    .read_record()
                    .ok()
            })
            .flatten()
    }

    /// Whether the call's result is an error (MCP's `isError`).
    pub fn failed(&self) -> bool {
        self.reply
            .as_ref()
            .and_then(|reply| reply.get("isError")?.as_bool())
            .unwrap_or(false)
    }

    /// The text a model reads first of the result.
    pub fn reply_text(&self) -> Option<Text> {
        let reply = self.reply.as_ref()?;
        reply.get("content")?.items().into_iter().find_map(|block| {
            (block.get("type")?.as_string()? == "text")
                .then(|| block.get("text")?.as_text())
                .flatten()
        })
    }
}

/// A failed call's result: `message`, as MCP clients get a tool error.
pub fn failed_reply(message: &str) -> Json {
    Json::of(&call_result(&ToolOutcome::Failed(message.to_owned())))
}

/// How an answer of the model ended.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, FromSource)]
#[serde(rename_all = "snake_case")]
pub enum AnswerEnd {
    /// Still arriving.
    Streaming,
    /// Whole.
    Complete,
    /// The stream broke off midway: the text is what arrived, and its tool
    /// calls were dropped.
    Cut,
    /// The person pressed Stop while it arrived.
    Stopped,
}

/// One answer of the model: its text and the tools it called.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, FromSource)]
pub struct Answer {
    /// What it wrote.
    pub text: String,
    /// The tools it called, in order.
    pub calls: Vec<ToolUse>,
    /// How it ended.
    pub end: AnswerEnd,
}

impl Answer {
    /// Whether this is a final answer: whole, and calling no tool.
    pub fn is_final(&self) -> bool {
        self.end == AnswerEnd::Complete && self.calls.is_empty()
    }
}

/// What kind of note the person gets.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, FromSource)]
#[serde(rename_all = "snake_case")]
pub enum NoteKind {
    /// The person pressed Stop.
    Stopped,
    /// The step limit was reached.
    StepLimit,
    /// The endpoint failed or refused; the loop stopped.
    Failed,
    /// Waiting before trying again (rate limited).
    Waiting,
    /// The page was reloaded while the model worked.
    Reloaded,
}

/// Something the person is told and the model is not.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, FromSource)]
pub struct Note {
    /// Its kind.
    pub kind: NoteKind,
    /// The sentence.
    pub text: String,
}

/// One entry of a conversation.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, FromSource)]
#[serde(rename_all = "snake_case")]
pub enum Entry {
    /// What the person asked.
    Asked(String),
    /// An answer of the model.
    Answer(Answer),
    /// A note for the person.
    Note(Note),
}

/// A conversation, as kept with its session.
#[derive(Serialize, Debug, Clone, PartialEq, Default, FromSource)]
// In the browser read field by field (crate::js::reader), natively by serde's derive.
#[cfg_attr(not(target_arch = "wasm32"), derive(Deserialize))]
pub struct Conversation {
    /// The session its code runs in.
    pub session: String,
    /// Its entries, oldest first.
    pub entries: Vec<Entry>,
    /// Whether the model was at work when this was saved.
    pub working: bool,
}

/// Whether the final answer's code is shown to work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The last run went fine and its tests (this many) all passed.
    Verified(usize),
    /// The last run's tests failed, or did not run.
    TestsFailed,
    /// The last run failed (an error, a timeout, ...).
    RunFailed,
    /// The last run had no tests.
    NoTests,
    /// No code ran for this question.
    NoRun,
}

impl Verdict {
    /// Whether the answer is verified.
    pub fn verified(&self) -> bool {
        matches!(self, Self::Verified(_))
    }

    /// The mark's words.
    pub fn text(&self) -> String {
        match self {
            Self::Verified(1) => "Verified: the last run's test passed.".to_owned(),
            Self::Verified(n) => format!("Verified: the last run's {n} tests passed."),
            Self::TestsFailed => "Not verified: the last run's tests failed.".to_owned(),
            Self::RunFailed => "Not verified: the last run failed.".to_owned(),
            Self::NoTests => "Not verified: the last run had no tests.".to_owned(),
            Self::NoRun => "Not verified: no code was run.".to_owned(),
        }
    }
}

impl Conversation {
    /// An empty conversation in `session`.
    pub fn new(session: &str) -> Self {
        Self {
            session: session.to_owned(),
            ..Self::default()
        }
    }

    /// The answer at `index`, if that entry is one.
    pub fn answer(&self, index: usize) -> Option<&Answer> {
        match self.entries.get(index)? {
            Entry::Answer(answer) => Some(answer),
            _ => None,
        }
    }

    /// The answer being written or run, the last entry, if it is one.
    pub fn last_answer_mut(&mut self) -> Option<&mut Answer> {
        match self.entries.last_mut()? {
            Entry::Answer(answer) => Some(answer),
            _ => None,
        }
    }

    /// Whether the final answer at `index` is verified, judged by the last
    /// `run_python` call since the question it answers.
    pub fn verdict(&self, index: usize) -> Verdict {
        let asked = self.entries[..index]
            .iter()
            .rposition(|e| matches!(e, Entry::Asked(_)))
            .map_or(0, |at| at + 1);
        let last_run = self.entries[asked..index]
            .iter()
            .filter_map(|entry| match entry {
                Entry::Answer(answer) => Some(answer.calls.iter()),
                _ => None,
            })
            .flatten()
            .rfind(|call| call.name == Tool::RunPython.name() && call.reply.is_some());
        let Some(call) = last_run else {
            return Verdict::NoRun;
        };
        let Some(result) = call.run_result() else {
            return Verdict::RunFailed;
        };
        match (&result.verification, result.succeeded()) {
            (Some(verification), true) => Verdict::Verified(verification.tests.len()),
            (Some(_), false) if result.status == crate::protocol::RunStatus::Ok => {
                Verdict::TestsFailed
            }
            (None, true) => Verdict::NoTests,
            _ => Verdict::RunFailed,
        }
    }

    /// The code of the `run_python` call before the one at `call` of answer
    /// `index`: what a repair changed.
    pub fn previous_code(&self, index: usize, call: usize) -> Option<String> {
        let earlier_calls = self.entries[..index]
            .iter()
            .filter_map(|entry| match entry {
                Entry::Answer(answer) => Some(answer.calls.as_slice()),
                _ => None,
            })
            .flatten();
        let same_answer = self.answer(index)?.calls[..call].iter();
        earlier_calls
            .chain(same_answer)
            .filter(|c| c.name == Tool::RunPython.name())
            .filter_map(ToolUse::code)
            .next_back()
    }

    /// The code and tests of the last `run_python` call, for a `.py` export.
    pub fn final_code(&self) -> Option<(String, Option<String>)> {
        self.entries
            .iter()
            .filter_map(|entry| match entry {
                Entry::Answer(answer) => Some(answer.calls.iter()),
                _ => None,
            })
            .flatten()
            .filter(|c| c.name == Tool::RunPython.name())
            .filter_map(|c| Some((c.code()?, c.tests())))
            .next_back()
    }

    /// After a reload: work that was under way cannot go on by itself. An
    /// answer still arriving is cut, calls that had not run get a result
    /// that says so (every call needs one before the model is asked again),
    /// and a note tells the person to continue.
    pub fn after_reload(&mut self) {
        if !self.working {
            return;
        }
        self.working = false;
        if let Some(answer) = self.last_answer_mut() {
            if answer.end == AnswerEnd::Streaming {
                answer.end = AnswerEnd::Cut;
                answer.calls.clear();
            }
            for call in answer.calls.iter_mut().filter(|c| c.reply.is_none()) {
                call.reply = Some(failed_reply(
                    "Not run: the page was reloaded before this call ran. Call it again if it is still needed.",
                ));
            }
        }
        self.entries.push(Entry::Note(Note {
            kind: NoteKind::Reloaded,
            text: "The page was reloaded while the model was working. The conversation so far is kept: press Continue to go on.".to_owned(),
        }));
    }
}

// Read field by field in the browser (see crate::js::reader).
crate::js::reader::deserialize_by_hand!(Conversation);
