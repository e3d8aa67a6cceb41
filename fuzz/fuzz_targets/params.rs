//! Fuzz target: the parameter checks of ILCA and RFSS. Whatever the values, `validate` says
//! yes or no without panicking, and what it accepts is safe for the engines: finite factor
//! tables with rewards ≥ 1 and penalties in [0, 1] at every grid size, a normal threshold.
#![no_main]

use gpu_sudoku::ilca::{Compare, IlcaParams, ResetCheck, TieBreak};
use gpu_sudoku::puzzle::{Geometry, MAX_BOX, MIN_BOX};
use gpu_sudoku::rfss::{Enhancement, RfssParams, Underflow};
use libfuzzer_sys::fuzz_target;

/// Values read from the front of the input, zero when it runs out.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        let k = N.min(self.0.len());
        out[..k].copy_from_slice(&self.0[..k]);
        self.0 = &self.0[k..];
        out
    }
    fn u8(&mut self) -> u8 {
        self.take::<1>()[0]
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }
    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take())
    }
    fn f64(&mut self) -> f64 {
        f64::from_bits(self.u64())
    }
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    let ilca = IlcaParams {
        steps: b.u32(),
        lr: b.f64(),
        lp: b.f64(),
        sr: b.u32(),
        restart: b.u32(),
        penalty_floor: b.f64(),
        compare: [Compare::Sharing, Compare::Free, Compare::All][b.u8() as usize % 3],
        tie: [TieBreak::Random, TieBreak::First, TieBreak::Keep][b.u8() as usize % 3],
        reset_check: [ResetCheck::Permutation, ResetCheck::Sum][b.u8() as usize % 2],
        seed: b.u64(),
    };
    if ilca.validate().is_ok() {
        assert!(ilca.steps >= 1 && ilca.sr <= ilca.steps && ilca.restart <= ilca.steps);
        for bx in MIN_BOX..=MAX_BOX {
            let peers = Geometry::get(bx).n_peers;
            let (reward, penalty) = ilca.factor_tables(peers);
            assert_eq!((reward.len(), penalty.len()), (peers + 1, peers + 1));
            for (d, (&r, &p)) in reward.iter().zip(&penalty).enumerate() {
                assert!(r.is_finite() && r >= 1.0, "{ilca:?}: r({d}) = {r}");
                assert!((0.0..=1.0).contains(&p), "{ilca:?}: p({d}) = {p}");
            }
        }
    }
    let rfss = RfssParams {
        max_generations: b.u32(),
        stable_generations: b.u32(),
        underflow: [Underflow::Extinct, Underflow::Floor][b.u8() as usize % 2],
        underflow_log2: b.u32(),
        enhancement: [Enhancement::Off, Enhancement::Propagate, Enhancement::Mrv]
            [b.u8() as usize % 3],
        stall_generations: b.u32(),
    };
    if rfss.validate().is_ok() {
        let t = rfss.threshold();
        assert!(t.is_normal() && t > 0.0, "{rfss:?}: threshold {t}");
        assert_eq!(t, 2f32.powi(-(rfss.underflow_log2 as i32)));
    }
});
