//! How many session workers may be alive at once (the memory budget), how
//! many may run at once (the cores), and how much memory each session's
//! interpreter may take: from the device, and from the deployment's
//! `sandpit.config.json`. Plain logic, tested natively.

use serde::Deserialize;

/// The fewest session workers the pool keeps alive: one session can run
/// while another waits for its next call.
pub const MIN_WORKERS: u32 = 2;

/// The most the pool keeps alive, and the most that run at once: each
/// worker holds an interpreter of its own (tens of megabytes at rest, up to
/// its memory limit).
pub const MAX_WORKERS: u32 = 16;

/// The default memory limit of a session's interpreter: 1 GiB.
pub const DEFAULT_MEMORY_BYTES: u64 = 1 << 30;

/// The least memory limit that can be set: Python's own start-up takes
/// about 30 MB of it.
pub const MIN_MEMORY_BYTES: u64 = 64 << 20;

/// The most a wasm32 interpreter can address: 4 GiB less one 64 KiB page.
pub const MAX_MEMORY_BYTES: u64 = (4 << 30) - (64 << 10);

/// The memory assumed when the browser does not say (only Chromium has
/// `navigator.deviceMemory`): what the smallest laptops have.
pub const ASSUMED_MEMORY_GIB: f64 = 4.0;

/// The pool's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolLimits {
    /// Session workers alive at once, the warm spares included: as many
    /// interpreters as the memory budget holds at the memory limit each.
    /// Past it, an idle session is parked.
    pub resident: u32,
    /// Runs at once, across sessions: one per core. Past it, calls wait in
    /// line, whatever the memory.
    pub running: u32,
    /// Each run's memory limit unless the run sets its own, in bytes.
    pub memory_bytes: u64,
    /// The memory the pool's interpreters may take together, in bytes: the device's.
    pub budget_bytes: u64,
}

impl PoolLimits {
    /// The limits for a device with `cores` logical processors and
    /// `memory_gib` GiB of memory (`navigator.hardwareConcurrency` and
    /// `navigator.deviceMemory`; either may be unknown): a run per core, and
    /// as many workers as the memory holds at the default limit each.
    pub fn for_device(cores: Option<f64>, memory_gib: Option<f64>) -> Self {
        let known = |value: Option<f64>| value.filter(|v| v.is_finite() && *v > 0.0);
        let running = known(cores).map_or(MIN_WORKERS, |cores| {
            (cores.floor() as u32).clamp(1, MAX_WORKERS)
        });
        let gib = known(memory_gib).unwrap_or(ASSUMED_MEMORY_GIB);
        let limits = Self {
            resident: MIN_WORKERS,
            running,
            memory_bytes: DEFAULT_MEMORY_BYTES,
            budget_bytes: (gib * f64::from(1u32 << 30)) as u64,
        };
        limits.fitted(None)
    }

    /// These limits with the deployment's `sessions` settings applied, or
    /// why they cannot be.
    pub fn with_config(self, config: &SessionsConfig) -> Result<Self, String> {
        let mut limits = self;
        if let Some(workers) = config.max_workers {
            if !(MIN_WORKERS..=MAX_WORKERS).contains(&workers) {
                return Err(format!(
                    "sessions.max_workers must be from {MIN_WORKERS} to {MAX_WORKERS}, not {workers}"
                ));
            }
        }
        if let Some(megabytes) = config.memory_limit_mb {
            limits.memory_bytes = memory_limit_bytes(megabytes)
                .map_err(|why| format!("sessions.memory_limit_mb {why}"))?;
        }
        Ok(limits.fitted(config.max_workers))
    }

    /// Residents as the budget holds at the memory limit each (or `set`),
    /// within bounds; no more running than resident.
    fn fitted(mut self, set: Option<u32>) -> Self {
        let held = self.budget_bytes / self.memory_bytes.max(1);
        let held = u32::try_from(held).unwrap_or(MAX_WORKERS);
        self.resident = set.unwrap_or_else(|| held.clamp(MIN_WORKERS, MAX_WORKERS));
        self.running = self.running.min(self.resident);
        self
    }
}

/// The `sessions` part of `sandpit.config.json`.
#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(deny_unknown_fields)]
pub struct SessionsConfig {
    /// Session workers alive at once (the pool's memory cap).
    #[serde(default)]
    pub max_workers: Option<u32>,
    /// Each session's memory limit in MiB, unless a run sets its own.
    #[serde(default)]
    pub memory_limit_mb: Option<u32>,
}

/// A memory limit given in MiB, in bytes; or why it is not one.
pub fn memory_limit_bytes(megabytes: u32) -> Result<u64, String> {
    let bytes = u64::from(megabytes) << 20;
    let (min, max) = (MIN_MEMORY_BYTES >> 20, (MAX_MEMORY_BYTES >> 20) + 1);
    if (MIN_MEMORY_BYTES..=MAX_MEMORY_BYTES + (64 << 10)).contains(&bytes) {
        Ok(bytes.min(MAX_MEMORY_BYTES))
    } else {
        Err(format!(
            "must be from {min} to {max} (MiB), not {megabytes}"
        ))
    }
}
