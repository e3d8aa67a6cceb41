use super::*;
use crate::puzzle::parse_str;

pub(crate) const CLASSIC: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
pub(crate) const HARD: &str =
    "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......";

pub(crate) fn grid(s: &str) -> Grid {
    parse_str(s, None).unwrap().remove(0).grid
}

#[test]
fn gpu_smoke() {
    let Some(gpu) = crate::gpu::gpu_for_tests() else {
        return;
    };
    let params = RfssParams {
        max_generations: 300,
        stable_generations: 5,
        ..Default::default()
    };
    let ps = vec![grid(CLASSIC), grid(HARD)];
    let t = std::time::Instant::now();
    let c = run_cpu(&ps, &params).unwrap();
    eprintln!("cpu {:?}", t.elapsed());
    let t = std::time::Instant::now();
    let g = gpu::run_detailed(gpu, &ps, &params, &mut |_, _| {}).unwrap();
    eprintln!("gpu {:?}", t.elapsed());
    for (a, (b, _)) in c.iter().zip(&g) {
        eprintln!("{a:?}\n{b:?}");
        assert_eq!(a, b);
    }
}
