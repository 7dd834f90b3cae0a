//! Calls that reach the page through a bridge with a time limit of its own:
//! `@mcp-b/webmcp-local-relay` gives each call 25 s, after which it answers
//! its client with an error and drops whatever the page sends later. A run
//! there is kept within that limit (its timeout lowered, which the result
//! says), the page stops it when the bridge has given up, and the tool's
//! description says so, so the model can plan for it.

use crate::tools::ToolCall;

/// What a bridge allows one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallBudget {
    /// What the bridge is called in the notes a model reads.
    pub bridge: &'static str,
    /// How long the bridge waits for a call's result.
    pub call_ms: u32,
}

/// Time a call needs beyond its code's own: finding the result's content,
/// sending it, and a run that waited behind another or for Python to start.
const MARGIN_MS: u32 = 5_000;

/// Time the page keeps for sending a stopped run's result before the bridge gives up.
const SEND_MS: u32 = 1_500;

impl CallBudget {
    /// `@mcp-b/webmcp-local-relay`'s limit (its `invokeTimeoutMs` default).
    pub const LOCAL_RELAY: Self = Self {
        bridge: "the local relay",
        call_ms: 25_000,
    };

    /// The longest the code of one run may take.
    pub fn code_timeout_ms(self) -> u32 {
        self.call_ms.saturating_sub(MARGIN_MS)
    }

    /// When, after the call arrived, the page stops a run that is still going:
    /// just before the bridge gives up, so the stopped run's result still reaches it.
    pub fn stop_after_ms(self) -> u32 {
        self.call_ms.saturating_sub(SEND_MS)
    }

    /// Lowers the call's timeout to [`CallBudget::code_timeout_ms`] where it
    /// asks for more (or for none); returns the note the result then carries.
    pub fn clamp(self, call: &mut ToolCall) -> Option<String> {
        let ToolCall::RunPython(request) = call else {
            return None;
        };
        let most = self.code_timeout_ms();
        let asked = match request.timeout_ms {
            Some(ms) if ms <= most => return None,
            Some(ms) => format!("{} s", seconds(ms)),
            None => "no limit".to_owned(),
        };
        request.timeout_ms = Some(most);
        Some(format!(
            "Note: {} gives each call {} s, so this run's timeout was lowered from {asked} to {} s.",
            self.bridge,
            seconds(self.call_ms),
            seconds(most)
        ))
    }

    /// What a run's result says when the page stopped it because the bridge was about to give up.
    pub fn stopped_note(self) -> String {
        format!(
            "Note: {} gives each call {} s; this run (with loading Python and packages) \
             reached that, so it was stopped. Run smaller steps, or load packages in a call \
             of their own first.",
            self.bridge,
            seconds(self.call_ms)
        )
    }

    /// What run_python's description adds on this path.
    pub fn tool_note(self) -> String {
        format!(
            " Through {} each call has at most {} s in all: code is stopped after {} s \
             (timeout_seconds above that, or 0, is lowered to it), so split long work into \
             several calls; the session keeps their variables.",
            self.bridge,
            seconds(self.call_ms),
            seconds(self.code_timeout_ms())
        )
    }
}

/// `25000` -> `"25"`, `2500` -> `"2.5"`: whole seconds without decimals.
fn seconds(ms: u32) -> String {
    if ms.is_multiple_of(1000) {
        (ms / 1000).to_string()
    } else {
        format!("{:.1}", f64::from(ms) / 1000.0)
    }
}
