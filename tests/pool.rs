//! The pool's limits: from the device, and from the deployment's config.

use sandpit::runtime::pool::{
    memory_limit_bytes, PoolLimits, SessionsConfig, DEFAULT_MEMORY_BYTES, MAX_MEMORY_BYTES,
    MAX_WORKERS, MIN_WORKERS,
};

#[test]
fn a_worker_per_core_and_per_gib_of_memory_at_least_two() {
    let workers = |cores, memory| PoolLimits::for_device(cores, memory).workers;
    assert_eq!(workers(Some(2.0), Some(8.0)), 2, "this machine: two cores");
    assert_eq!(workers(Some(8.0), Some(4.0)), 4, "memory bounds it too");
    assert_eq!(workers(Some(1.0), Some(0.5)), MIN_WORKERS);
    assert_eq!(
        workers(None, None),
        MIN_WORKERS,
        "a browser that says nothing"
    );
    assert_eq!(
        workers(Some(6.0), None),
        6,
        "Firefox and Safari give no memory"
    );
    assert_eq!(workers(Some(128.0), Some(64.0)), MAX_WORKERS);
    assert_eq!(workers(Some(f64::NAN), Some(-1.0)), MIN_WORKERS);
    assert_eq!(
        PoolLimits::for_device(Some(4.0), Some(8.0)).memory_bytes,
        DEFAULT_MEMORY_BYTES
    );
}

#[test]
fn the_config_sets_the_cap_and_the_memory_limit_within_bounds() {
    let device = PoolLimits::for_device(Some(2.0), Some(8.0));
    let config: SessionsConfig =
        serde_json::from_str(r#"{"max_workers": 4, "memory_limit_mb": 256}"#).expect("valid");
    let limits = device.with_config(&config).expect("within bounds");
    assert_eq!((limits.workers, limits.memory_bytes), (4, 256 << 20));
    assert_eq!(device.with_config(&SessionsConfig::default()), Ok(device));

    let too_many: SessionsConfig = serde_json::from_str(r#"{"max_workers": 100}"#).expect("valid");
    assert_eq!(
        device.with_config(&too_many),
        Err("sessions.max_workers must be from 2 to 16, not 100".into())
    );
    let too_little: SessionsConfig =
        serde_json::from_str(r#"{"memory_limit_mb": 8}"#).expect("valid");
    assert_eq!(
        device.with_config(&too_little),
        Err("sessions.memory_limit_mb must be from 64 to 4096 (MiB), not 8".into())
    );
    assert!(
        serde_json::from_str::<SessionsConfig>(r#"{"max_worker": 4}"#).is_err(),
        "a misspelt setting is refused, not ignored"
    );
}

#[test]
fn memory_limits_are_whole_mib_up_to_what_wasm32_can_address() {
    assert_eq!(memory_limit_bytes(1024), Ok(1 << 30));
    assert_eq!(memory_limit_bytes(4096), Ok(MAX_MEMORY_BYTES));
    assert!(memory_limit_bytes(4097).is_err());
    assert!(memory_limit_bytes(63).is_err());
}
