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
