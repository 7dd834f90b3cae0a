//! Which files are kept across reloads: what a run's result turns into,
//! the limits and who gets the room, and writes overtaken by later runs.

use sandpit::js::bulk::Text;
use sandpit::protocol::{
    Artifact, FileEntry, InputFile, OutputLimits, Restoration, RunResult, RunStatus, Truncation,
};
use sandpit::store::kept_files::{
    inputs_by_session, Catalogue, Keeping, Plan, RunFiles, Source, Write,
};
use sandpit::store::records::{
    Kept, Refusal, StoredFile, MAX_FILES, MAX_FILE_BYTES, MAX_TOTAL_BYTES,
};

/// A run's result that left `files` in the directory, of which `artifacts` changed.
fn result(files: &[(&str, u64)], artifacts: Vec<Artifact>) -> RunResult {
    RunResult {
        status: RunStatus::Ok,
        stdout: Text::default(),
        stderr: Text::default(),
        output: Vec::new(),
        value: None,
        displays: Vec::new(),
        error: None,
        exit_code: None,
        duration_ms: 1.0,
        truncated: Truncation::default(),
        blocked: Vec::new(),
        artifacts,
        files: files
            .iter()
            .map(|(path, size)| FileEntry {
                path: (*path).into(),
                size: *size,
            })
            .collect(),
        restored: None,
        memory: None,
        verification: None,
        warnings: Vec::new(),
        host_calls: Vec::new(),
    }
}

/// An artifact whose bytes came back (`Some`) or were too large to (`None`).
fn artifact(path: &str, size: u64, content: Option<&str>) -> Artifact {
    Artifact {
        path: path.into(),
        size,
        mime: "application/octet-stream".into(),
        content_base64: content.map(Into::into),
    }
}

fn input(path: &str, content: &str) -> InputFile {
    InputFile {
        path: path.into(),
        content_base64: content.into(),
    }
}

fn plan_run(catalogue: &mut Catalogue, session: &str, result: &RunResult, inputs: &[&str]) -> Plan {
    let inputs: Vec<String> = inputs.iter().map(|p| (*p).to_owned()).collect();
    let run = RunFiles::of(result, &inputs).expect("a result from the worker lists its files");
    catalogue.plan(session, &run)
}

/// Every write of `plan` succeeded.
fn settle_all(catalogue: &mut Catalogue, plan: &Plan) {
    for write in &plan.writes {
        let outcome = match &write.source {
            Source::Refused(refusal) => Err(refusal.clone()),
            _ => Ok(()),
        };
        catalogue.settle(&plan.session, &write.path, write.id, outcome);
    }
}

fn keeping(catalogue: &Catalogue, session: &str) -> Vec<(String, Keeping)> {
    catalogue
        .files(session)
        .into_iter()
        .map(|file| (file.path, file.keeping))
        .collect()
}

fn sources(plan: &Plan) -> Vec<(&str, &Source)> {
    plan.writes
        .iter()
        .map(|w| (w.path.as_str(), &w.source))
        .collect()
}

#[test]
fn written_files_are_saved_from_the_result_or_else_read_from_python() {
    let mut catalogue = Catalogue::default();
    let inputs = ["data.csv"];
    let run = result(
        &[("data.csv", 3), ("big.bin", 5_000_000), ("out.txt", 2)],
        vec![
            artifact("big.bin", 5_000_000, None),
            artifact("out.txt", 2, Some("aGk=")),
        ],
    );
    let plan = plan_run(&mut catalogue, "main", &run, &inputs);
    assert_eq!(
        sources(&plan),
        [
            ("data.csv", &Source::Python),
            ("big.bin", &Source::Python),
            ("out.txt", &Source::Content("aGk=".into())),
        ],
        "in listing order; attached, or too large to come back, means read from Python"
    );
    assert!(plan.deletes.is_empty());
    assert!(keeping(&catalogue, "main")
        .iter()
        .all(|(_, k)| *k == Keeping::Saving));
    settle_all(&mut catalogue, &plan);
    assert!(keeping(&catalogue, "main")
        .iter()
        .all(|(_, k)| *k == Keeping::Kept));
}

