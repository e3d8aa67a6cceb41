//! RFSS parameters on the command line, shared by every subcommand that runs RFSS (`rfss`,
//! `batch --algo rfss`, `trace --algo rfss`). The values are optional so that a command running
//! another algorithm can refuse them instead of silently ignoring them.

use super::args::choice;
use anyhow::{bail, Result};
use gpu_sudoku::rfss::{Enhancement, RfssParams, Underflow};

#[derive(clap::Args, Debug, Clone, Default)]
pub struct RfssArgs {
    /// RFSS: generation limit per puzzle [default: 100000].
    #[arg(long, value_name = "N")]
    pub max_generations: Option<u32>,
    /// RFSS: the read-off must stay the same valid grid this many generations before the run
    /// stops [default: 100].
    #[arg(long, value_name = "N")]
    pub stable_generations: Option<u32>,
    /// RFSS: what happens to proportions below 2^-underflow-log2: extinct (set to 0) or floor
    /// (held) [default: extinct].
    #[arg(long, value_parser = choice::<Underflow>())]
    pub underflow: Option<Underflow>,
    /// RFSS: exponent k of the underflow threshold 2^-k, 10..=120 [default: 100].
    #[arg(long, value_name = "K")]
    pub underflow_log2: Option<u32>,
    /// RFSS: enhancement beyond the paper: `propagate` (forced placements, a decision on RFSS's
    /// most trusted species at each stall, backtracking), `mrv` (the same, deciding on a cell
    /// with the fewest candidates, numerals ordered by RFSS), `logic` (`mrv` with locked
    /// candidates and naked and hidden subsets at every node) or `lookahead` (`logic` with
    /// failed-literal probes of two-candidate cells, deciding on the best-probed cell; the
    /// strongest on 25x25); `logic` and `lookahead` are best with --stall-generations 50 on
    /// 25x25 [default: off].
    #[arg(long, value_parser = choice::<Enhancement>())]
    pub enhance: Option<Enhancement>,
    /// RFSS with --enhance: generations an invalid read-off must stay unchanged before a
    /// decision (with `lookahead`, also once one node has run 20 times this many generations
    /// with its read-off still invalid) [default: 300].
    #[arg(long, value_name = "N")]
    pub stall_generations: Option<u32>,
}

impl RfssArgs {
    /// The parameters (defaults for what was not given), validated.
    pub fn params(&self) -> Result<RfssParams> {
        let d = RfssParams::default();
        let p = RfssParams {
            max_generations: self.max_generations.unwrap_or(d.max_generations),
            stable_generations: self.stable_generations.unwrap_or(d.stable_generations),
            underflow: self.underflow.unwrap_or(d.underflow),
            underflow_log2: self.underflow_log2.unwrap_or(d.underflow_log2),
            enhancement: self.enhance.unwrap_or(d.enhancement),
            stall_generations: self.stall_generations.unwrap_or(d.stall_generations),
        };
        if self.stall_generations.is_some() && p.enhancement == Enhancement::Off {
            bail!(
                "--stall-generations applies with --enhance only (plain RFSS takes no \
                 decisions): add --enhance propagate, mrv, logic or lookahead, or leave it out"
            );
        }
        p.validate()?;
        Ok(p)
    }

    /// Fails when any RFSS option was given to a command that runs `algo` instead.
    pub fn refuse_for(&self, algo: &str) -> Result<()> {
        let given: Vec<&str> = [
            (self.max_generations.is_some(), "--max-generations"),
            (self.stable_generations.is_some(), "--stable-generations"),
            (self.underflow.is_some(), "--underflow"),
            (self.underflow_log2.is_some(), "--underflow-log2"),
            (self.enhance.is_some(), "--enhance"),
            (self.stall_generations.is_some(), "--stall-generations"),
        ]
        .into_iter()
        .filter_map(|(g, name)| g.then_some(name))
        .collect();
        if !given.is_empty() {
            bail!(
                "{} {} only to --algo rfss, not to --algo {algo}",
                given.join(", "),
                if given.len() == 1 { "applies" } else { "apply" }
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_validation_and_refusal() {
        let a = RfssArgs::default();
        assert_eq!(a.params().unwrap(), RfssParams::default());
        a.refuse_for("ilca").unwrap();
        let b = RfssArgs {
            max_generations: Some(0),
            enhance: Some(Enhancement::Propagate),
            ..Default::default()
        };
        let e = b.params().unwrap_err();
        assert_eq!(
            super::super::args::explain(&e),
            "--max-generations: must be at least 1 (got 0)"
        );
        let e = b.refuse_for("ilca").unwrap_err().to_string();
        assert!(
            e.contains("--max-generations, --enhance apply only to --algo rfss"),
            "{e}"
        );
    }
}
