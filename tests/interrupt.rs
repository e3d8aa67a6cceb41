//! A stop request (`gpu_sudoku::interrupt`, Python's Ctrl-C) ends every engine with
//! `Interrupted` and keeps nothing of the work cut short. Its own test binary: the request is
//! one flag for the whole process, and would stop the tests running beside it.

mod common;

use gpu_sudoku::backend::Device;
use gpu_sudoku::ilca::{run, Batch, IlcaParams};
use gpu_sudoku::interrupt::{self, Interrupted};
use gpu_sudoku::job::{self, batch};
use gpu_sudoku::puzzle::{parse_str, PuzzleFile};
use gpu_sudoku::rfss::{self, RfssParams};

/// The stop request is one flag for the process: its tests take turns.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn is_interrupted<T>(r: anyhow::Result<T>) -> bool {
    r.err()
        .is_some_and(|e| e.chain().any(|c| c.downcast_ref::<Interrupted>().is_some()))
}

#[test]
fn a_stop_request_ends_every_engine_and_keeps_no_chunk() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let puzzles = vec![common::grid(common::CLASSIC); 4];
    let params = IlcaParams::default();
    let ilca = Batch::runs(&puzzles, &params, 8);
    let rfss_params = RfssParams::default();
    let mut devices = vec![Device::Cpu];
    if let Some(g) = common::gpu() {
        devices.push(Device::Gpu(Box::new(g.clone())));
    }

    interrupt::request();
    for device in &devices {
        let name = device.name();
        assert!(
            is_interrupted(run::run(device, &ilca, &|_| {})),
            "ILCA on {name}"
        );
        let r = rfss::run::run(device, &puzzles, &rfss_params, &|_| {});
        assert!(is_interrupted(r), "RFSS on {name}");
    }
    // A job: an error, and its journal beside the report holds no chunk to resume from.
    let dir = tempfile_dir();
    let report = dir.join("r.json");
    let file = PuzzleFile {
        path: "classic".into(),
        b: 3,
        puzzles: parse_str(common::CLASSIC, None).unwrap(),
        header: Vec::new(),
    };
    let request = batch::Request::ilca(vec![file], params.clone(), 4);
    let plan = batch::Plan::new(&request).unwrap();
    let keep = job::Keep {
        records: true,
        beside: Some(report.clone()),
        resume: false,
    };
    let r = batch::run(&plan, &[Device::Cpu], &keep, &job::Quiet);
    assert!(is_interrupted(r));
    interrupt::clear();
    let keep = job::Keep {
        resume: true,
        ..keep
    };
    let resumed = batch::run(&plan, &[Device::Cpu], &keep, &job::Quiet).unwrap();
    let fresh = batch::run(&plan, &[Device::Cpu], &job::Keep::default(), &job::Quiet).unwrap();
    // Cut-short instances would count 0 steps: the resumed run is the whole run.
    let (a, b) = (&resumed.files[0].tally, &fresh.files[0].tally);
    assert_eq!(
        (a.instances, a.instance_steps),
        (b.instances, b.instance_steps)
    );
    assert_eq!(a.instances, 4);
    let _ = std::fs::remove_dir_all(dir);
}

fn tempfile_dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("gpu-sudoku-interrupt-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A stop request that comes while a chunk's results wait on the GPU (requested from the
/// progress callback, between chunks) ends the batch, and the device's next batch, which reuses
/// its buffers, still gives the CPU's results: no buffer left mapped goes back to the pool.
#[test]
fn a_stop_between_chunks_leaves_the_device_usable() {
    use gpu_sudoku::ilca::{cpu, gpu as gpu_ilca};
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if common::gpu().is_none() {
        return;
    }
    let gpu = gpu_sudoku::gpu::Gpu::open(None).unwrap();
    let puzzles = vec![common::grid(common::CLASSIC); 3];
    let params = IlcaParams {
        steps: 30,
        ..Default::default()
    };
    let batch = Batch::runs(&puzzles, &params, 4);
    let opts = gpu_ilca::GpuOptions {
        max_chunk: 4,
        ..Default::default()
    };
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let stop_at_first = |_: usize| {
        if calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
            interrupt::request();
        }
    };
    let r = gpu_ilca::run(&gpu, &batch, &opts, &stop_at_first);
    interrupt::clear();
    assert!(is_interrupted(r));
    assert!(calls.into_inner() >= 1);
    let again = gpu_ilca::run(&gpu, &batch, &opts, &|_| {}).unwrap();
    assert_eq!(again, cpu::run(&batch, &|_| {}));
}
