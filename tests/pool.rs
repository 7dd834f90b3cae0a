//! The pool's limits: workers alive by memory, runs at once by cores,
//! from the device and from the deployment's config.

use sandpit::runtime::pool::{
    memory_limit_bytes, PoolLimits, SessionsConfig, ASSUMED_MEMORY_GIB, DEFAULT_MEMORY_BYTES,
    MAX_MEMORY_BYTES, MAX_WORKERS, MIN_WORKERS,
};

#[test]
fn resident_by_memory_running_by_cores() {
    let pool = |cores, memory| {
        let limits = PoolLimits::for_device(cores, memory);
        (limits.resident, limits.running)
    };
    assert_eq!(
        pool(Some(2.0), Some(8.0)),
        (8, 2),
        "this machine: 8 GiB hold 8 interpreters of 1 GiB, 2 cores run 2"
    );
    assert_eq!(pool(Some(8.0), Some(4.0)), (4, 4), "memory bounds both");
    assert_eq!(pool(Some(1.0), Some(0.5)), (MIN_WORKERS, 1));
    assert_eq!(
        pool(None, None),
        (ASSUMED_MEMORY_GIB as u32, MIN_WORKERS),
        "a browser that says nothing"
    );
    assert_eq!(
        pool(Some(6.0), None),
        (4, 4),
        "Firefox and Safari give no memory: the assumed budget"
    );
    assert_eq!(pool(Some(128.0), Some(64.0)), (MAX_WORKERS, MAX_WORKERS));
    assert_eq!(pool(Some(f64::NAN), Some(-1.0)), (4, MIN_WORKERS));
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
    assert_eq!(
        (limits.resident, limits.running, limits.memory_bytes),
        (4, 2, 256 << 20)
    );
    assert_eq!(device.with_config(&SessionsConfig::default()), Ok(device));
    // A smaller limit per session: the same memory holds more of them.
    let small: SessionsConfig = serde_json::from_str(r#"{"memory_limit_mb": 512}"#).expect("valid");
    assert_eq!(device.with_config(&small).map(|l| l.resident), Ok(16));
    let large: SessionsConfig =
        serde_json::from_str(r#"{"memory_limit_mb": 4096}"#).expect("valid");
    assert_eq!(
        device.with_config(&large).map(|l| (l.resident, l.running)),
        Ok((MIN_WORKERS, 2))
    );
    // Never more running than alive.
    let one: SessionsConfig = serde_json::from_str(r#"{"max_workers": 2}"#).expect("valid");
    let many_cores = PoolLimits::for_device(Some(8.0), Some(8.0));
    assert_eq!(
        many_cores
            .with_config(&one)
            .map(|l| (l.resident, l.running)),
        Ok((2, 2))
    );

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
