//! ILCA parameters on the command line, shared by every subcommand that runs ILCA (batch, trace,
//! bench, sweep). Defaults are `IlcaParams::default()`'s, written once there.

use super::args::choice;
use gpu_sudoku::ilca::{Compare, IlcaParams, ResetCheck, TieBreak};

fn defaults() -> IlcaParams {
    IlcaParams::default()
}

#[derive(clap::Args, Debug, Clone)]
pub struct IlcaArgs {
    /// Maximum time-steps per run (the paper: 250).
    #[arg(long, default_value_t = defaults().steps)]
    pub steps: u32,
    /// Reward learning rate lr: r = 1 + d/|N|·lr (Eq. 8; 1 = Algorithm 1).
    #[arg(long, default_value_t = defaults().lr, allow_hyphen_values = true)]
    pub lr: f64,
    /// Penalty learning rate lp: p = 1 − (1 − d/|N|)·lp (Eq. 9; 1 = Algorithm 1).
    #[arg(long, default_value_t = defaults().lp, allow_hyphen_values = true)]
    pub lp: f64,
    /// Selective reset every SR steps (Algorithm 3); 0 = off.
    #[arg(long, default_value_t = defaults().sr)]
    pub sr: u32,
    #[command(flatten)]
    pub fixed: IlcaFixedArgs,
}

/// The ILCA options that `sweep` never varies (shared by batch, trace, bench and sweep).
#[derive(clap::Args, Debug, Clone)]
pub struct IlcaFixedArgs {
    /// Full restart (every free cell back to its initial weights) every RESTART steps; 0 = off.
    /// Not in the paper (improved variant).
    #[arg(long, default_value_t = defaults().restart)]
    pub restart: u32,
    /// Smallest penalty factor (Eq. 9 gives p ≤ 0 for small degrees when lp > 1).
    #[arg(long, default_value_t = defaults().penalty_floor, allow_hyphen_values = true)]
    pub penalty_floor: f64,
    /// Which neighbours' degrees a conflicted cell must beat to be rewarded.
    #[arg(long, value_parser = choice::<Compare>(), default_value_t = defaults().compare)]
    pub compare: Compare,
    /// Tie-breaking of the argmax among digits of equal weight.
    #[arg(long, value_parser = choice::<TieBreak>(), default_value_t = defaults().tie)]
    pub tie: TieBreak,
    /// When a row/column/box counts as resolved for the selective reset.
    #[arg(long, value_parser = choice::<ResetCheck>(), default_value_t = defaults().reset_check)]
    pub reset_check: ResetCheck,
    /// Seed of the counter-based random draws.
    #[arg(long, default_value_t = defaults().seed)]
    pub seed: u64,
}

impl IlcaFixedArgs {
    /// `p` with these options set (the swept or per-command ones left as they are).
    pub fn apply(&self, p: IlcaParams) -> IlcaParams {
        IlcaParams {
            restart: self.restart,
            penalty_floor: self.penalty_floor,
            compare: self.compare,
            tie: self.tie,
            reset_check: self.reset_check,
            seed: self.seed,
            ..p
        }
    }
}

impl IlcaArgs {
    /// The options whose value differs from the default (for commands that run another
    /// algorithm and must refuse them rather than ignore them).
    pub fn changed(&self) -> Vec<&'static str> {
        let d = defaults();
        let f = &self.fixed;
        [
            (self.steps != d.steps, "--steps"),
            (self.lr != d.lr, "--lr"),
            (self.lp != d.lp, "--lp"),
            (self.sr != d.sr, "--sr"),
            (f.restart != d.restart, "--restart"),
            (f.penalty_floor != d.penalty_floor, "--penalty-floor"),
            (f.compare != d.compare, "--compare"),
            (f.tie != d.tie, "--tie"),
            (f.reset_check != d.reset_check, "--reset-check"),
            (f.seed != d.seed, "--seed"),
        ]
        .into_iter()
        .filter_map(|(c, name)| c.then_some(name))
        .collect()
    }

    /// The parameters, validated (clear errors for zero, negative or out-of-range values).
    pub fn params(&self) -> anyhow::Result<IlcaParams> {
        let p = self.fixed.apply(IlcaParams {
            steps: self.steps,
            lr: self.lr,
            lp: self.lp,
            sr: self.sr,
            ..defaults()
        });
        p.validate()?;
        Ok(p)
    }
}
