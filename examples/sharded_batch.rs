// A sharded, resumable ILCA batch on every GPU adapter (the CPU when there is none), through
// the library: the same job `gpu-sudoku batch FILE --shard K/N --json REPORT --resume` runs.
//
//     cargo run --release --example sharded_batch -- puzzles/evil.txt 1/2 evil-1.json
use gpu_sudoku::job::{self, batch, devices};
use gpu_sudoku::{backend::Backend, ilca::IlcaParams, puzzle, report::batch::Summary};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, shard, report] = &args[..] else {
        anyhow::bail!("usage: sharded_batch PUZZLES K/N REPORT.json");
    };
    let file = puzzle::read_puzzles(path, None)?;
    let mut request = batch::Request::ilca(vec![file], IlcaParams::default(), 10);
    request.shard = Some(shard.parse().map_err(anyhow::Error::msg)?);
    let plan = batch::Plan::new(&request)?;
    let (devices, _) =
        devices::open(Backend::Gpu, Some("all")).or_else(|_| devices::open(Backend::Cpu, None))?;
    // The journal beside the report holds finished chunks: after a kill, run it again.
    let keep = job::Keep::for_reports(&[report.as_str()], true);
    let done = batch::run(&plan, &devices, &keep, &job::Quiet)?;
    let s = Summary::overall(&done.files);
    println!(
        "{path}: {}/{} solved ({:.1}%)",
        s.solved, s.instances, s.solved_pct
    );
    done.write_json(&mut std::fs::File::create(report)?)?;
    done.finish()
}
