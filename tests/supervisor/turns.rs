//! Resident by memory, running by cores: how many sessions keep a worker,
//! how many run at once, who runs next, which session is parked, and how
//! long a call may wait.

use std::collections::VecDeque;

use super::*;

const SIX: [&str; 6] = ["s0", "s1", "s2", "s3", "s4", "s5"];

#[test]
fn six_sessions_stay_resident_and_two_run_at_once_taking_turns() {
    let (mut page, _) = Page::ready_with(limits(8, 2));
    let workers = page.open(&SIX);
    let session_of = |worker: WorkerId| workers.iter().position(|w| *w == worker);
    // Three calls each, fired at once, round robin over the sessions.
    let mut running = VecDeque::new();
    for _ in 0..3 {
        for name in SIX {
            let (_, effects) = page.run_in(name, "count += 1");
            assert!(terminated(&effects).is_empty() && spawns(&effects).is_empty());
            running.extend(runs_posted(&effects).into_iter().map(|(w, id, _)| (w, id)));
        }
    }
    assert_eq!(running.len(), 2, "as many run as there are cores");
    assert_eq!(page.state("s0").phase, SessionPhase::Running);
    let queued = page.state("s2");
    assert_eq!(
        (queued.phase, queued.queued, queued.resident),
        (SessionPhase::Queued, 3, true)
    );
    assert!(
        queued
            .why
            .starts_with("Waiting for a core: 2 calls run at once"),
        "{}",
        queued.why
    );
    // Each finished call lets the next session in line start: turns go round.
    let mut order: Vec<usize> = running.iter().filter_map(|(w, _)| session_of(*w)).collect();
    while let Some((worker, id)) = running.pop_front() {
        let effects = page.on(done(worker, id, RunStatus::Ok));
        assert!(
            terminated(&effects).is_empty(),
            "none is parked while memory allows"
        );
        for (worker, id, _) in runs_posted(&effects) {
            order.extend(session_of(worker));
            running.push_back((worker, id));
        }
        assert!(running.len() <= 2, "never more running than cores");
    }
    let expected: Vec<usize> = (0..18).map(|k| k % 6).collect();
    assert_eq!(order, expected);
    assert!(SIX
        .iter()
        .all(|name| page.state(name).phase == SessionPhase::Idle));
}

#[test]
fn a_sessions_next_call_waits_for_one_call_of_each_other_session_at_most() {
    let (mut page, _) = Page::ready_with(limits(4, 1));
    let [a, b, c] = page.open(&["a", "b", "c"])[..] else {
        panic!("three workers");
    };
    let mut posted = Vec::new();
    for k in 0..4 {
        posted.extend(runs_posted(&page.run_in("a", &format!("a{k}")).1));
    }
    posted.extend(runs_posted(&page.run_in("b", "b0").1));
    posted.extend(runs_posted(&page.run_in("c", "c0").1));
    posted.extend(runs_posted(&page.run_in("b", "b1").1));
    assert_eq!(posted.len(), 1, "one core");
    let mut started = vec![posted[0].2.clone()];
    let mut current = (posted[0].0, posted[0].1);
    for _ in 0..6 {
        let effects = page.on(done(current.0, current.1, RunStatus::Ok));
        let [(worker, id, code)] = &runs_posted(&effects)[..] else {
            panic!("one call starts as one ends: {effects:?}");
        };
        started.push(code.clone());
        current = (*worker, *id);
    }
    assert_eq!(started, ["a0", "b0", "c0", "a1", "b1", "a2", "a3"]);
    let _ = (a, b, c);
}

#[test]
fn a_session_is_parked_only_when_memory_runs_out_least_recently_used_first() {
    let (mut page, _) = Page::ready_with(limits(3, 2));
    let workers = page.open(&["a", "b", "c"]);
    assert_eq!(workers.len(), 3, "three resident with two cores");
    page.wait(PARK_AFTER_IDLE_MS);
    // A call to "b" makes "a" the least recently used.
    let (id, effects) = page.run_in("b", "1");
    page.on(done(workers[1], id, RunStatus::Ok));
    assert!(terminated(&effects).is_empty());
    page.wait(PARK_AFTER_IDLE_MS);
    let (_, effects) = page.run_in("d", "1");
    assert_eq!(
        terminated(&effects),
        vec![workers[0]],
        "memory is full: a is parked"
    );
    only_spawn(&effects, Start::Python);
    let parked = page.state("a");
    assert_eq!(
        (parked.phase, parked.resident),
        (SessionPhase::Parked, false)
    );
    assert_eq!(
        parked.why,
        "Parked to make room for session \"d\" (the memory budget holds 3 workers of 1024 MiB \
         each); its next call restores it by replaying its runs."
    );
}

