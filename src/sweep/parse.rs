//! Reading what a sweep is given for its parameters: a value or a range `A:B:STEP` per
//! parameter (`--lr 0.1:0.5:0.1`), and the reference setting (`--baseline lr=1,lp=1,sr=0`).
//! Errors name the options as the command line spells them.

use super::{Param, Values};
use anyhow::{bail, ensure, Context, Result};

fn decimals(s: &str) -> Option<usize> {
    if s.contains(['e', 'E']) {
        return None;
    }
    Some(s.split_once('.').map_or(0, |(_, f)| f.len()))
}

/// Most values one range may have.
pub const MAX_RANGE_VALUES: usize = 10_000;

/// Parses `--<param> TEXT`: a number, or `A:B:STEP` (A ≤ B, STEP > 0; B is included when it is
/// on the grid). Values are rounded to the decimals written, so `0.1:0.5:0.1` gives 0.3, not
/// 0.30000000000000004. `sr` and `steps` take whole numbers.
pub fn parse_values(param: Param, text: &str) -> Result<Values> {
    let flag = format!("--{}", param.name());
    let t = text.trim();
    let num = |s: &str, what: &str| -> Result<f64> {
        let v: f64 = s.trim().parse().map_err(|_| {
            anyhow::anyhow!(
                "{flag} {t}: the {what} `{s}` is not a number (write a value like 3.5 or a range A:B:STEP like 10:150:5)"
            )
        })?;
        ensure!(
            v.is_finite(),
            "{flag} {t}: the {what} must be a finite number"
        );
        Ok(v)
    };
    // Every value, single or of a range, within what the engine takes.
    let whole = |v: f64| -> Result<()> {
        param.check(v).map_err(|why| {
            anyhow::anyhow!(
                "{flag} {t}: {} is out of range: {why}",
                // Whole numbers in full (1001000 shortened to 1e6 would look in range).
                if v.fract() == 0.0 && v.abs() < 1e15 {
                    format!("{v}")
                } else {
                    crate::plot::fmt_num(v)
                }
            )
        })
    };
    if !t.contains(':') {
        let v = num(t, "value")?;
        whole(v)?;
        return Ok(Values::One(v));
    }
    let parts: Vec<&str> = t.split(':').collect();
    ensure!(
        parts.len() == 3,
        "{flag} {t}: a range is A:B:STEP (start, end, step), e.g. 10:150:5; got {} fields",
        parts.len()
    );
    let (a, b, step) = (
        num(parts[0], "start A")?,
        num(parts[1], "end B")?,
        num(parts[2], "step")?,
    );
    ensure!(
        step > 0.0,
        "{flag} {t}: the step must be positive (got {})",
        parts[2].trim()
    );
    ensure!(
        b >= a,
        "{flag} {t}: the end {} is below the start {} (write A:B:STEP with A ≤ B)",
        parts[1].trim(),
        parts[0].trim()
    );
    // The start in range first; the end need not be on the grid, so only the values it gives
    // are checked (below), after their count.
    whole(a)?;
    let count = ((b - a) / step + 1e-9).floor() + 1.0;
    ensure!(
        count <= MAX_RANGE_VALUES as f64,
        "{flag} {t}: {} values; at most {MAX_RANGE_VALUES} per range (use a larger step)",
        if count.is_finite() {
            crate::plot::fmt_num(count)
        } else {
            "more than 10^308".to_string()
        }
    );
    let dec = match (decimals(parts[0].trim()), decimals(parts[2].trim())) {
        (Some(x), Some(y)) => Some(x.max(y)),
        _ => None,
    };
    let mut values = Vec::with_capacity(count as usize);
    for i in 0..count as usize {
        let mut v = a + i as f64 * step;
        if let Some(d) = dec {
            v = format!("{v:.d$}")
                .parse()
                .expect("a formatted number parses");
        }
        whole(v)?;
        values.push(v);
    }
    Ok(Values::Range(values))
}

