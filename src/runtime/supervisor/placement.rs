//! Where each session's jobs go: its queue moves along, a session with a
//! job and no worker waits in line for one (the spare, a new worker, or the
//! worker of the least recently used idle session, which is parked), and
//! what each session is doing is told.

use super::*;

impl Supervisor {
    /// Moves session `name`'s queue along: posts its next job when its
    /// worker is free, ends its worker for a clear, and puts it in line for
    /// a worker when it has a job but none.
    pub(super) fn pump(&mut self, name: &str) {
        loop {
            let Some(session) = self.sessions.get_mut(name) else {
                return;
            };
            match session.scheduler.dispatch() {
                Some(Dispatch::Post(mut message)) => {
                    let Some(worker) = session.worker else {
                        return;
                    };
                    if let HostMessage::Run { request, .. } = &mut message {
                        request
                            .memory_limit_bytes
                            .get_or_insert(self.limits.memory_bytes);
                    }
                    let run = match &message {
                        HostMessage::Run { id, .. } => Some(*id),
                        _ => None,
                    };
                    self.emit(Effect::Post(worker, message));
                    // Python takes a run as soon as it arrives; only loading
                    // packages (`loading_packages` to `started`) stops the clock.
                    if let Some(id) = run {
                        self.start_clock(name, id);
                    }
                    return;
                }
                Some(Dispatch::Reset { id, forget }) => {
                    if let Some(worker) = session.worker {
                        self.retire(worker);
                    }
                    if forget {
                        self.session_mut(name).listed = false;
                    }
                    self.callers.remove(&id);
                    self.emit(Effect::Resolve(id, Reply::Done(Ok(()))));
                }
                None => break,
            }
        }
        let needs_worker = self
            .sessions
            .get(name)
            .is_some_and(|s| s.worker.is_none() && s.scheduler.needs_worker());
        if needs_worker && !self.waiting.iter().any(|waiting| waiting == name) {
            self.waiting.push(name.to_owned());
        }
    }

    /// Gives waiting sessions workers, first come first served: the spare
    /// (even while it loads), else a new worker while the pool has room,
    /// else the worker of the least recently used idle session, which is
    /// parked. A session that waits for a parking that is not due yet arms
    /// [`Timer::Pool`].
    pub(super) fn place_waiting(&mut self) {
        while let Some(name) = self.waiting.first().cloned() {
            let needs = self
                .sessions
                .get(&name)
                .is_some_and(|s| s.worker.is_none() && s.scheduler.needs_worker());
            if !needs {
                self.waiting.remove(0);
                continue;
            }
            if let Some(spare) = self.find(&Role::Spare) {
                self.waiting.remove(0);
                self.bind(spare, &name);
                continue;
            }
            if !self.admitted {
                return;
            }
            if self.live_workers() >= self.limits.workers as usize {
                match self.park_candidate() {
                    Ok(idle) => self.park(&idle),
                    Err(wait_ms) => {
                        if let (Some(ms), false) = (wait_ms, self.pool_armed) {
                            self.pool_armed = true;
                            self.emit(Effect::StartTimer(Timer::Pool, ms));
                        }
                        return;
                    }
                }
            }
            self.waiting.remove(0);
            self.spawn(Role::Session(name), Start::Python);
        }
    }

    /// Gives session `name` the spare: it is the session's worker from now on.
    pub(super) fn bind(&mut self, worker: WorkerId, name: &str) {
        let Some(slot) = self.slot(worker) else {
            return;
        };
        slot.role = Role::Session(name.to_owned());
        slot.background = false;
        let ready = slot.stage == Stage::Ready;
        let session = self.session_mut(name);
        session.worker = Some(worker);
        if ready {
            session.scheduler.set_ready();
            self.pump(name);
        }
    }

    /// The idle session to park for a waiting one: the least recently used
    /// that has been idle [`PARK_AFTER_IDLE_MS`]. Otherwise how long until
    /// one has, if any is idle at all.
    pub(super) fn park_candidate(&self) -> Result<String, Option<u32>> {
        let idle = self
            .sessions
            .iter()
            .filter(|(_, s)| s.worker.is_some() && s.scheduler.is_idle());
        let Some((name, session)) = idle.min_by(|a, b| a.1.last_used.total_cmp(&b.1.last_used))
        else {
            return Err(None);
        };
        let idle_ms = self.now_ms - session.last_used;
        if idle_ms >= f64::from(PARK_AFTER_IDLE_MS) {
            Ok(name.clone())
        } else {
            Err(Some((f64::from(PARK_AFTER_IDLE_MS) - idle_ms).ceil() as u32))
        }
    }

    /// Ends idle session `name`'s worker; its next job restores it by replay.
    pub(super) fn park(&mut self, name: &str) {
        let Some(worker) = self.sessions.get(name).and_then(|s| s.worker) else {
            return;
        };
        self.retire(worker);
        if let Some(session) = self.sessions.get_mut(name) {
            // Idle: nothing is stopped, so nothing completes.
            session.scheduler.restart("", &mut self.ids);
        }
    }

    /// The session a check goes to: checks change no session, so the most
    /// recently used one with a worker takes it, an idle one first, and
    /// only without any the default session.
    pub(super) fn session_for_check(&self) -> String {
        let with_worker = self.sessions.iter().filter(|(_, s)| s.worker.is_some());
        let best = with_worker.max_by(|a, b| {
            let rank = |s: &Session| (s.scheduler.is_idle() && s.scheduler.is_ready(), s.last_used);
            let (ra, rb) = (rank(a.1), rank(b.1));
            ra.0.cmp(&rb.0).then(ra.1.total_cmp(&rb.1))
        });
        best.map_or_else(|| DEFAULT_SESSION.to_owned(), |(name, _)| name.clone())
    }

    /// Why reading `path` from session `name` cannot work, when the session
    /// has neither a worker nor anything to restore: no worker is started
    /// only to say so.
    pub(super) fn nothing_to_read(&self, name: &str, path: &str) -> Option<String> {
        let session = self.sessions.get(name);
        let empty = session.is_none_or(|s| {
            s.worker.is_none() && !s.scheduler.has_state() && s.scheduler.is_idle()
        });
        empty.then(|| {
            format!(
                "FileNotFoundError: no such file in session {}: {path}",
                quoted(name)
            )
        })
    }

    /// What each session is doing, by name.
    pub(super) fn states(&self) -> Vec<SessionState> {
        self.sessions
            .iter()
            .map(|(name, session)| {
                let stage = session.worker.and_then(|worker| self.stage(worker));
                let phase = match stage {
                    None if self.waiting.contains(name) => SessionPhase::Waiting,
                    None => SessionPhase::Parked,
                    Some(Stage::Created | Stage::Starting) => SessionPhase::Starting,
                    Some(Stage::Ready) if session.scheduler.replaying() => SessionPhase::Restoring,
                    Some(Stage::Ready) if session.scheduler.in_flight().is_some() => {
                        SessionPhase::Running
                    }
                    Some(Stage::Ready) => SessionPhase::Idle,
                };
                SessionState {
                    name: name.clone(),
                    phase,
                    queued: session.scheduler.waiting(),
                }
            })
            .collect()
    }
}