#[test]
fn a_parked_session_lets_a_bounded_number_of_calls_go_first_then_a_busy_session_makes_room() {
    let (mut page, first) = Page::ready_with(limits(2, 2));
    page.open(&["p"]);
    let workers = page.open(&["a"]);
    let a = workers[0];
    page.wait(PARK_AFTER_IDLE_MS);
    // "b" needs a worker: "p", idle longest, is parked for it.
    let (id, effects) = page.run_in("b", "x = 0");
    assert_eq!(terminated(&effects), vec![first]);
    let b = only_spawn(&effects, Start::Python);
    page.on(ready(b, SnapshotUse::Used));
    page.on(done(b, id, RunStatus::Ok));
    let session_of = |worker: WorkerId| if worker == a { "a" } else { "b" };

    // "a" and "b" get many calls; then "p" gets one.
    let mut running = VecDeque::new();
    for k in 0..30 {
        for name in ["a", "b"] {
            let (_, effects) = page.run_in(name, &format!("{name}{k}"));
            running.extend(runs_posted(&effects).into_iter().map(|(w, id, _)| (w, id)));
        }
    }
    let (p_call, effects) = page.run_in("p", "x + 1");
    assert!(spawns(&effects).is_empty() && terminated(&effects).is_empty());
    page.assert_state(
        "p",
        SessionPhase::Waiting,
        "once 16 calls have started ahead of it",
    );

    // Resident sessions' calls go first, up to the bound; then the session
    // whose call ends next (it has run one in its worker) is parked for "p".
    let mut started = 0;
    let (parked, p) = loop {
        let (worker, id) = running.pop_front().expect("calls in flight");
        let effects = page.on(done(worker, id, RunStatus::Ok));
        let posted = runs_posted(&effects);
        started += posted.len();
        running.extend(posted.into_iter().map(|(w, id, _)| (w, id)));
        if let [gone] = terminated(&effects)[..] {
            assert_eq!(gone, worker, "the session with nothing in its worker");
            break (session_of(gone), only_spawn(&effects, Start::Python));
        }
        assert!(started <= WAIT_BEHIND_AT_MOST as usize, "the bound holds");
    };
    assert_eq!(started, WAIT_BEHIND_AT_MOST as usize);
    assert_eq!(
        page.state(parked).phase,
        SessionPhase::Waiting,
        "its calls wait now"
    );
    assert_eq!(page.state("p").phase, SessionPhase::Starting);
    // "p" comes back by replay, then its call runs.
    let effects = page.on(ready(p, SnapshotUse::Used));
    let replay = replay_posted(&effects, p, "x = 0");
    let effects = page.on(done(p, replay, RunStatus::Ok));
    assert_eq!(runs_posted(&effects), vec![(p, p_call, "x + 1".into())]);
    let effects = page.on(done(p, p_call, RunStatus::Ok));
    let restored = result_of(&effects, p_call).restored.expect("restored");
    assert_eq!((restored.replayed, restored.before_run), (1, Some(true)));
}

