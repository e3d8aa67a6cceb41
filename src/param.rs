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
