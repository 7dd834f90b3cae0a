//! Human-readable numbers for the status line and output markers, and quoted
//! names for messages.

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

/// A memory limit, in the MiB it is set in: `1 << 30` -> `"1024 MiB"`.
pub fn mebibytes(n: u64) -> String {
    format!("{} MiB", n >> 20)
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

/// `a"b` -> `"a\"b"`: a name the user or model gave, in double quotes, with
/// quotes, backslashes and control characters escaped as Rust's `{:?}` writes
/// them. Spelled out because the release build compiles `{:?}` to nothing
/// (`-Zfmt-debug=none`, see scripts/build.sh); unlike `{:?}` (and `str::escape_debug`) it
/// leaves other characters as they are, which keeps Unicode's tables of
/// printable characters out of the app's wasm.
pub fn quoted(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 2);
    out.push('"');
    for c in name.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A run's package download, e.g. `"Loading tabulate: 12.0 KB of 40.0 KB"`;
/// before the first byte names no package yet: `"Loading packages"`.
pub fn package_progress(packages: &[String], loaded: u64, total: u64) -> String {
    if packages.is_empty() {
        return "Loading packages".to_owned();
    }
    format!(
        "Loading {}: {} of {}",
        packages.join(", "),
        bytes(loaded),
        bytes(total)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Natively `{:?}` still works, and is what `quoted` stands in for.
    #[test]
    #[allow(clippy::use_debug)]
    fn quoted_escapes_as_debug_does() {
        for name in [
            "main",
            "say \"hi\".txt",
            "C:\\tmp",
            "a\nb\tc\r",
            "bell\u{7}",
            "café ✓",
            "",
        ] {
            assert_eq!(quoted(name), format!("{name:?}"));
        }
    }

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
    fn package_progress_names_packages_once_known() {
        assert_eq!(package_progress(&[], 0, 0), "Loading packages");
        let names = ["tabulate".to_owned(), "six".to_owned()];
        assert_eq!(
            package_progress(&names, 12_000, 40_000),
            "Loading tabulate, six: 12.0 KB of 40.0 KB"
        );
    }
}
