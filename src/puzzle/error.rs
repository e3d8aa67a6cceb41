//! Errors in puzzle files: [`ParseError`], placed at file:line:column, and [`At`], the line
//! every reader builds its errors on. The readers (`lines`, `rows`, `csv`, `parse`) all import
//! from here, so none of them depends on another for its error type.

use std::fmt;

/// A problem in a puzzle file, with its place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub file: String,
    /// 1-based line (0 when the problem is the file as a whole, e.g. unreadable).
    pub line: usize,
    /// 1-based column (characters), when one place on the line is at fault.
    pub column: Option<usize>,
    pub message: String,
}

impl ParseError {
    /// An error about the file as a whole.
    pub(super) fn whole(file: &str, message: impl Into<String>) -> ParseError {
        ParseError {
            file: file.to_string(),
            line: 0,
            column: None,
            message: message.into(),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (0, _) => write!(f, "{}: {}", self.file, self.message),
            (l, None) => write!(f, "{}:{}: {}", self.file, l, self.message),
            (l, Some(c)) => write!(f, "{}:{}:{}: {}", self.file, l, c, self.message),
        }
    }
}

impl std::error::Error for ParseError {}

/// A line of a file, for building errors placed on it.
pub(super) struct At<'a> {
    pub file: &'a str,
    pub line: usize,
}

impl At<'_> {
    pub fn err(&self, column: Option<usize>, message: impl Into<String>) -> ParseError {
        ParseError {
            file: self.file.to_string(),
            line: self.line,
            column,
            message: message.into(),
        }
    }
}
