//! A request to stop early, for callers that cannot simply kill the process: Python's Ctrl-C
//! while the engine runs with the interpreter released. The engines poll it between units of
//! work (an instance on the CPU, a submission on the GPU); a job that sees it drops the chunk in
//! hand, so nothing half-done reaches a journal or a report, and returns [`Interrupted`].
//!
//! It is one flag for the whole process, as the signal it stands for is.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// The error of work stopped by [`request`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted")
    }
}

impl std::error::Error for Interrupted {}

/// Asks every running engine to stop at its next check.
pub fn request() {
    REQUESTED.store(true, Ordering::Relaxed);
}

/// Whether a stop was asked for (and not yet [`clear`]ed).
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// Forgets a stop request, before new work starts.
pub fn clear() {
    REQUESTED.store(false, Ordering::Relaxed);
}

/// `Err(Interrupted)` once a stop was asked for.
pub fn check() -> Result<(), Interrupted> {
    if requested() {
        Err(Interrupted)
    } else {
        Ok(())
    }
}
