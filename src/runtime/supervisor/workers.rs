//! The workers alive: what each is for and how far it has come, oldest
//! first, each tagged with a generation of its own.

use crate::runtime::events::{Effect, Start, WorkerId};

/// What a worker is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Role {
    /// Runs this session's jobs.
    Session(String),
    /// Loads Python in advance: the next session to need a worker takes it.
    Spare,
    /// Stores a start-up snapshot, then ends.
    Maker,
}

/// How far a worker has come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stage {
    /// Created, not yet sent `init` (it waits for the CSP check).
    Created,
    /// Sent `init`, loading Python.
    Starting,
    /// Said it is ready.
    Ready,
}

/// One worker: its id, what it is for and how far it has come.
#[derive(Debug)]
pub(super) struct Slot {
    id: WorkerId,
    role: Role,
    stage: Stage,
    /// Started in the background: it gives way to a job that arrives while
    /// it still loads.
    background: bool,
}

impl Slot {
    /// What it was for.
    pub(super) fn role(&self) -> &Role {
        &self.role
    }

    /// How far it had come.
    pub(super) fn stage(&self) -> Stage {
        self.stage
    }
}

/// The workers: a handful at most, oldest first.
#[derive(Debug, Default)]
pub(super) struct Workers {
    slots: Vec<Slot>,
    last: u64,
}

impl Workers {
    /// Adds a worker in `role`, tagged with a new generation, and says to
    /// start it.
    pub(super) fn spawn(
        &mut self,
        role: Role,
        start: Start,
        effects: &mut Vec<Effect>,
    ) -> WorkerId {
        self.last += 1;
        let id = WorkerId(self.last);
        let stage = match start {
            Start::Early => Stage::Created,
            Start::Python | Start::SnapshotMaker => Stage::Starting,
        };
        self.slots.push(Slot {
            id,
            role,
            stage,
            background: false,
        });
        effects.push(Effect::Spawn { worker: id, start });
        id
    }

    /// Removes `worker`: whatever it says later is ignored.
    pub(super) fn remove(&mut self, worker: WorkerId) -> Option<Slot> {
        let at = self.slots.iter().position(|slot| slot.id == worker)?;
        Some(self.slots.remove(at))
    }

    /// Every worker, oldest first.
    pub(super) fn ids(&self) -> Vec<WorkerId> {
        self.slots.iter().map(|slot| slot.id).collect()
    }

    /// The oldest worker in `role`.
    pub(super) fn find(&self, role: &Role) -> Option<WorkerId> {
        let slot = self.slots.iter().find(|slot| slot.role == *role);
        slot.map(|slot| slot.id)
    }

    /// How many workers are in `role`.
    pub(super) fn count(&self, role: &Role) -> usize {
        self.slots.iter().filter(|slot| slot.role == *role).count()
    }

    /// What `worker` is for.
    pub(super) fn role(&self, worker: WorkerId) -> Option<Role> {
        self.slot(worker).map(|slot| slot.role.clone())
    }

    /// How far `worker` has come.
    pub(super) fn stage(&self, worker: WorkerId) -> Option<Stage> {
        self.slot(worker).map(|slot| slot.stage)
    }

    /// `worker` has come to `stage`.
    pub(super) fn set_stage(&mut self, worker: WorkerId, stage: Stage) {
        if let Some(slot) = self.slot_mut(worker) {
            slot.stage = stage;
        }
    }

    /// `worker` was started in the background.
    pub(super) fn set_background(&mut self, worker: WorkerId) {
        if let Some(slot) = self.slot_mut(worker) {
            slot.background = true;
        }
    }

    /// Makes `worker` session `name`'s, in the foreground; its stage, if it is alive.
    pub(super) fn bind(&mut self, worker: WorkerId, name: &str) -> Option<Stage> {
        let slot = self.slot_mut(worker)?;
        slot.role = Role::Session(name.to_owned());
        slot.background = false;
        Some(slot.stage)
    }

    /// Workers that count against the pool's limit: the sessions' and the spare.
    pub(super) fn live(&self) -> usize {
        let counted = |slot: &&Slot| slot.role != Role::Maker;
        self.slots.iter().filter(counted).count()
    }

    /// The worker created before the CSP check, and its role, while it waits for `init`.
    pub(super) fn early(&self) -> Option<(WorkerId, Role)> {
        let slot = self.slots.iter().find(|slot| slot.stage == Stage::Created);
        slot.map(|slot| (slot.id, slot.role.clone()))
    }

    /// Background workers still loading, with their roles.
    pub(super) fn loading_in_background(&self) -> Vec<(WorkerId, Role)> {
        self.slots
            .iter()
            .filter(|slot| slot.background && slot.stage != Stage::Ready)
            .map(|slot| (slot.id, slot.role.clone()))
            .collect()
    }

    fn slot(&self, worker: WorkerId) -> Option<&Slot> {
        self.slots.iter().find(|slot| slot.id == worker)
    }

    fn slot_mut(&mut self, worker: WorkerId) -> Option<&mut Slot> {
        self.slots.iter_mut().find(|slot| slot.id == worker)
    }
}
