use gpu_sudoku::puzzle::parse_str;
use gpu_sudoku::rfss::{cpu, Problem, RfssParams};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let line = &args[1];
    let maxg: u32 = args.get(2).map(|s| s.parse().unwrap()).unwrap_or(50_000);
    let g = parse_str(line, None).unwrap().remove(0).grid;
    let params = RfssParams {
        max_generations: maxg,
        stable_generations: 1,
        ..Default::default()
    };
    let prob = Problem::build(&g).unwrap();
    println!(
        "species {} resources {} blanks {}",
        prob.n_species(),
        prob.n_res,
        prob.n_blank()
    );
    let mut e = cpu::Engine::new(prob, &params);
    let t = std::time::Instant::now();
    while !e.st.done {
        e.step(&params);
        if e.st.generation % 5000 == 0 {
            let mx = e.p.iter().cloned().fold(0f32, f32::max);
            let mn =
                e.p.iter()
                    .cloned()
                    .filter(|&v| v > 0.0)
                    .fold(1f32, f32::min);
            let dead = e.p.iter().filter(|&&v| v == 0.0).count();
            println!(
                "gen {} conflicts {} unchanged {} max {mx:e} min>0 {mn:e} dead {dead}",
                e.st.generation, e.st.conflicts, e.st.unchanged
            );
        }
    }
    println!(
        "done gen {} conflicts {} streak_start {} in {:?}",
        e.st.generation,
        e.st.conflicts,
        e.st.streak_start,
        t.elapsed()
    );
}