#[test]
fn an_input_the_run_changed_is_kept_as_the_run_left_it() {
    let mut catalogue = Catalogue::default();
    let run = result(&[("a.txt", 1)], vec![artifact("a.txt", 1, Some("Yg=="))]);
    let plan = plan_run(&mut catalogue, "main", &run, &["a.txt"]);
    assert_eq!(sources(&plan), [("a.txt", &Source::Content("Yg==".into()))]);
}

#[test]
fn an_attached_file_replaces_a_kept_one_even_of_the_same_size() {
    let mut catalogue = Catalogue::default();
    let first = result(&[("a.txt", 1)], vec![artifact("a.txt", 1, Some("YQ=="))]);
    let kept = plan_run(&mut catalogue, "main", &first, &[]);
    settle_all(&mut catalogue, &kept);
    // Attached again with other bytes: written before the run, so no artifact.
    let again = result(&[("a.txt", 1)], Vec::new());
    let plan = plan_run(&mut catalogue, "main", &again, &["a.txt"]);
    assert_eq!(sources(&plan), [("a.txt", &Source::Python)]);
}

#[test]
fn files_left_alone_are_not_written_again_and_removed_ones_are_deleted() {
    let mut catalogue = Catalogue::default();
    let first = result(
        &[("a.txt", 1), ("b.txt", 1)],
        vec![
            artifact("a.txt", 1, Some("YQ==")),
            artifact("b.txt", 1, Some("Yg==")),
        ],
    );
    let written = plan_run(&mut catalogue, "main", &first, &[]);
    settle_all(&mut catalogue, &written);

    let second = result(&[("a.txt", 1)], Vec::new());
    let plan = plan_run(&mut catalogue, "main", &second, &[]);
    assert!(plan.writes.is_empty(), "a.txt is unchanged");
    assert_eq!(plan.deletes, ["b.txt"]);
    assert_eq!(
        keeping(&catalogue, "main"),
        [("a.txt".into(), Keeping::Kept)]
    );
}

#[test]
fn a_file_not_stored_yet_is_read_from_python() {
    // Written into this session's directory by a run of another session.
    let mut catalogue = Catalogue::default();
    let run = result(&[("from-elsewhere.txt", 4)], Vec::new());
    let plan = plan_run(&mut catalogue, "main", &run, &[]);
    assert_eq!(sources(&plan), [("from-elsewhere.txt", &Source::Python)]);
}

#[test]
fn a_file_over_the_size_limit_is_refused_and_said_so_once() {
    let mut catalogue = Catalogue::default();
    let huge = MAX_FILE_BYTES + 1;
    let run = result(
        &[("huge.bin", huge)],
        vec![artifact("huge.bin", huge, None)],
    );
    let first = plan_run(&mut catalogue, "main", &run, &[]);
    assert_eq!(
        first.writes,
        [Write {
            path: "huge.bin".into(),
            size: huge,
            id: first.writes[0].id,
            source: Source::Refused(Refusal::TooLarge),
        }],
        "the refusal is stored, so the user is told after a reload too"
    );
    assert_eq!(
        keeping(&catalogue, "main"),
        [("huge.bin".into(), Keeping::NotKept(Refusal::TooLarge))]
    );
    let again = plan_run(
        &mut catalogue,
        "main",
        &result(&[("huge.bin", huge)], Vec::new()),
        &[],
    );
    assert!(again.writes.is_empty(), "nothing changed");
    assert!(Refusal::TooLarge.to_string().contains("16.0 MB"));
}

