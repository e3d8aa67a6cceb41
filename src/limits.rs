//! Runs that say what they cost: before a batch starts, its memory (results held until the end,
//! and the reports built from them) is estimated from the counts and refused when it would not
//! fit the machine's available memory, with the estimate and what to change.

use anyhow::{bail, Result};

/// Bytes of memory the system can still give (`MemAvailable` of /proc/meminfo); `None` where
/// that is unknown.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Memory a batch holds per instance with `cells` cells per grid: the instance, its result
/// record with its final grid, and each requested report's record of it (JSON, CSV).
pub fn bytes_per_instance(cells: usize, json: bool, csv: bool) -> u64 {
    let cells = cells as u64;
    let held = 24 + 64 + cells; // instance, result (fields, grid line)
    let json_record = if json { 160 + cells } else { 0 };
    let csv_record = if csv { 96 + cells } else { 0 };
    held + json_record + csv_record
}

/// A readable size: 1.5 GB, 320 MB, 12 kB.
pub fn fmt_bytes(b: u64) -> String {
    let b = b as f64;
    if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.0} MB", b / 1e6)
    } else {
        format!("{:.0} kB", b / 1e3)
    }
}

/// Refuses `instances` instances of `bytes_each` when that exceeds `available` (the machine's
/// available memory, when known), saying what they would need and what helps.
pub fn check_memory(
    instances: u64,
    bytes_each: u64,
    available: Option<u64>,
    what_helps: &str,
) -> Result<()> {
    let Some(need) = instances.checked_mul(bytes_each) else {
        bail!("{instances} instances cannot be held in memory (the count overflows); {what_helps}");
    };
    if let Some(have) = available {
        if need > have {
            bail!(
                "{instances} instances would need about {} of memory (about {bytes_each} bytes \
                 each: results and reports), more than the {} available; {what_helps}",
                fmt_bytes(need),
                fmt_bytes(have)
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_and_refusals() {
        assert_eq!(bytes_per_instance(81, false, false), 24 + 64 + 81);
        assert_eq!(bytes_per_instance(81, true, true), 169 + 241 + 177);
        check_memory(1_000, 500, Some(1_000_000), "use fewer --runs").unwrap();
        let e = check_memory(1_000_000_000, 500, Some(20_000_000_000), "use fewer --runs")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("500.0 GB") && e.contains("20.0 GB available") && e.contains("fewer --runs"),
            "{e}"
        );
        assert!(check_memory(u64::MAX, 2, None, "x").is_err());
        check_memory(u64::MAX / 4, 2, None, "unknown memory: no refusal").unwrap();
        assert_eq!(fmt_bytes(1_500_000_000), "1.5 GB");
    }
}
