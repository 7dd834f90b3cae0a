//! What to do when the model's endpoint fails: wait and try again (rate
//! limited), or stop and tell the person what to fix, in a sentence.

use super::stream::error_message;
use crate::format::quoted;
use crate::js::bulk::Json;

/// How often a rate-limited request is tried again before giving up.
pub const MAX_RETRIES: u32 = 3;
/// The wait when a 429 says nothing of how long (milliseconds).
const DEFAULT_WAIT_MS: u64 = 10_000;
/// The longest wait honoured; a longer Retry-After stops instead.
const MAX_WAIT_MS: u64 = 120_000;
/// Characters of an error body shown when it is not the usual JSON.
const BODY_CHARS: usize = 300;

/// An answer with an HTTP error status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpFailure {
    /// The status.
    pub status: u16,
    /// Its `Retry-After` header, if any.
    pub retry_after: Option<String>,
    /// The body (the API's error, usually JSON).
    pub body: String,
}

/// What the loop does about a failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Wait this long, then send the same request again; the note says so.
    Retry {
        /// Milliseconds to wait.
        after_ms: u64,
        /// What the person is told.
        note: String,
    },
    /// Stop; the note says why and what to do.
    Stop(String),
}

impl HttpFailure {
    /// The decision for this failure, which is try number `attempt` (0 for
    /// the first) of a request to `endpoint` for `model`.
    pub fn decide(&self, attempt: u32, endpoint: &str, model: &str) -> Decision {
        let detail = self.detail();
        let status = self.status;
        let said = if detail.is_empty() {
            String::new()
        } else {
            format!(" The endpoint said: {detail}")
        };
        let note = match status {
            401 | 403 => format!(
                "The endpoint refused the API key (HTTP {status}): check the key in Settings.{said}"
            ),
            404 => format!(
                "The endpoint knows no model {} (HTTP 404): check the model's name in Settings, and the endpoint ({endpoint}).{said}",
                quoted(model)
            ),
            429 => {
                let wait = self.wait_ms();
                return match wait {
                    Some(ms) if attempt < MAX_RETRIES => Decision::Retry {
                        after_ms: ms,
                        note: format!(
                            "Rate limited by the endpoint (HTTP 429): waiting {} s as it asks, then trying again (retry {} of {MAX_RETRIES}).",
                            ms.div_ceil(1000),
                            attempt + 1
                        ),
                    },
                    Some(_) => Decision::Stop(format!(
                        "Still rate limited after {MAX_RETRIES} retries (HTTP 429). Wait a while, then press Continue.{said}"
                    )),
                    None => Decision::Stop(format!(
                        "Rate limited by the endpoint (HTTP 429) for longer than {} s. Try again later with Continue.{said}",
                        MAX_WAIT_MS / 1000
                    )),
                };
            }
            400 | 422 => format!("The endpoint refused the request (HTTP {status}).{said}"),
            500..=599 => format!(
                "The model's server failed (HTTP {status}). Press Continue to try again.{said}"
            ),
            _ => format!("The endpoint answered HTTP {status}.{said}"),
        };
        Decision::Stop(note)
    }

    /// How long a 429 asks to wait: `Retry-After` in whole seconds (as
    /// HTTP writes it; a date, or nothing, gets a default); `None` when that
    /// is longer than is worth waiting.
    fn wait_ms(&self) -> Option<u64> {
        let asked = self
            .retry_after
            .as_deref()
            .and_then(|value| value.trim().parse::<u64>().ok())
            .map_or(DEFAULT_WAIT_MS, |seconds| seconds.saturating_mul(1000));
        (asked <= MAX_WAIT_MS).then_some(asked)
    }

    /// The API's own message: `error.message` of a JSON body, else the
    /// beginning of the body.
    fn detail(&self) -> String {
        if let Ok(json) = Json::parse(&self.body) {
            if let Some(error) = json.get("error").filter(|e| !e.is_null()) {
                return error_message(&error);
            }
            if let Some(message) = json.get("message").and_then(|m| m.as_string()) {
                return message;
            }
        }
        let body = self.body.trim();
        match body.char_indices().nth(BODY_CHARS) {
            Some((cut, _)) => format!("{}…", &body[..cut]),
            None => body.to_owned(),
        }
    }
}

/// The note for an endpoint that could not be reached at all.
pub fn unreachable(endpoint: &str, reason: &str) -> String {
    format!(
        "Could not reach the model at {endpoint} ({reason}). Is the server running, and does it accept requests from this page (CORS)?"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(status: u16, retry_after: Option<&str>, body: &str) -> HttpFailure {
        HttpFailure {
            status,
            retry_after: retry_after.map(str::to_owned),
            body: body.to_owned(),
        }
    }

    fn stop(decision: Decision) -> String {
        match decision {
            Decision::Stop(note) => note,
            Decision::Retry { .. } => panic!("expected a stop"),
        }
    }

    #[test]
    fn a_refused_key_says_to_check_it() {
        let body = r#"{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}"#;
        let note = stop(failure(401, None, body).decide(0, "https://a.org/v1", "m"));
        assert!(
            note.starts_with(
                "The endpoint refused the API key (HTTP 401): check the key in Settings."
            ),
            "{note}"
        );
        assert!(
            note.ends_with("The endpoint said: Incorrect API key provided"),
            "{note}"
        );
    }

    #[test]
    fn a_missing_model_is_named() {
        let note = stop(
            failure(404, None, r#"{"error": "model 'qwen' not found"}"#).decide(
                0,
                "http://127.0.0.1:11434/v1",
                "qwen",
            ),
        );
        assert!(note.contains("no model \"qwen\" (HTTP 404)"), "{note}");
        assert!(note.contains("model 'qwen' not found"), "{note}");
    }

    #[test]
    fn rate_limits_wait_as_asked_then_give_up() {
        let limited = failure(429, Some("2"), "");
        assert_eq!(
            limited.decide(0, "e", "m"),
            Decision::Retry {
                after_ms: 2000,
                note: "Rate limited by the endpoint (HTTP 429): waiting 2 s as it asks, then trying again (retry 1 of 3).".into()
            }
        );
        assert!(matches!(
            failure(429, None, "").decide(1, "e", "m"),
            Decision::Retry {
                after_ms: 10_000,
                ..
            }
        ));
        assert!(matches!(
            failure(429, Some("0"), "").decide(2, "e", "m"),
            Decision::Retry { after_ms: 0, .. }
        ));
        let date = failure(429, Some("Wed, 21 Oct 2026 07:28:00 GMT"), "");
        assert!(matches!(
            date.decide(0, "e", "m"),
            Decision::Retry {
                after_ms: 10_000,
                ..
            }
        ));
        assert!(stop(limited.decide(3, "e", "m")).starts_with("Still rate limited after 3 retries"));
        assert!(
            stop(failure(429, Some("3600"), "").decide(0, "e", "m")).contains("longer than 120 s")
        );
    }

    #[test]
    fn other_failures_show_the_start_of_the_body() {
        let long = "x".repeat(400);
        let note = stop(failure(502, None, &long).decide(0, "e", "m"));
        assert!(
            note.starts_with("The model's server failed (HTTP 502). Press Continue"),
            "{note}"
        );
        assert!(note.ends_with(&format!("{}…", "x".repeat(300))), "{note}");
        assert_eq!(
            stop(failure(418, None, "").decide(0, "e", "m")),
            "The endpoint answered HTTP 418."
        );
    }
}
