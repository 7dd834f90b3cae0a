//! A session's ledger: every run that succeeded in it (and files put back
//! after a reload), in order, to be replayed into its next worker.

use crate::protocol::{InputFile, OutputLimits, RunRequest};

/// Runs that failed are not replayed: their partial effects are lost anyway.
/// Output of replays is not wanted, so it is kept tiny.
const REPLAY_LIMITS: OutputLimits = OutputLimits {
    output_bytes: 0,
    value_bytes: 0,
    display_bytes: 0,
    input_bytes: u32::MAX,
    artifact_bytes: 0,
};

/// A run that succeeded (or files put back), kept so it can be replayed.
#[derive(Debug, Clone, PartialEq)]
pub struct LedgerEntry {
    seq: u64,
    /// Only puts files back (kept across a reload): not counted as a replayed run.
    files_only: bool,
    code: String,
    packages: Vec<String>,
    files: Vec<InputFile>,
    /// Its tests ran in its namespace too, and may have changed it.
    tests: Option<String>,
}

impl LedgerEntry {
    /// Whether replaying it replays a run (not only files put back).
    pub(super) fn is_run(&self) -> bool {
        !self.files_only
    }

    /// Its first line of code, to recognise it by when it is lost.
    pub(super) fn code_start(&self) -> String {
        if self.files_only {
            "(files kept across a reload)".to_owned()
        } else {
            self.code.lines().next().unwrap_or_default().to_owned()
        }
    }

    /// The run that replays it in `session`.
    pub(super) fn request(&self, session: &str) -> RunRequest {
        let mut request = RunRequest::new(self.code.clone())
            .in_session(session)
            .with_files(self.files.clone())
            .with_packages(self.packages.clone())
            .with_tests(self.tests.clone());
        request.limits = REPLAY_LIMITS;
        request
    }
}

/// The entries, oldest first, each numbered.
#[derive(Debug, Default)]
pub(super) struct Ledger {
    entries: Vec<LedgerEntry>,
    last_seq: u64,
    /// Runs that ended in an error, a timeout or a cancel since the session
    /// was last cleared: never replayed, so what they changed before they
    /// stopped does not come back.
    skipped: u32,
}

impl Ledger {
    /// Keeps `request`, a run that succeeded.
    pub(super) fn record_run(&mut self, request: RunRequest) {
        let seq = self.new_seq();
        self.entries.push(LedgerEntry {
            seq,
            files_only: false,
            code: request.code,
            packages: request.packages,
            files: request.files,
            tests: request.tests,
        });
    }

    /// A run ended without success: it is not kept.
    pub(super) fn skip_failed(&mut self) {
        self.skipped = self.skipped.saturating_add(1);
    }

    /// How many runs ended without success since the session was last cleared.
    pub(super) fn skipped(&self) -> u32 {
        self.skipped
    }

    /// Keeps `files`, put back after a reload; returns the entry that replays them.
    pub(super) fn record_files(&mut self, files: Vec<InputFile>) -> LedgerEntry {
        let entry = LedgerEntry {
            seq: self.new_seq(),
            files_only: true,
            code: String::new(),
            packages: Vec::new(),
            files,
            tests: None,
        };
        self.entries.push(entry.clone());
        entry
    }

    /// Every entry, oldest first.
    pub(super) fn entries(&self) -> &[LedgerEntry] {
        &self.entries
    }

    /// Whether it keeps nothing.
    pub(super) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Drops every entry (the session was cleared).
    pub(super) fn clear(&mut self) {
        self.entries.clear();
        self.skipped = 0;
    }

    /// Drops `entry`, which could not be replayed, so later restores skip it.
    pub(super) fn forget(&mut self, entry: &LedgerEntry) {
        self.entries.retain(|kept| kept.seq != entry.seq);
    }

    fn new_seq(&mut self) -> u64 {
        self.last_seq += 1;
        self.last_seq
    }
}
