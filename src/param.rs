//! Errors for parameter values outside their range. The library names the parameter by its
//! field name and says what is wrong with the value; the command line maps the name to its flag.

use std::fmt;

/// A parameter whose value is not allowed: `param` is the field's name (`sr`, `max_generations`),
/// `problem` says what is wrong with the value and what would be right.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamError {
    pub param: &'static str,
    pub problem: String,
}

impl ParamError {
    pub fn new(param: &'static str, problem: impl Into<String>) -> ParamError {
        ParamError {
            param,
            problem: problem.into(),
        }
    }
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.param, self.problem)
    }
}

impl std::error::Error for ParamError {}

/// `x` as a message shows it: plainly, or in exponent form when that would take more than a
/// line's worth of digits (`1e30`, `1e-300`, not thirty zeros).
pub fn show(x: f64) -> String {
    if x != 0.0 && x.is_finite() && !(1e-5..1e16).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

/// `Err(ParamError)` unless `ok`.
pub fn check(
    ok: bool,
    param: &'static str,
    problem: impl FnOnce() -> String,
) -> Result<(), ParamError> {
    if ok {
        Ok(())
    } else {
        Err(ParamError::new(param, problem()))
    }
}

/// The longest wall-clock limit a command takes: 2^32 − 1 seconds (136 years).
pub const MAX_TIME_LIMIT_S: u64 = u32::MAX as u64;

/// A wall-clock limit as the command line writes every one of them (`--time-limit`): a number
/// with a unit, `500ms`, `20s`, `2m`, `1.5h`; a bare number is seconds; 0 (in any unit) is no
/// limit, which gives None.
pub fn parse_time_limit(text: &str) -> Result<Option<std::time::Duration>, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let seconds_per = match unit.trim() {
        "" | "s" => 1.0,
        "ms" => 1e-3,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        other => {
            return Err(format!(
                "`{text}`: unknown unit `{other}`; give a duration such as 500ms, 20s, 2m or 1h \
                 (a bare number is seconds; 0 is no limit)"
            ))
        }
    };
    let x: f64 = number
        .parse()
        .ok()
        .filter(|x: &f64| x.is_finite())
        .ok_or_else(|| {
            format!(
                "`{text}` is not a duration: give one such as 500ms, 20s, 2m or 1h (0 is no limit)"
            )
        })?;
    let seconds = x * seconds_per;
    if seconds > MAX_TIME_LIMIT_S as f64 {
        return Err(format!(
            "`{text}` is too long: at most {MAX_TIME_LIMIT_S} seconds, or 0 for no limit"
        ));
    }
    let d = std::time::Duration::from_secs_f64(seconds);
    Ok((!d.is_zero()).then_some(d))
}

/// A wall-clock limit in whole milliseconds, a part of one counted as one, as reports record
/// budgets (`budget_ms`); 0 is no limit.
pub fn time_limit_millis(limit: Option<std::time::Duration>) -> u64 {
    limit.map_or(0, |d| {
        let ms = d.as_millis() + u128::from(d.subsec_nanos() % 1_000_000 != 0);
        u64::try_from(ms).unwrap_or(u64::MAX)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn time_limits_take_units() {
        let ok = |t: &str| parse_time_limit(t).unwrap();
        assert_eq!(ok("2s"), Some(Duration::from_secs(2)));
        assert_eq!(ok("500ms"), Some(Duration::from_millis(500)));
        assert_eq!(ok("2m"), Some(Duration::from_secs(120)));
        assert_eq!(ok("1.5h"), Some(Duration::from_secs(5400)));
        assert_eq!(ok("60"), Some(Duration::from_secs(60)));
        assert_eq!(ok("0.25"), Some(Duration::from_millis(250)));
        assert_eq!(ok("0"), None);
        assert_eq!(ok("0ms"), None);
        for bad in [
            "",
            "s",
            "2 days",
            "-1s",
            "1e3",
            "inf",
            "1.2.3s",
            "5000000000",
        ] {
            let e = parse_time_limit(bad).unwrap_err();
            assert!(e.contains(bad), "{bad}: {e}");
        }
        assert!(parse_time_limit("2d")
            .unwrap_err()
            .contains("unknown unit `d`"));
        assert!(parse_time_limit("5000000000")
            .unwrap_err()
            .contains("too long"));
        assert_eq!(time_limit_millis(ok("2s")), 2000);
        assert_eq!(time_limit_millis(ok("0.0001")), 1);
        assert_eq!(time_limit_millis(None), 0);
    }
}