/// Parses `--baseline lr=1,lp=1,sr=0`.
pub fn parse_baseline(text: &str) -> Result<Vec<(Param, f64)>> {
    let mut v = Vec::new();
    for part in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let Some((k, val)) = part.split_once('=') else {
            bail!("--baseline {text}: `{part}` is not KEY=VALUE (e.g. --baseline lr=1,lp=1,sr=0)");
        };
        let p = Param::from_name(k.trim())
            .filter(|p| *p != Param::Steps)
            .with_context(|| {
                format!(
                    "--baseline {text}: unknown key `{}` (use lr, lp, ratio, sr)",
                    k.trim()
                )
            })?;
        let Values::One(x) = parse_values(p, val)? else {
            bail!(
                "--baseline {text}: {} takes one value, not a range",
                p.name()
            );
        };
        ensure!(
            !v.iter().any(|(q, _)| *q == p),
            "--baseline {text}: {} is given twice",
            p.name()
        );
        v.push((p, x));
    }
    ensure!(
        !v.is_empty(),
        "--baseline needs KEY=VALUE pairs, e.g. lr=1,lp=1,sr=0"
    );
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(p: Param, t: &str) -> String {
        parse_values(p, t).unwrap_err().to_string()
    }

    #[test]
    fn values_and_ranges_parse() {
        assert_eq!(parse_values(Param::Lp, "3.5").unwrap(), Values::One(3.5));
        assert_eq!(
            parse_values(Param::Sr, "10:30:10").unwrap(),
            Values::Range(vec![10.0, 20.0, 30.0])
        );
        // The end is included only when it is on the grid.
        assert_eq!(
            parse_values(Param::Steps, "50:120:50").unwrap(),
            Values::Range(vec![50.0, 100.0])
        );
        // Rounded to the decimals written.
        assert_eq!(
            parse_values(Param::Lr, "0.1:0.5:0.1").unwrap(),
            Values::Range(vec![0.1, 0.2, 0.3, 0.4, 0.5])
        );
        assert_eq!(
            parse_values(Param::Ratio, " 1:3:1 ").unwrap(),
            Values::Range(vec![1.0, 2.0, 3.0])
        );
        assert_eq!(
            parse_values(Param::Sr, "5:5:1").unwrap(),
            Values::Range(vec![5.0])
        );
    }

    #[test]
    fn bad_ranges_say_what_is_wrong() {
        let e = err(Param::Sr, "10:5:1");
        assert!(
            e.contains("--sr 10:5:1") && e.contains("end 5 is below the start 10"),
            "{e}"
        );
        let e = err(Param::Sr, "10:50:0");
        assert!(e.contains("step must be positive"), "{e}");
        let e = err(Param::Lr, "0.1:1:-0.1");
        assert!(e.contains("step must be positive"), "{e}");
        let e = err(Param::Lr, "1:2");
        assert!(e.contains("A:B:STEP") && e.contains("2 fields"), "{e}");
        let e = err(Param::Lp, "a:2:1");
        assert!(e.contains("start A `a` is not a number"), "{e}");
        let e = err(Param::Lp, "abc");
        assert!(e.contains("`abc` is not a number"), "{e}");
        let e = err(Param::Sr, "2.5");
        assert!(e.contains("whole number"), "{e}");
        let e = err(Param::Steps, "10:20:2.5");
        assert!(e.contains("whole number"), "{e}");
        let e = err(Param::Lr, "0.00001:1:0.00001");
        assert!(e.contains("at most"), "{e}");
        // Every value within the engine's bounds, single or in a range (a range's 0 steps ran
        // and gave rows; a single out-of-range value said only "nothing to sweep").
        for (p, text, says) in [
            (Param::Steps, "0:100:50", "0 is out of range"),
            (Param::Steps, "4294967296", "4294967296 is out of range"),
            (
                Param::Lr,
                "-1",
                "-1 is out of range: lr must be in (0, 1000]",
            ),
            (Param::Ratio, "0", "out of range"),
            (Param::Lr, "0.1:1e300:1", "1e300 values; at most"),
            (Param::Sr, "0:3000000:1000", "1001000 is out of range"),
        ] {
            let e = err(p, text);
            assert!(e.contains(says) && e.len() < 200, "{text}: {e}");
        }
        let e = err(Param::Lr, "inf");
        assert!(e.contains("finite"), "{e}");
    }

    #[test]
    fn baselines_parse() {
        let b = parse_baseline("lr=1, lp=1,sr=0").unwrap();
        assert_eq!(
            b,
            vec![(Param::Lr, 1.0), (Param::Lp, 1.0), (Param::Sr, 0.0)]
        );
        assert!(parse_baseline("lr")
            .unwrap_err()
            .to_string()
            .contains("KEY=VALUE"));
        assert!(parse_baseline("steps=3")
            .unwrap_err()
            .to_string()
            .contains("unknown key"));
        assert!(parse_baseline("sr=1:5:1")
            .unwrap_err()
            .to_string()
            .contains("one value"));
        assert!(parse_baseline("sr=1,sr=2")
            .unwrap_err()
            .to_string()
            .contains("twice"));
    }
}
