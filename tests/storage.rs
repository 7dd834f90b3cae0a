//! The saved workspace's rules: what each session shows, what survives a
//! deleted session, and what a damaged or foreign record turns into.

use sandpit::protocol::DEFAULT_SESSION;
use sandpit::store::records::{
    Kept, Refusal, Saved, StoredFile, StoredOutcome, StoredRun, Workspace,
};

fn names(workspace: &Workspace) -> Vec<&str> {
    workspace.sessions.iter().map(String::as_str).collect()
}

#[test]
fn each_session_keeps_its_own_code() {
    let mut workspace = Workspace::new("main", "print('main')");
    assert_eq!(
        workspace.switch_to("second"),
        "print('main')",
        "a new session starts with the text shown"
    );
    workspace.set_code("print('second')");
    assert_eq!(workspace.switch_to("main"), "print('main')");
    assert_eq!(workspace.switch_to("second"), "print('second')");
    assert_eq!(names(&workspace), ["main", "second"]);
}

#[test]
fn each_session_keeps_its_own_cursor() {
    let mut workspace = Workspace::new("main", "print('main')");
    assert_eq!(
        workspace.cursor(),
        0,
        "a session without one starts at the top"
    );
    workspace.set_cursor("main", 7);
    workspace.switch_to("second");
    assert_eq!(
        workspace.cursor(),
        7,
        "a new session carries the text and its cursor"
    );
    workspace.set_cursor("second", 3);
    workspace.switch_to("main");
    assert_eq!(workspace.cursor(), 7);
    workspace.switch_to("second");
    assert_eq!(workspace.cursor(), 3);
}

#[test]
fn typing_reported_for_a_session_left_lands_in_that_session_only() {
    let mut workspace = Workspace::new("main", "a");
    workspace.switch_to("second");
    workspace.set_draft("main", "a, typed just before leaving");
    workspace.set_cursor("main", 4);
    assert_eq!(workspace.code(), "a", "the current session is untouched");
    assert_eq!(workspace.switch_to("main"), "a, typed just before leaving");
    assert_eq!(workspace.cursor(), 4);
    workspace.set_draft("deleted meanwhile", "x");
    workspace.set_cursor("deleted meanwhile", 1);
    assert_eq!(
        names(&workspace),
        ["main", "second"],
        "no session comes back from a late report"
    );
    assert!(!workspace.drafts.contains_key("deleted meanwhile"));
}

#[test]
fn deleting_a_session_drops_its_code_and_picks_another() {
    let mut workspace = Workspace::new("main", "a");
    workspace.switch_to("second");
    workspace.set_code("b");
    workspace.set_sessions(vec!["main".into()]);
    assert_eq!(workspace.current, "main");
    assert_eq!(workspace.code(), "a");
    assert!(!workspace.drafts.contains_key("second"));
    assert!(!workspace.cursors.0.contains_key("second"));
    workspace.set_sessions(Vec::new());
    assert_eq!(
        names(&workspace),
        [DEFAULT_SESSION],
        "at least one session stays"
    );
}

#[test]
fn gathering_skips_unreadable_records_and_repairs_the_workspace() {
    let damaged = Workspace {
        sessions: vec!["a".into()],
        current: "gone".into(),
        drafts: Default::default(),
        cursors: Default::default(),
    };
    let run = StoredRun {
        session: "a".into(),
        code: "1".into(),
        outcome: StoredOutcome::Failed("no Python".into()),
    };
    let file = StoredFile {
        session: "a".into(),
        path: "data.csv".into(),
        size: 3,
        kept: Kept::Content("YWJj".into()),
    };
    let saved = Saved::gather(
        Some(Some(damaged)),
        [None, Some(run.clone()), None],
        [Some(file.clone()), None],
    );
    assert_eq!(saved.unreadable, 3);
    assert_eq!(saved.runs, [run]);
    assert_eq!(saved.files, [file]);
    let workspace = saved.workspace.expect("the workspace is kept");
    assert_eq!(
        workspace.current, "a",
        "the current session is one that exists"
    );

    let nothing = Saved::gather(None, [], []);
    assert_eq!(nothing, Saved::default());
    assert_eq!(Saved::gather(Some(None), [], []).unreadable, 1);
}

#[test]
fn a_saved_run_keeps_its_result_through_a_round_trip() {
    let run = StoredRun {
        session: "main".into(),
        code: "x".into(),
        outcome: StoredOutcome::Failed("the Python worker stopped".into()),
    };
    let json = serde_json::to_value(&run).expect("serialises");
    assert_eq!(json["outcome"]["failed"], "the Python worker stopped");
    assert_eq!(
        serde_json::from_value::<StoredRun>(json).expect("reads back"),
        run
    );
}

#[test]
fn a_stored_file_record_is_its_bytes_or_why_not() {
    let kept = StoredFile {
        session: "main".into(),
        path: "out/data.csv".into(),
        size: 3,
        kept: Kept::Content("YWJj".into()),
    };
    let json = serde_json::to_value(&kept).expect("serialises");
    assert_eq!(json["kept"]["content"], "YWJj");
    let refused = StoredFile {
        kept: Kept::Refused(Refusal::Failed {
            message: "quota".into(),
        }),
        ..kept.clone()
    };
    let json = serde_json::to_value(&refused).expect("serialises");
    assert_eq!(
        json["kept"]["refused"],
        serde_json::json!({"kind": "failed", "message": "quota"})
    );
    for file in [kept, refused] {
        let json = serde_json::to_value(&file).expect("serialises");
        assert_eq!(
            serde_json::from_value::<StoredFile>(json).expect("reads back"),
            file
        );
    }
}
