//! Human-readable numbers for the status line and output markers.

use crate::protocol::LoadStage;

/// `1536` -> `"1.5 KB"`; decimal units, as browsers show downloads.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KB", "MB", "GB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// `12.3` -> `"12 ms"`, `1530.0` -> `"1.53 s"`.
pub fn duration_ms(ms: f64) -> String {
    if ms < 1.0 {
        format!("{ms:.2} ms")
    } else if ms < 1000.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{:.2} s", ms / 1000.0)
    }
}

/// The status line while Python loads, e.g. `"Downloading Python: 3.2 MB of 12.1 MB"`.
pub fn loading(stage: LoadStage, loaded: u64, total: Option<u64>) -> String {
    match (stage, total) {
        (LoadStage::Download, Some(total)) => {
            format!("Downloading Python: {} of {}", bytes(loaded), bytes(total))
        }
        (LoadStage::Download, None) => format!("Downloading Python: {}", bytes(loaded)),
        (LoadStage::Start, _) => "Starting the interpreter".to_owned(),
        (LoadStage::Runner, _) => "Installing the runner".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_pick_a_readable_unit() {
        assert_eq!(bytes(0), "0 B");
        assert_eq!(bytes(999), "999 B");
        assert_eq!(bytes(1_500), "1.5 KB");
        assert_eq!(bytes(12_144_000), "12.1 MB");
        assert_eq!(bytes(3_000_000_000_000), "3000.0 GB");
    }

    #[test]
    fn durations_scale_from_fractions_of_a_millisecond_to_seconds() {
        assert_eq!(duration_ms(0.25), "0.25 ms");
        assert_eq!(duration_ms(12.4), "12 ms");
        assert_eq!(duration_ms(1530.0), "1.53 s");
    }

    #[test]
    fn loading_text_shows_bytes_when_downloading() {
        assert_eq!(
            loading(LoadStage::Download, 3_200_000, Some(12_100_000)),
            "Downloading Python: 3.2 MB of 12.1 MB"
        );
        assert_eq!(
            loading(LoadStage::Download, 500, None),
            "Downloading Python: 500 B"
        );
        assert_eq!(
            loading(LoadStage::Runner, 1, Some(1)),
            "Installing the runner"
        );
    }
}