/// The workers of a simulated page: whose each is, which run a job, which load.
#[derive(Default)]
struct Simulated {
    worker_of: Vec<(WorkerId, &'static str)>,
    in_flight: VecDeque<(WorkerId, RunId)>,
    loading: Vec<WorkerId>,
}

impl Simulated {
    /// Carries out `effects` as a page would: what is posted runs, what is
    /// spawned loads (for the one of `names` now starting), what is
    /// terminated is gone.
    fn apply(&mut self, page: &Page, names: &[&'static str], effects: &[Effect]) {
        for gone in terminated(effects) {
            self.worker_of.retain(|(w, _)| *w != gone);
            self.in_flight.retain(|(w, _)| *w != gone);
            self.loading.retain(|w| *w != gone);
        }
        for (worker, _) in spawns(effects) {
            let starting = names.iter().find(|name| {
                page.state(name).phase == SessionPhase::Starting
                    && !self.worker_of.iter().any(|(_, owner)| owner == *name)
            });
            self.worker_of
                .push((worker, starting.expect("a session starting")));
            self.loading.push(worker);
        }
        let posted = runs_posted(effects).into_iter().map(|(w, id, _)| (w, id));
        self.in_flight.extend(posted);
    }
}

#[test]
fn under_more_load_than_memory_every_call_finishes_within_the_caps_and_the_bound() {
    let names = ["a", "b", "c", "d", "e"];
    let pool = limits(2, 1);
    let (mut page, first) = Page::ready_with(pool);
    let mut sim = Simulated {
        worker_of: vec![(first, "a")],
        ..Simulated::default()
    };
    let mut calls = Vec::new();
    for round in 0..12 {
        for name in names {
            let (id, effects) = page.run_in(name, &format!("{name}{round}"));
            calls.push(id);
            sim.apply(&page, &names, &effects);
        }
    }
    let mut answered = Vec::new();
    let mut passed: Vec<(&str, usize)> = Vec::new();
    let (mut parkings, mut longest) = (0, 0);
    for _ in 0..10_000 {
        let effects = if let Some(worker) = sim.loading.pop() {
            page.on(ready(worker, SnapshotUse::Used))
        } else if let Some((worker, id)) = sim.in_flight.pop_front() {
            page.on(done(worker, id, RunStatus::Ok))
        } else if answered.len() < calls.len() {
            page.wait(PARK_AFTER_IDLE_MS);
            page.on(Event::Tick(Timer::Pool))
        } else {
            break;
        };
        parkings += terminated(&effects).len();
        sim.apply(&page, &names, &effects);
        answered.extend(resolved(&effects));
        // The caps hold at every step.
        let running: Vec<_> = sim.in_flight.iter().map(|(w, _)| *w).collect();
        let mut distinct = running.clone();
        distinct.dedup();
        assert!(distinct.len() <= pool.running as usize, "{running:?}");
        let alive = &sim.worker_of;
        assert!(alive.len() <= pool.resident as usize, "{alive:?}");
        // A session waiting for a worker counts the callers' calls that
        // start meanwhile: the bound, plus one call of each session whose
        // worker came while it waited (it may run one, to make room).
        let started = runs_posted(&effects)
            .into_iter()
            .filter(|(_, id, _)| calls.contains(id))
            .count();
        for name in names {
            let waits = page.state(name).phase == SessionPhase::Waiting;
            match passed.iter_mut().find(|(n, _)| *n == name) {
                Some((_, count)) if waits => *count += started,
                Some(_) => passed.retain(|(n, _)| *n != name),
                None if waits => passed.push((name, 0)),
                None => {}
            }
        }
        let most = passed.iter().map(|(_, n)| *n).max().unwrap_or(0);
        assert!(
            most <= (WAIT_BEHIND_AT_MOST + pool.resident) as usize,
            "{passed:?}"
        );
        longest = longest.max(most);
    }
    assert!(
        parkings > names.len(),
        "busy sessions took turns in memory: {parkings}"
    );
    assert!(
        longest >= WAIT_BEHIND_AT_MOST as usize,
        "resident calls went first: {longest}"
    );
    answered.sort_unstable();
    let mut expected = calls.clone();
    expected.sort_unstable();
    assert_eq!(answered, expected, "every call was answered");
}

#[test]
fn a_batchs_fresh_runs_wait_in_its_worker_only_while_no_other_session_waits_for_a_core() {
    let (mut page, _) = Page::ready_with(limits(4, 1));
    let workers = page.open(&["user", "batch"]);
    let (user, batch) = (workers[0], workers[1]);
    let mut posted = Vec::new();
    for k in 0..3 {
        posted.extend(runs_posted(
            &fresh_run(&mut page, &format!("p{k}"), 1_000).1,
        ));
    }
    assert_eq!(
        posted.len(),
        3,
        "nobody else waits: two go in behind the first"
    );
    let (mine, effects) = page.run_in("user", "mine");
    assert!(runs_posted(&effects).is_empty(), "one core, the batch's");
    assert_eq!(page.state("user").phase, SessionPhase::Queued);
    let (later, effects) = fresh_run(&mut page, "p3", 1_000);
    assert!(
        runs_posted(&effects).is_empty(),
        "the user's call waits: p3 does not jump it"
    );
    // The batch's runs already in its worker finish; then the user's turn.
    for (_, id, _) in &posted[..2] {
        assert!(runs_posted(&page.on(done(batch, *id, RunStatus::Ok))).is_empty());
    }
    let effects = page.on(done(batch, posted[2].1, RunStatus::Ok));
    assert_eq!(runs_posted(&effects), vec![(user, mine, "mine".into())]);
    let effects = page.on(done(user, mine, RunStatus::Ok));
    assert_eq!(runs_posted(&effects), vec![(batch, later, "p3".into())]);
}
