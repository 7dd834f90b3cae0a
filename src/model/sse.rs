//! Server-sent events, as the HTML standard frames them: text in, events out,
//! whatever the chunks' boundaries. Both model APIs stream their answers so.

/// One event: its `event:` name (empty when it had none) and its `data:`
/// lines joined with newlines.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The event's type.
    pub event: String,
    /// Its data.
    pub data: String,
}

/// Cuts a stream of text into events as it arrives.
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// The end of the text so far that is not yet a whole line.
    line: String,
    /// The event being read.
    event: String,
    data: Vec<String>,
    /// A `\r` ended the last chunk: a `\n` starting the next one belongs to it.
    after_cr: bool,
}

impl SseDecoder {
    /// The events that `chunk` completes, in order.
    pub fn push(&mut self, chunk: &str) -> Vec<SseEvent> {
        let mut events = Vec::new();
        let mut rest = chunk;
        if self.after_cr {
            rest = rest.strip_prefix('\n').unwrap_or(rest);
            self.after_cr = false;
        }
        while let Some(end) = rest.find(['\r', '\n']) {
            self.line.push_str(&rest[..end]);
            let line = std::mem::take(&mut self.line);
            let ending = &rest[end..];
            rest = match ending.strip_prefix("\r\n") {
                Some(after) => after,
                None => {
                    // A `\r` that ends the chunk may be half of a `\r\n`.
                    self.after_cr = ending == "\r";
                    &ending[1..]
                }
            };
            if let Some(event) = self.line_done(&line) {
                events.push(event);
            }
        }
        self.line.push_str(rest);
        events
    }

    /// Whether text has arrived that no event has used yet: a stream that
    /// ends here was cut in the middle of an event.
    pub fn pending(&self) -> bool {
        !self.line.is_empty() || !self.data.is_empty()
    }

    fn line_done(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            let event = std::mem::take(&mut self.event);
            if self.data.is_empty() {
                return None;
            }
            let data = std::mem::take(&mut self.data).join("\n");
            return Some(SseEvent { event, data });
        }
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "event" => self.event = value.to_owned(),
            "data" => self.data.push(value.to_owned()),
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(chunks: &[&str]) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::default();
        chunks.iter().flat_map(|c| decoder.push(c)).collect()
    }

    fn event(event: &str, data: &str) -> SseEvent {
        SseEvent {
            event: event.into(),
            data: data.into(),
        }
    }

    #[test]
    fn events_come_out_whole_wherever_the_chunks_break() {
        let text = "event: message_start\ndata: {\"a\":1}\n\n: ping\n\ndata: one\ndata: two\n\ndata:[DONE]\n\n";
        let expected = vec![
            event("message_start", "{\"a\":1}"),
            event("", "one\ntwo"),
            event("", "[DONE]"),
        ];
        assert_eq!(all(&[text]), expected);
        for cut in 0..text.len() {
            assert_eq!(all(&[&text[..cut], &text[cut..]]), expected, "cut at {cut}");
        }
        let singles: Vec<String> = text.chars().map(String::from).collect();
        let singles: Vec<&str> = singles.iter().map(String::as_str).collect();
        assert_eq!(all(&singles), expected);
    }

    #[test]
    fn crlf_and_cr_end_lines_too() {
        assert_eq!(
            all(&["data: a\r\n\r\ndata: b\r\rdata: c\n\n"]),
            [event("", "a"), event("", "b"), event("", "c")]
        );
        assert_eq!(all(&["data: a\r", "\n\r", "\n"]), [event("", "a")]);
    }

    #[test]
    fn a_stream_cut_midway_leaves_text_pending() {
        let mut decoder = SseDecoder::default();
        assert_eq!(decoder.push("data: {\"par"), []);
        assert!(decoder.pending());
        let mut whole = SseDecoder::default();
        whole.push("data: x\n\n");
        assert!(!whole.pending());
    }
}