#[test]
fn kept_files_keep_their_room_and_new_ones_get_what_is_left() {
    let mut catalogue = Catalogue::default();
    let half = MAX_TOTAL_BYTES / 2;
    let other = result(&[("z.bin", half)], vec![artifact("z.bin", half, None)]);
    let kept = plan_run(&mut catalogue, "other", &other, &[]);
    settle_all(&mut catalogue, &kept);
    let mine = result(&[("m.bin", half)], vec![artifact("m.bin", half, None)]);
    let kept = plan_run(&mut catalogue, "main", &mine, &[]);
    settle_all(&mut catalogue, &kept);

    // A new file sorting first must not push out m.bin, which was kept.
    let run = result(
        &[("a.bin", 10), ("m.bin", half)],
        vec![artifact("a.bin", 10, Some("AAAA"))],
    );
    let plan = plan_run(&mut catalogue, "main", &run, &[]);
    assert_eq!(
        sources(&plan),
        [("a.bin", &Source::Refused(Refusal::NoRoom))]
    );
    assert_eq!(
        keeping(&catalogue, "main"),
        [
            ("a.bin".into(), Keeping::NotKept(Refusal::NoRoom)),
            ("m.bin".into(), Keeping::Kept)
        ]
    );

    // Once the other session is gone, the refused file gets the room, from Python.
    catalogue.forget("other");
    let run = result(&[("a.bin", 10), ("m.bin", half)], Vec::new());
    let plan = plan_run(&mut catalogue, "main", &run, &[]);
    assert_eq!(sources(&plan), [("a.bin", &Source::Python)]);
}

#[test]
fn no_more_than_the_file_count_limit_is_kept() {
    let mut catalogue = Catalogue::default();
    let names: Vec<String> = (0..=MAX_FILES).map(|n| format!("f{n:04}")).collect();
    let listing: Vec<(&str, u64)> = names.iter().map(|n| (n.as_str(), 1)).collect();
    let run = result(&listing, Vec::new());
    let plan = plan_run(&mut catalogue, "main", &run, &[]);
    let refused: Vec<_> = plan
        .writes
        .iter()
        .filter(|w| matches!(w.source, Source::Refused(_)))
        .map(|w| (w.path.as_str(), &w.source))
        .collect();
    assert_eq!(
        refused,
        [(
            names[MAX_FILES].as_str(),
            &Source::Refused(Refusal::TooMany)
        )]
    );
}

#[test]
fn a_write_overtaken_by_a_later_run_does_not_settle_the_file() {
    let mut catalogue = Catalogue::default();
    let run = |content| result(&[("a.txt", 1)], vec![artifact("a.txt", 1, Some(content))]);
    let first = plan_run(&mut catalogue, "main", &run("YQ=="), &[]);
    let second = plan_run(&mut catalogue, "main", &run("Yg=="), &[]);
    settle_all(&mut catalogue, &first);
    assert_eq!(
        keeping(&catalogue, "main"),
        [("a.txt".into(), Keeping::Saving)],
        "the second write is still under way"
    );
    catalogue.settle(
        "main",
        "a.txt",
        second.writes[0].id,
        Err(Refusal::Failed {
            message: "quota exceeded".into(),
        }),
    );
    assert_eq!(
        keeping(&catalogue, "main"),
        [(
            "a.txt".into(),
            Keeping::NotKept(Refusal::Failed {
                message: "quota exceeded".into()
            })
        )]
    );
}

#[test]
fn a_result_without_a_listing_changes_nothing() {
    let mut stopped = result(&[], Vec::new());
    stopped.restored = Some(Restoration::default());
    assert!(
        RunFiles::of(&stopped, &[]).is_none(),
        "a run stopped by replacing the worker says nothing about the files"
    );
}

#[test]
fn saved_files_come_back_kept_or_lost_and_kept_ones_go_back_to_python() {
    let stored = |session: &str, path: &str, kept| StoredFile {
        session: session.into(),
        path: path.into(),
        size: 3,
        kept,
    };
    let files = vec![
        stored("main", "a.csv", Kept::Content("YWJj".into())),
        stored("main", "huge.bin", Kept::Refused(Refusal::TooLarge)),
        stored("other", "b.txt", Kept::Content("eHl6".into())),
    ];
    let catalogue = Catalogue::from_saved(&files);
    assert_eq!(
        keeping(&catalogue, "main"),
        [
            ("a.csv".into(), Keeping::Kept),
            ("huge.bin".into(), Keeping::Lost(Refusal::TooLarge))
        ]
    );
    let inputs = inputs_by_session(files);
    assert_eq!(inputs.get("main"), Some(&vec![input("a.csv", "YWJj")]));
    assert_eq!(inputs.get("other"), Some(&vec![input("b.txt", "eHl6")]));
}

#[test]
fn every_kept_file_fits_in_the_run_that_puts_a_session_back() {
    assert!(MAX_TOTAL_BYTES <= u64::from(OutputLimits::default().input_bytes));
}
