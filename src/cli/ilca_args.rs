//! ILCA parameters on the command line, shared by every subcommand that runs ILCA.

use crate::ilca::{Compare, IlcaParams, ResetCheck, TieBreak};

#[derive(clap::Args, Debug, Clone)]
pub struct IlcaArgs {
    /// Maximum time-steps per run.
    #[arg(long, default_value_t = 250)]
    pub steps: u32,
    /// Reward learning rate lr (Eq. 8): r = 1 + d/|N|·lr.
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    pub lr: f64,
    /// Penalty learning rate lp (Eq. 9): p = 1 − (1 − d/|N|)·lp.
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    pub lp: f64,
    /// Selective probability reset every SR steps (0 = off).
    #[arg(long, default_value_t = 0)]
    pub sr: u32,
    /// Smallest penalty factor (Eq. 9 gives p ≤ 0 for small degrees when lp > 1).
    #[arg(long, default_value_t = 0.001, allow_negative_numbers = true)]
    pub penalty_floor: f64,
    /// Whose degrees a conflicted cell must beat to be rewarded.
    #[arg(long, value_enum, default_value_t = Compare::Sharing)]
    pub compare: Compare,
    /// Tie-breaking of the argmax.
    #[arg(long, value_enum, default_value_t = TieBreak::Random)]
    pub tie: TieBreak,
    /// When a row/column/box counts as resolved for the reset.
    #[arg(long, value_enum, default_value_t = ResetCheck::Permutation)]
    pub reset_check: ResetCheck,
    /// Seed of the counter-based random draws.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl IlcaArgs {
    /// The parameters, validated.
    pub fn params(&self) -> anyhow::Result<IlcaParams> {
        let p = IlcaParams {
            steps: self.steps,
            lr: self.lr,
            lp: self.lp,
            sr: self.sr,
            penalty_floor: self.penalty_floor,
            compare: self.compare,
            tie: self.tie,
            reset_check: self.reset_check,
            seed: self.seed,
        };
        p.validate()?;
        Ok(p)
    }
}
