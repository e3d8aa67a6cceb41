//! GPU plumbing shared by every kernel, and nothing about any algorithm: opening an adapter,
//! buffers and read-back, pipelines with named bindings, the `const` prelude written before each
//! kernel, a per-device cache of compiled kernels, and the loop budget that sizes dispatches.

mod buffers;
pub use buffers::{Lent, Reading};
mod context;
pub mod layout;
mod pipeline;
mod prelude;

pub use context::{adapter_index, describe, list_adapters, Gpu};
pub use pipeline::{grid_2d, Access, Binding, BoundsChecks, Pipeline};
pub use prelude::Prelude;

/// Most loop passes (loop back-edge evaluations, over all loops of a kernel) one invocation may
/// make in one dispatch. Mesa's llvmpipe/lavapipe (gallivm) counts every loop pass of a group of
/// invocations in one counter shared by all loops, starting at 65,535 per dispatch
/// (`LP_MAX_TGSI_LOOP_ITERATIONS`), and when it reaches 0 every loop of that group exits at its
/// next back-edge: the rest of the dispatch silently does not happen. Kernels that loop over
/// many steps in one dispatch (RFSS generations, ILCA time-steps) size their dispatches with
/// [`rounds_within_loop_budget`] so that they stay below this budget (65,535 less a margin), on
/// every adapter, so that results never depend on the driver. Real GPUs have no such counter.
/// See docs/GPU.md and docs/RFSS.md, "Loop budget per dispatch".
pub const LOOP_PASS_BUDGET: u64 = 60_000;

/// Most rounds (time-steps, generations) of a kernel's main loop one dispatch may run, when one
/// invocation makes at most `per_round` loop passes per round and at most `fixed` more in the
/// whole dispatch (loops before and after the main loop, and the main loop's exit test): the
/// largest k with `fixed + k · per_round ≤ LOOP_PASS_BUDGET`; 0 when not even one round fits.
pub fn rounds_within_loop_budget(per_round: u64, fixed: u64) -> u64 {
    LOOP_PASS_BUDGET.saturating_sub(fixed) / per_round.max(1)
}
