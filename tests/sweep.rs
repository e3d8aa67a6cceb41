//! Sweeps and figures end to end on small cases: the sweep's numbers against separate
//! `cpu::run` calls (step limits included), CPU against GPU, the CLI's files (CSV, PNG,
//! SVG), interruption and resume, trace and line pictures, and clear errors for bad input.

mod common;
use gpu_sudoku::backend::Device;
use gpu_sudoku::ilca::{cpu, Batch, IlcaParams};
use gpu_sudoku::plot::{save, IlcaTrace, ProbabilityPanel, TraceGrids};
use gpu_sudoku::puzzle::{parse_str, Grid};
use gpu_sudoku::rng::hash32;
use gpu_sudoku::sweep::{
    parse_csv, Group, Input, Param, Plan, Role, Row, Sweep, SweepSpec, Values,
};
use std::path::{Path, PathBuf};
use std::process::Command;

const CLASSIC: &str =
    "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

/// A valid complete 9x9 grid (a shifted pattern) with a fraction `blank` of its cells blanked
/// by a hash of `salt`; returned in the one-line format with its `d=` field.
fn pattern_line(blank: f64, salt: u32) -> String {
    let (b, n) = (3, 9);
    let mut s = String::new();
    let mut blanks = 0;
    for r in 0..n {
        for c in 0..n {
            let v = (b * (r % b) + r / b + c) % n + 1;
            let h = hash32(salt.wrapping_mul(7919) ^ (r * n + c) as u32);
            if (h as f64 / u32::MAX as f64) < blank {
                s.push('.');
                blanks += 1;
            } else {
                s.push(char::from(b'0' + v as u8));
            }
        }
    }
    format!("{s}  d={:.4}", blanks as f64 / 81.0)
}

/// Two small tiers: "easy" (the classic puzzle and two light ones), "hard" (three heavy ones).
fn tier_files(dir: &Path) -> Vec<String> {
    std::fs::create_dir_all(dir).unwrap();
    let easy = format!(
        "# easy test tier\n{CLASSIC}  d=0.6296\n{}\n{}\n",
        pattern_line(0.3, 1),
        pattern_line(0.4, 2)
    );
    let hard = format!(
        "{}\n{}\n{}\n",
        pattern_line(0.55, 3),
        pattern_line(0.6, 4),
        pattern_line(0.65, 5)
    );
    let mut v = Vec::new();
    for (name, text) in [("easy", easy), ("hard", hard)] {
        let p = dir.join(format!("{name}.txt"));
        std::fs::write(&p, text).unwrap();
        v.push(p.display().to_string());
    }
    v
}

fn inputs(files: &[String]) -> Vec<Input> {
    files
        .iter()
        .map(|f| {
            let pf = gpu_sudoku::puzzle::read_puzzles(f, None).unwrap();
            Input::new(pf.label(), &pf.puzzles)
        })
        .collect()
}

fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("sweep-tests")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run_all(plan: &Plan, inputs: &[Input], runs: usize, device: &Device) -> Vec<Row> {
    let sw = Sweep {
        plan,
        inputs,
        runs,
        d_bin: 0.1,
    };
    sw.run_block(device, &plan.runs, &|_| {}).unwrap().concat()
}

/// What a sweep row should say, computed from a plain batch of the concatenated puzzles.
fn expected(
    all: &[Grid],
    sizes: &[usize],
    params: &IlcaParams,
    runs: usize,
) -> Vec<(usize, usize, Option<f64>)> {
    let res = cpu::run(&Batch::runs(all, params, runs), &|_| {});
    let mut out = Vec::new();
    let mut start = 0;
    for &k in sizes {
        let mine: Vec<_> = res
            .iter()
            .filter(|r| (start..start + k).contains(&r.puzzle))
            .collect();
        let solved: Vec<_> = mine.iter().filter(|r| r.solved).collect();
        let mean = (!solved.is_empty())
            .then(|| solved.iter().map(|r| r.steps as f64).sum::<f64>() / solved.len() as f64);
        out.push((mine.len(), solved.len(), mean));
        start += k;
    }
    out
}

fn concat(inputs: &[Input]) -> (Vec<Grid>, Vec<usize>) {
    let all: Vec<Grid> = inputs.iter().flat_map(|i| i.puzzles.clone()).collect();
    (all, inputs.iter().map(|i| i.puzzles.len()).collect())
}

fn file_rows<'a>(rows: &'a [Row], pred: impl Fn(&Row) -> bool + 'a) -> Vec<&'a Row> {
    rows.iter()
        .filter(|r| r.group == Group::File && pred(r))
        .collect()
}

#[test]
fn step_limit_sweep_equals_separate_runs() {
    let dir = tmp("steps");
    let inp = inputs(&tier_files(&dir));
    let (all, sizes) = concat(&inp);
    let base = IlcaParams {
        lr: 0.2,
        lp: 2.0,
        sr: 2,
        ..IlcaParams::default()
    };
    let spec = SweepSpec {
        values: [(Param::Steps, Values::Range(vec![2.0, 5.0, 8.0, 11.0, 14.0]))].into(),
        ..SweepSpec::default()
    };
    let plan = Plan::new(&spec, &base).unwrap();
    assert_eq!(plan.runs.len(), 1, "one run answers every step limit");
    let rows = run_all(&plan, &inp, 3, &Device::Cpu);
    let mut some_differ = false;
    let mut prev = None;
    for s in [2u32, 5, 8, 11, 14] {
        let params = IlcaParams {
            steps: s,
            ..base.clone()
        };
        let want = expected(&all, &sizes, &params, 3);
        let got = file_rows(&rows, |r| r.point.steps == s);
        assert_eq!(got.len(), 2);
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(
                (g.instances, g.solved, g.mean_steps_solved),
                *w,
                "steps {s}, {}",
                g.label
            );
        }
        let total: usize = want.iter().map(|w| w.1).sum();
        some_differ |= prev.is_some_and(|p| p != total);
        prev = Some(total);
    }
    assert!(some_differ, "the step limits should matter in this test");
    assert!(prev.unwrap() > 0, "something must be solved");
}

#[test]
fn ratio_sweep_rows_match_plain_batches() {
    let dir = tmp("ratio");
    let inp = inputs(&tier_files(&dir));
    let (all, sizes) = concat(&inp);
    let base = IlcaParams {
        steps: 40,
        ..IlcaParams::default()
    };
    let spec = SweepSpec {
        values: [
            (Param::Ratio, Values::Range(vec![5.0, 10.0, 15.0])),
            (Param::Lp, Values::One(2.0)),
        ]
        .into(),
        baseline: Some(vec![(Param::Lr, 1.0), (Param::Lp, 1.0)]),
    };
    let plan = Plan::new(&spec, &base).unwrap();
    let rows = run_all(&plan, &inp, 2, &Device::Cpu);
    for run in &plan.runs {
        let want = expected(&all, &sizes, &run.params, 2);
        let got = file_rows(&rows, |r| r.role == run.role && r.point.lr == run.params.lr);
        assert_eq!(got.len(), 2);
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(
                (g.instances, g.solved, g.mean_steps_solved),
                *w,
                "{:?}",
                run.params
            );
        }
        // The overall and the difficulty rows add up to the files'.
        let mine: Vec<&Row> = rows
            .iter()
            .filter(|r| r.role == run.role && r.point.lr == run.params.lr)
            .collect();
        let sum = |g: Group| -> (usize, usize, usize) {
            mine.iter()
                .filter(|r| r.group == g)
                .fold((0, 0, 0), |a, r| {
                    (a.0 + r.puzzles, a.1 + r.instances, a.2 + r.solved)
                })
        };
        assert_eq!(sum(Group::All), sum(Group::File));
        assert_eq!(sum(Group::D), sum(Group::File));
    }
    assert!(rows.iter().any(|r| r.role == Role::Baseline));
}

#[test]
fn gpu_sweep_equals_cpu_sweep() {
    let Some(gpu) = common::gpu() else { return };
    let dir = tmp("gpu");
    let inp = inputs(&tier_files(&dir));
    let base = IlcaParams {
        steps: 30,
        ..IlcaParams::default()
    };
    let spec = SweepSpec {
        values: [
            (Param::Sr, Values::Range(vec![0.0, 10.0, 20.0])),
            (Param::Steps, Values::Range(vec![15.0, 30.0])),
        ]
        .into(),
        ..SweepSpec::default()
    };
    let plan = Plan::new(&spec, &base).unwrap();
    let c = run_all(&plan, &inp, 2, &Device::Cpu);
    let g = run_all(&plan, &inp, 2, &Device::Gpu(Box::new(gpu.clone())));
    assert_eq!(c, g);
}

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gpu-sudoku"));
    c.env("XDG_RUNTIME_DIR", "/tmp");
    c
}

fn ok(c: &mut Command) -> String {
    let out = c.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{c:?} failed:\n{text}");
    text
}

fn fails(c: &mut Command) -> String {
    let out = c.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success(), "{c:?} should fail");
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// What [`assert_figure`] found in a figure file.
struct FigureFile {
    width: u32,
    height: u32,
    /// The texts of an SVG (titles, labels, legend entries); `None` for a PNG.
    texts: Option<Vec<String>>,
}

impl FigureFile {
    /// A text of the SVG contains `what`.
    fn says(&self, what: &str) -> bool {
        self.texts().iter().any(|t| t.contains(what))
    }

    /// A text of the SVG is exactly `what`.
    fn has_text(&self, what: &str) -> bool {
        self.texts().iter().any(|t| t == what)
    }

    fn texts(&self) -> &[String] {
        self.texts.as_deref().expect("an SVG figure")
    }
}

/// Checks a figure file: a PNG of a sensible size with a drawing on it (not blank, not one
/// colour flood: between 2% and 80% of its pixels non-white, at least 12 colours), or an SVG
/// of a sensible size with text and shapes.
fn assert_figure(p: &Path) -> FigureFile {
    let bytes = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let name = p.display();
    let sensible = |w: u32, h: u32| (500..=5000).contains(&w) && (300..=5000).contains(&h);
    if p.extension().unwrap() == "png" {
        let mut reader = png::Decoder::new(&bytes[..]).read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        let (w, h) = (info.width, info.height);
        assert!(sensible(w, h), "{name} is {w} x {h} pixels");
        assert_eq!(info.color_type, png::ColorType::Rgb, "{name}");
        let px: Vec<&[u8]> = buf[..info.buffer_size()].chunks(3).collect();
        let inked = px.iter().filter(|c| **c != [255, 255, 255]).count();
        let share = inked as f64 / px.len() as f64;
        assert!(
            (0.02..=0.8).contains(&share),
            "{name}: {:.1}% of the pixels are drawn on",
            100.0 * share
        );
        let colours: std::collections::HashSet<&[u8]> = px.iter().copied().collect();
        assert!(colours.len() >= 12, "{name}: {} colours", colours.len());
        FigureFile {
            width: w,
            height: h,
            texts: None,
        }
    } else {
        let s = String::from_utf8(bytes).unwrap();
        let attr = |a: &str| -> u32 {
            let head = &s[s.find("<svg").expect("an <svg> element")..];
            let at = head.find(&format!("{a}=\"")).unwrap() + a.len() + 2;
            let v = &head[at..];
            v[..v.find('"').unwrap()].parse().unwrap()
        };
        let (w, h) = (attr("width"), attr("height"));
        assert!(sensible(w, h), "{name} is {w} x {h}");
        let texts: Vec<String> = s
            .split("<text")
            .skip(1)
            .map(|t| {
                let body = &t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()];
                body.trim()
                    .replace("&amp;", "&")
                    .replace("&lt;", "<")
                    .replace("&gt;", ">")
            })
            .collect();
        let shapes: usize = [
            "<polyline",
            "<path",
            "<rect",
            "<polygon",
            "<circle",
            "<line",
        ]
        .iter()
        .map(|t| s.matches(t).count())
        .sum();
        assert!(
            texts.len() >= 8 && shapes >= 10,
            "{name}: {} texts, {shapes} shapes",
            texts.len()
        );
        FigureFile {
            width: w,
            height: h,
            texts: Some(texts),
        }
    }
}

#[test]
fn cli_sweep_writes_csv_and_figures_and_resumes() {
    let dir = tmp("cli");
    let files = tier_files(&dir);
    let csv = dir.join("s.csv");
    let figs = dir.join("figs");
    let sweep = |csv: &Path| {
        let mut c = bin();
        c.arg("sweep")
            .args(&files)
            .args(["--runs", "2", "--backend", "cpu", "--block", "1"])
            .args(["--ratio", "4:12:4", "--sr", "10:20:10", "--steps", "30"])
            .arg("--csv")
            .arg(csv);
        c
    };
    let text = ok(sweep(&csv)
        .arg("--plot-dir")
        .arg(&figs)
        .args(["--figure-format", "both"]));
    assert!(text.contains("best all"), "{text}");
    let written = std::fs::read_to_string(&csv).unwrap();
    let rows = parse_csv("s.csv", &written).unwrap();
    // Every row has the Wilson 95% interval of its rate, in percent, as the figures draw it
    // (and batch's and compare's JSON give it: `solved_pct_95`).
    let head: Vec<&str> = written.lines().next().unwrap().split(',').collect();
    let lo_at = head.iter().position(|&c| c == "solved_pct_95_lo").unwrap();
    assert_eq!(head[lo_at + 1], "solved_pct_95_hi");
    for (line, r) in written.lines().skip(1).zip(&rows) {
        let f: Vec<&str> = line.split(',').collect();
        let (lo, hi) = gpu_sudoku::report::stats::wilson95(r.solved, r.instances).unwrap();
        let want = [format!("{:.2}", 100.0 * lo), format!("{:.2}", 100.0 * hi)];
        assert_eq!(f[lo_at..lo_at + 2], want, "{line}");
    }
    // 3 ratios × 2 sr, each: 2 files + all + d bins.
    assert_eq!(file_rows(&rows, |_| true).len(), 12);
    assert_eq!(rows.iter().filter(|r| r.group == Group::All).count(), 6);
    for f in ["bands-ratio-sr", "surface-ratio-sr", "rate-vs-d-ratio-sr"] {
        for ext in ["png", "svg"] {
            assert_figure(&figs.join(format!("{f}.{ext}")));
        }
    }
    // Band maps name the best cell's setting and its interval; the surface figure has its
    // heat maps and both colour keys; the per-setting lines of the rate-vs-d plot are named.
    let bands = assert_figure(&figs.join("bands-ratio-sr.svg"));
    assert!(bands.says("at lp/lr = ") && bands.says("95% Wilson interval"));
    let surface = assert_figure(&figs.join("surface-ratio-sr.svg"));
    assert!(surface.says("heat maps: rate, %") && surface.says("Excellent [96, 100]"));
    assert!(surface.says("rate %") && surface.has_text("sr"));
    let by_d = assert_figure(&figs.join("rate-vs-d-ratio-sr.svg"));
    assert!(by_d.says("best: lp/lr = ") && by_d.says("worst: lp/lr = "));
    assert!(by_d.says("each of the other ") && by_d.says("bars: 95% interval"));
    // The same numbers as a plain batch for one setting.
    let inp = inputs(&files);
    let (all, sizes) = concat(&inp);
    let r = file_rows(&rows, |r| r.point.ratio == 8.0 && r.point.sr == 20);
    let params = IlcaParams {
        steps: 30,
        lr: r[0].point.lr,
        lp: 1.0,
        sr: 20,
        ..IlcaParams::default()
    };
    let want = expected(&all, &sizes, &params, 2);
    for (g, w) in r.iter().zip(&want) {
        assert_eq!((g.instances, g.solved, g.mean_steps_solved), *w);
    }

    // A CSV without the journal of an interrupted sweep beside it (here: the first rows of a
    // finished one, cut in the middle of a setting) is not resumed: which settings it holds
    // whole, and with which parameters, is unknown.
    let full = std::fs::read_to_string(&csv).unwrap();
    let per_setting = rows.len() / 6;
    let keep: Vec<&str> = full.lines().take(2 + per_setting).collect();
    let csv2 = dir.join("partial.csv");
    std::fs::write(&csv2, keep.join("\n") + "\n").unwrap();
    let e = fails(sweep(&csv2).arg("--resume"));
    assert!(
        e.contains("not the CSV of an interrupted sweep") && e.contains("drop --resume"),
        "{e}"
    );
    assert!(
        !dir.join("s.csv.partial.jsonl").exists(),
        "a finished sweep leaves no journal"
    );

    // Figures again from the CSV alone.
    let figs2 = dir.join("figs2");
    ok(bin()
        .arg("plot-sweep")
        .arg(&csv)
        .arg("--plot-dir")
        .arg(&figs2));
    assert_figure(&figs2.join("bands-ratio-sr.png"));
    // Without intervals.
    let figs3 = dir.join("figs3");
    ok(bin()
        .arg("plot-sweep")
        .arg(&csv)
        .args(["--no-intervals", "--figure-format", "svg", "--figures"])
        .arg(&figs3));
    for f in ["bands-ratio-sr", "surface-ratio-sr", "rate-vs-d-ratio-sr"] {
        let fig = assert_figure(&figs3.join(format!("{f}.svg")));
        assert!(!fig.says("interval"), "{f}");
    }
}

/// A sweep killed after some blocks continues with `--resume` to the CSV of an uninterrupted
/// run, whatever the CSV lost or kept of the block in flight; a resume with any other parameter
/// is refused, naming it.
#[test]
fn a_killed_sweep_resumes_only_with_the_same_parameters() {
    let dir = tmp("resume");
    let args = |csv: &Path| -> Vec<String> {
        let mut v: Vec<String> = ["sweep", "puzzles/hard.txt", "--runs", "2", "--steps", "200"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        v.extend(
            [
                "--backend",
                "cpu",
                "--chunk",
                "1",
                "--sr",
                "10:120:10",
                "--csv",
            ]
            .map(String::from),
        );
        v.push(csv.display().to_string());
        v
    };
    let whole = dir.join("whole.csv");
    ok(bin().args(args(&whole)));
    let want = std::fs::read_to_string(&whole).unwrap();
    let settings = 12;
    let per_setting = (want.lines().count() - 1) / settings;

    let csv = dir.join("s.csv");
    let journal = dir.join("s.csv.partial.jsonl");
    let mut child = bin()
        .args(args(&csv))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once two blocks (settings) are in the journal.
    common::kill_when_journal_has(&mut child, &journal, 3);
    let done = std::fs::read_to_string(&journal).unwrap().lines().count() - 1;
    assert!(
        (2..settings).contains(&done),
        "{done} blocks in the journal"
    );
    // The CSV cut in the middle of the second setting's rows: that setting runs again.
    let cut: Vec<&str> = want
        .lines()
        .take(1 + per_setting + per_setting / 2)
        .collect();
    std::fs::write(&csv, cut.join("\n") + "\n").unwrap();

    // Without --resume the journal is not thrown away.
    let e = fails(bin().args(args(&csv)));
    assert!(e.contains("--resume"), "{e}");
    // Any other parameter, range or input is refused, naming it.
    for (flag, value, field) in [
        ("--prune", "singles", "params.prune"),
        ("--seed", "2", "params.seed"),
        ("--tie", "first", "params.tie"),
        ("--lp", "2", "params.lp"),
        ("--restart", "50", "params.restart"),
        ("--baseline", "sr=0", "params.baseline"),
        ("--d-bin", "0.1", "params.d_bin"),
    ] {
        let e = fails(bin().args(args(&csv)).args([flag, value, "--resume"]));
        assert!(
            e.contains("written by another run") && e.contains(field),
            "{flag}: {e}"
        );
    }
    let mut other_range = args(&csv);
    let at = other_range.iter().position(|a| a == "10:120:10").unwrap();
    other_range[at] = "10:110:10".into();
    let e = fails(bin().args(&other_range).arg("--resume"));
    assert!(e.contains("params.sr"), "{e}");
    let mut other_runs = args(&csv);
    other_runs[3] = "3".into();
    let e = fails(bin().args(&other_runs).arg("--resume"));
    assert!(e.contains("params.runs"), "{e}");
    let mut other_file = args(&csv);
    other_file[1] = "puzzles/evil.txt".into();
    let e = fails(bin().args(&other_file).arg("--resume"));
    assert!(e.contains("inputs[0]"), "{e}");
    assert!(journal.exists(), "a refused resume keeps the journal");

    // The same command finishes it: the journal's settings kept, the rest run, no row twice.
    let out = bin().args(args(&csv)).arg("--resume").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{done} of {settings} settings already done")),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), want);
    assert!(!journal.exists(), "the journal goes when the sweep is done");
    // A finished sweep is not resumed (its parameters are no longer known).
    let e = fails(bin().args(args(&csv)).arg("--resume"));
    assert!(e.contains("not the CSV of an interrupted sweep"), "{e}");
}

#[test]
fn cli_one_parameter_sweep_plots_rate_curves() {
    let dir = tmp("cli1");
    let files = tier_files(&dir);
    let csv = dir.join("s.csv");
    ok(bin()
        .arg("sweep")
        .args(&files)
        .args([
            "--runs",
            "1",
            "--backend",
            "cpu",
            "--steps",
            "10:30:10",
            "--baseline",
            "lr=1,lp=1",
        ])
        .args(["--lr", "0.3", "--lp", "2", "--figure-format", "svg"])
        .arg("--csv")
        .arg(&csv)
        .arg("--plot-dir")
        .arg(dir.join("f")));
    // Rates with their intervals shaded, the baseline in the legend; in the rate-vs-d plot
    // every setting named, the average with interval bars.
    let rates = assert_figure(&dir.join("f/rate-vs-steps.svg"));
    assert!(rates.says("shaded: 95% Wilson interval") && rates.says("all, baseline"));
    let by_d = assert_figure(&dir.join("f/rate-vs-d-steps.svg"));
    for label in [
        "max steps = 10",
        "max steps = 20",
        "max steps = 30",
        "bars: 95% interval",
    ] {
        assert!(by_d.says(label), "{label}");
    }
    let rows = parse_csv("s.csv", &std::fs::read_to_string(&csv).unwrap()).unwrap();
    let solved_at = |s: u32| -> usize {
        rows.iter()
            .filter(|r| r.group == Group::All && r.role == Role::Sweep && r.point.steps == s)
            .map(|r| r.solved)
            .sum()
    };
    assert!(solved_at(10) <= solved_at(20) && solved_at(20) <= solved_at(30));
}

/// The parameters a sweep holds fixed (a preset's prune, share, restart, floor; the seed) are in
/// every CSV row and in the figures' subtitles, also when `plot-sweep` redraws them from the CSV.
#[test]
fn cli_sweep_records_its_fixed_parameters() {
    let dir = tmp("fixed");
    let files = tier_files(&dir);
    let csv = dir.join("s.csv");
    ok(bin()
        .arg("sweep")
        .arg(&files[0])
        .args(["--runs", "1", "--backend", "cpu", "--sr", "10:20:10"])
        .args(["--preset", "shared", "--share", "0.1", "--steps", "200"])
        .args(["--seed", "9", "--figure-format", "svg", "--csv"])
        .arg(&csv)
        .arg("--figures")
        .arg(dir.join("f")));
    let written = std::fs::read_to_string(&csv).unwrap();
    let head: Vec<&str> = written.lines().next().unwrap().split(',').collect();
    let at = |c: &str| head.iter().position(|&h| h == c).unwrap();
    let want = [
        ("restart", "160"),
        ("penalty_floor", "0.000001"),
        ("compare", "sharing"),
        ("tie", "random"),
        ("reset_check", "permutation"),
        ("prune", "logic"),
        ("share", "0.1"),
        ("seed", "9"),
    ];
    let lines: Vec<&str> = written.lines().skip(1).collect();
    assert!(lines.len() >= 4, "{written}");
    for line in &lines {
        let f: Vec<&str> = line.split(',').collect();
        for (c, v) in want {
            assert_eq!(f[at(c)], v, "{c} in {line}");
        }
    }
    let rows = parse_csv("s.csv", &written).unwrap();
    let fx = rows[0].fixed.expect("the fixed parameters read back");
    assert_eq!((fx.restart, fx.share, fx.seed), (160, 0.1, 9));
    // The subtitle names what differs from the defaults; the redrawn figure says the same.
    let subtitle = [
        "restart = 160",
        "penalty floor = 1e-6",
        "prune logic",
        "share = 0.1",
        "seed 9",
    ];
    let fig = assert_figure(&dir.join("f/rate-vs-sr.svg"));
    ok(bin()
        .arg("plot-sweep")
        .arg(&csv)
        .args(["--figure-format", "svg", "--figures"])
        .arg(dir.join("g")));
    let redrawn = assert_figure(&dir.join("g/rate-vs-sr.svg"));
    for s in subtitle {
        assert!(fig.says(s) && redrawn.says(s), "{s}");
    }
    assert!(!fig.says("tie random") && !fig.says("compare sharing"));
    // A steps range runs each setting at its largest limit, so rows of a smaller limit hold a
    // restart (160) above their own (100): plot-sweep reads them as the sweep ran them.
    let ranged = dir.join("r.csv");
    ok(bin()
        .arg("sweep")
        .arg(&files[0])
        .args(["--runs", "1", "--backend", "cpu", "--preset", "shared"])
        .args(["--steps", "100:200:100", "--csv"])
        .arg(&ranged));
    ok(bin()
        .arg("plot-sweep")
        .arg(&ranged)
        .args(["--figure-format", "svg", "--figures"])
        .arg(dir.join("h")));
    assert_figure(&dir.join("h/rate-vs-steps.svg"));
}

/// The commands of docs/FIGURES.md for Figs. 6, 7 and 8, on small ranges.
#[test]
fn cli_figure_commands_6_to_8() {
    let dir = tmp("figs678");
    let files = tier_files(&dir);
    for (name, flags, stem) in [
        (
            "fig6",
            &["--ratio", "1:21:10", "--baseline", "lr=1,lp=1"][..],
            "ratio",
        ),
        (
            "fig7",
            &["--ratio", "20", "--lp", "0.5:3.5:1.5", "--baseline", "lp=1"][..],
            "lp",
        ),
        (
            "fig8",
            &["--sr", "10:30:10", "--baseline", "sr=0"][..],
            "sr",
        ),
    ] {
        let csv = dir.join(format!("{name}.csv"));
        ok(bin()
            .arg("sweep")
            .args(&files)
            .args(["--runs", "1", "--steps", "40", "--backend", "cpu"])
            .args(flags)
            .arg("--csv")
            .arg(&csv)
            .arg("--plot-dir")
            .arg(dir.join(name)));
        assert_figure(&dir.join(format!("{name}/rate-vs-{stem}.png")));
        assert_figure(&dir.join(format!("{name}/rate-vs-d-{stem}.png")));
        let rows = parse_csv(name, &std::fs::read_to_string(&csv).unwrap()).unwrap();
        assert!(rows.iter().any(|r| r.role == Role::Baseline), "{name}");
        assert!(rows.iter().all(|r| r.swept == stem), "{name}");
    }
}

#[test]
fn cli_errors_are_clear() {
    let dir = tmp("errors");
    let files = tier_files(&dir);
    let csv = dir.join("x.csv");
    let run = |extra: &[&str]| {
        let mut c = bin();
        c.arg("sweep")
            .args(&files)
            .args(["--backend", "cpu"])
            .arg("--csv")
            .arg(&csv)
            .args(extra);
        fails(&mut c)
    };
    let e = run(&["--sr", "10:5:1"]);
    assert!(
        e.contains("--sr 10:5:1: the end 5 is below the start 10"),
        "{e}"
    );
    let e = run(&["--sr", "5:10:0"]);
    assert!(e.contains("step must be positive"), "{e}");
    let e = run(&["--lr", "0.1:x:0.1"]);
    assert!(e.contains("end B `x` is not a number"), "{e}");
    let e = run(&["--lr", "-1:1:0.5"]);
    assert!(
        e.contains("-1 is out of range: lr must be in (0, 1000]"),
        "{e}"
    );
    let e = run(&["--lr", "0.1:0.2:0.1", "--d-bin", "1e-300"]);
    assert!(e.contains("--d-bin must be in [0.01, 1]"), "{e}");
    let e = run(&["--lr", "0.5"]);
    assert!(e.contains("nothing to sweep"), "{e}");
    let e = run(&["--sr", "10:20:10", "--runs", "0"]);
    assert!(e.contains("invalid value '0' for '--runs <RUNS>'"), "{e}");
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "12345\n").unwrap();
    let mut c = bin();
    let e = fails(
        c.args(["sweep", "--sr", "10:20:10", "--backend", "cpu"])
            .arg(&bad),
    );
    assert!(e.contains("bad.txt:1"), "{e}");
    let mut c = bin();
    let e = fails(c.arg("plot-sweep").arg(&bad));
    assert!(e.contains("not a sweep CSV"), "{e}");
    // Standard output cannot take a sweep's growing CSV: refused before any work, and no
    // journal named `-.partial.jsonl` is left behind.
    let mut c = bin();
    let e = fails(
        c.current_dir(&dir)
            .args([
                "sweep",
                "--sr",
                "10:20:10",
                "--backend",
                "cpu",
                "--csv",
                "-",
            ])
            .args(&files),
    );
    assert!(
        e.contains("--csv -: a sweep writes its CSV as it goes"),
        "{e}"
    );
    assert!(!dir.join("-.partial.jsonl").exists());
}

/// Without an adapter (WGPU_BACKEND=dx12 hides every adapter on Linux), `auto` runs on the
/// CPU with a note and `gpu` is a clear error.
#[test]
fn auto_backend_falls_back_to_the_cpu() {
    let dir = tmp("auto");
    let files = tier_files(&dir);
    let csv = dir.join("a.csv");
    let sweep = |backend: &str| {
        let mut c = bin();
        c.env("WGPU_BACKEND", "dx12")
            .arg("sweep")
            .args(&files)
            .args([
                "--runs",
                "1",
                "--steps",
                "20",
                "--sr",
                "5:10:5",
                "--backend",
                backend,
            ])
            .arg("--csv")
            .arg(&csv);
        c
    };
    let out = ok(&mut sweep("auto"));
    assert!(
        out.contains("note: running on the CPU: no GPU adapter found"),
        "{out}"
    );
    let rows = parse_csv("a.csv", &std::fs::read_to_string(&csv).unwrap()).unwrap();
    assert_eq!(file_rows(&rows, |_| true).len(), 4, "2 settings × 2 files");
    let e = fails(&mut sweep("gpu"));
    assert!(e.contains("--backend gpu: no GPU adapter found"), "{e}");
}

#[test]
fn trace_pictures_from_a_recorded_run() {
    let dir = tmp("trace");
    let puzzle = parse_str(CLASSIC, None).unwrap().remove(0).grid;
    let params = IlcaParams {
        lr: 0.05,
        steps: 60,
        compare: gpu_sudoku::ilca::Compare::Free,
        ..IlcaParams::default()
    };
    // The first run that solves it within 60 steps.
    let tr = (0..10)
        .map(|r| IlcaTrace::record(&puzzle, &params, 0, r).unwrap())
        .find(|t| t.solved(&puzzle))
        .expect("one of 10 runs solves the classic puzzle");
    // The recorded run is the batch's run: same end step.
    let batch = cpu::run(
        &Batch::runs(std::slice::from_ref(&puzzle), &params, 10),
        &|_| {},
    );
    assert!(batch
        .iter()
        .any(|r| r.solved && r.steps == *tr.steps.last().unwrap()));
    // Probabilities are normalised; clues never change.
    for f in 0..tr.steps.len() {
        for c in 0..81 {
            let s: f32 = tr.probs[f][c * 9..c * 9 + 9].iter().sum();
            assert!((s - 1.0).abs() < 1e-4);
            if tr.clue[c] {
                assert_eq!(tr.states[f][c], puzzle.get(c));
            }
        }
    }
    // CSV round trip, then the command.
    let csv = dir.join("trace.csv");
    tr.write_csv(std::fs::File::create(&csv).unwrap()).unwrap();
    let back = IlcaTrace::read_csv(&csv.display().to_string()).unwrap();
    assert!(back == tr, "the trace CSV does not read back");
    ok(bin()
        .arg("plot-trace")
        .arg(&csv)
        .arg("--out-dir")
        .arg(&dir)
        // `--format`: the old name of `--figure-format`, still taken.
        .args(["--format", "both", "--title", "classic puzzle"])
        .args(["--cell", "4,7", "--cell", "1,1"]));
    for f in [
        "trace-grids",
        "trace-probabilities",
        "trace-cell-4-7",
        "trace-cell-1-1",
    ] {
        for ext in ["png", "svg"] {
            assert_figure(&dir.join(format!("{f}.{ext}")));
        }
    }
    // The overview numbers rows and columns, has axes, and marks clues as clues.
    let all = assert_figure(&dir.join("trace-probabilities.svg"));
    for label in [
        "row 9",
        "column 9",
        "clue",
        "clue cell",
        "digit 9",
        "probability 0 to 1",
    ] {
        assert!(all.says(label), "{label}");
    }
    // One cell as the paper's Fig. 4: its candidates' probabilities, the choices marked.
    let cell = assert_figure(&dir.join("trace-cell-4-7.svg"));
    for label in [
        "cell C4,7",
        "time-step",
        "probability",
        "the digit chosen at the step",
    ] {
        assert!(cell.says(label), "{label}");
    }
    // C4,7 is free in the classic puzzle; C1,1 is its clue 5.
    assert!(!tr.clue[3 * 9 + 6] && tr.clue[0]);
    assert!(assert_figure(&dir.join("trace-cell-1-1.svg")).says("a clue: its state is 5"));
    let mut c = bin();
    let e = fails(
        c.arg("plot-trace")
            .arg(&csv)
            .args(["--cell", "10,1", "--out-dir"])
            .arg(&dir),
    );
    assert!(e.contains("--cell 10,1: the puzzle is 9x9"), "{e}");
    // With --puzzle, before the run is recorded (it says `run 0: …` when it runs).
    let mut c = bin();
    let e = fails(
        c.arg("plot-trace")
            .args([
                "--puzzle",
                "puzzles/hard.txt",
                "--cell",
                "10,1",
                "--out-dir",
            ])
            .arg(&dir),
    );
    assert!(e.contains("--cell 10,1: the puzzle is 9x9"), "{e}");
    assert!(
        !e.contains("run 0"),
        "the cell is checked before the run: {e}"
    );
    let mut c = bin();
    let e = fails(c.arg("plot-trace").arg(&csv).args(["--cell", "0,4"]));
    assert!(e.contains("give a cell as ROW,COLUMN"), "{e}");
    // `gpu-sudoku trace --csv` writes the same trace.
    let run = batch
        .iter()
        .find(|r| r.solved && r.steps == *tr.steps.last().unwrap())
        .unwrap()
        .run;
    let csv3 = dir.join("trace3.csv");
    ok(bin()
        .args([
            "trace",
            CLASSIC,
            "--lr",
            "0.05",
            "--steps",
            "60",
            "--compare",
            "free",
            "--no-grids",
        ])
        .args(["--run", &run.to_string()])
        .arg("--csv")
        .arg(&csv3));
    let t3 = IlcaTrace::read_csv(&csv3.display().to_string()).unwrap();
    assert_eq!(
        (&t3.steps, &t3.states, &t3.clue),
        (&tr.steps, &tr.states, &tr.clue)
    );
    assert!(t3.probs == tr.probs, "`trace --csv` probabilities differ");

    // The command records the same run itself.
    let pfile = dir.join("classic.txt");
    std::fs::write(&pfile, format!("{CLASSIC}\n")).unwrap();
    let csv2 = dir.join("trace2.csv");
    ok(bin()
        .arg("plot-trace")
        .arg("--puzzle")
        .arg(&pfile)
        .args([
            "--find-solved",
            "10",
            "--lr",
            "0.05",
            "--steps",
            "60",
            "--compare",
            "free",
        ])
        .arg("--write-trace")
        .arg(&csv2)
        .arg("--out-dir")
        .arg(dir.join("rec")));
    assert_eq!(
        IlcaTrace::read_csv(&csv2.display().to_string()).unwrap(),
        tr
    );
    assert_figure(&dir.join("rec/trace-grids.png"));
    let mut c = bin();
    let e = fails(c.arg("plot-trace").arg(&csv).args(["--run", "3"]));
    assert!(e.contains("go with --puzzle"), "{e}");

    // A long trace is cut to max_frames panels.
    let mut g = TraceGrids::new(&tr, "t");
    g.max_frames = 4;
    let (frames, omitted) = g.frames();
    assert_eq!(frames.len(), 4);
    assert_eq!(*frames.last().unwrap(), tr.steps.len() - 1);
    assert!(omitted > 0 || tr.steps.len() <= 4);
    save(&g, dir.join("short.svg")).unwrap();
    save(
        &ProbabilityPanel {
            trace: &tr,
            title: "p".into(),
        },
        dir.join("p.png"),
    )
    .unwrap();
}

#[test]
fn trace_csv_errors_name_the_line() {
    let e = IlcaTrace::parse_csv("t.csv", "step,cell,state,p1,p2,p3\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("3 probability columns"), "{e}");
    let head = "step,cell,state,p1,p2,p3,p4";
    let e = IlcaTrace::parse_csv("t.csv", &format!("{head}\n0,0,1,1,0,0,0\n0,99,1,1,0,0,0\n"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("t.csv:3") && e.contains("cell 99"), "{e}");
    let e = IlcaTrace::parse_csv("t.csv", &format!("{head}\n0,0,1,1,0,0,x\n"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("t.csv:2") && e.contains("(p4)"), "{e}");
    let e = IlcaTrace::parse_csv("t.csv", &format!("{head}\n0,0,1,1,0,0,0\n"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("no row for cell 1"), "{e}");
    let e = IlcaTrace::parse_csv("t.csv", "cell,state,p1\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("no `step` column"), "{e}");
}

#[test]
fn lines_plot_for_species_proportions() {
    let dir = tmp("lines");
    // 12 "species" over 5 samples: 4 grow, 8 shrink to 1e-30 (Horn's Fig. 3 in miniature).
    let mut text = String::from("generation,conflicts");
    for s in 0..12 {
        text.push_str(&format!(",s{s}"));
    }
    text.push('\n');
    for (k, g) in [0, 10, 20, 30, 40].iter().enumerate() {
        text.push_str(&format!("{g},{}", 10 - 2 * k));
        for s in 0..12 {
            let p = if s < 4 {
                (1.0 + k as f64) / 12.0
            } else {
                1e-30f64.powf(k as f64 / 4.0) / 12.0
            };
            text.push_str(&format!(",{p}"));
        }
        text.push('\n');
    }
    let csv = dir.join("species.csv");
    std::fs::write(&csv, text).unwrap();
    let plot = |out: &str, extra: &[&str]| {
        ok(bin()
            .arg("plot-lines")
            .arg(&csv)
            .args(["--x", "generation", "--exclude", "conflicts", "--log-y"])
            .args(["--initial-line", "--y-label", "proportion"])
            .args(["--title", "RFSS, {series} species"])
            .args(extra)
            .arg("--out")
            .arg(dir.join(out)));
        assert_figure(&dir.join(out))
    };
    for out in ["species.png", "species.svg"] {
        plot(out, &["--top", "4"]);
    }
    let fig = assert_figure(&dir.join("species.svg"));
    // The title counts the series; the log axis is labelled down to the smallest value; the
    // initial line and both groups are in the legend; the close-up panel is there.
    for label in [
        "RFSS, 12 species",
        "1e-30",
        "initial mean 0.0833",
        "the 4 largest at the end",
        "the other 8 series",
        "from 0.417 to 0.417, 5.00e30× the largest other (8.33e-32)",
        "close-up, linear scale",
    ] {
        assert!(fig.says(label), "{label}");
    }
    // Without --top: one panel; more series than colours are drawn alike and counted.
    let one = plot("one.svg", &[]);
    assert!(one.height < fig.height && one.width == fig.width);
    assert!(one.has_text("12 series") && !one.says("close-up"));
    let mut c = bin();
    let e = fails(
        c.arg("plot-lines")
            .arg(&csv)
            .args(["--exclude", "nope", "--out"])
            .arg(dir.join("x.png")),
    );
    assert!(e.contains("--exclude nope: no such column"), "{e}");
    let mut c = bin();
    let e = fails(
        c.arg("plot-lines")
            .arg(&csv)
            .arg("--out")
            .arg(dir.join("x.pdf")),
    );
    assert!(e.contains(".png or .svg"), "{e}");
    let mut c = bin();
    let e = fails(
        c.arg("plot-lines")
            .arg(&csv)
            .args(["--exclude", "conflicts", "--top", "12", "--out"])
            .arg(dir.join("x.png")),
    );
    assert!(e.contains("--top 12: must be between 1"), "{e}");
    // Values whose span overflows f64 are refused; drawing them never ended.
    let wide = dir.join("wide.csv");
    std::fs::write(&wide, "gen,a\n0,1e308\n1,-1e308\n").unwrap();
    let mut c = bin();
    let e = fails(
        c.arg("plot-lines")
            .arg(&wide)
            .arg("--out")
            .arg(dir.join("w.png")),
    );
    assert!(e.contains("spans values too far apart to draw"), "{e}");
    // Written non-finite values are refused by line and column (an empty field is a gap).
    std::fs::write(&wide, "gen,a\ninf,1\n1,NaN\n").unwrap();
    let mut c = bin();
    let e = fails(
        c.arg("plot-lines")
            .arg(&wide)
            .arg("--out")
            .arg(dir.join("w.png")),
    );
    assert!(
        e.contains("wide.csv:2: column 1 (gen): `inf` is not a finite number"),
        "{e}"
    );
    // A sweep CSV whose setting the sweep could not have run.
    let text = std::fs::read_to_string("docs/data/fig5-h100.csv").unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut f: Vec<String> = lines[1].split(',').map(String::from).collect();
    f[2] = "NaN".into();
    lines[1] = f.join(",");
    let bad = dir.join("bad-sweep.csv");
    std::fs::write(&bad, lines.join("\n") + "\n").unwrap();
    let mut c = bin();
    let e = fails(
        c.arg("plot-sweep")
            .arg(&bad)
            .arg("--figures")
            .arg(dir.join("bad")),
    );
    assert!(
        e.contains("bad-sweep.csv:2: column 3 is not a finite number: `NaN`"),
        "{e}"
    );
}

/// The plot commands name their image format `--figure-format`, as `sweep` does (`--format` is
/// the puzzle layout on the commands that read puzzles); `--format` still works on them, as a
/// hidden alias, so scripts written before keep running. Also: a sweep CSV written before the
/// interval columns (docs/data/) still plots.
#[test]
fn plot_commands_take_figure_format_and_still_format() {
    let dir = tmp("figure-format");
    for (flag, sub) in [("--figure-format", "new"), ("--format", "old")] {
        let out = dir.join(sub);
        ok(bin()
            .args([
                "plot-sweep",
                "docs/data/fig5-h100.csv",
                flag,
                "svg",
                "--figures",
            ])
            .arg(&out));
        for f in ["rate-vs-steps", "rate-vs-d-steps"] {
            assert_figure(&out.join(format!("{f}.svg")));
            assert!(!out.join(format!("{f}.png")).exists(), "{flag}: svg only");
        }
    }
    let e = fails(bin().args([
        "plot-sweep",
        "docs/data/fig5-h100.csv",
        "--format",
        "svg",
        "--figure-format",
        "png",
    ]));
    assert!(
        e.contains("'--figure-format <FIGURE_FORMAT>' cannot be used multiple times"),
        "{e}"
    );
    for sub in ["plot-sweep", "plot-trace"] {
        let help = ok(bin().args([sub, "--help"]));
        assert!(
            help.contains("--figure-format <FIGURE_FORMAT>"),
            "{sub}: {help}"
        );
        assert!(
            !help.contains("--format <"),
            "{sub}: the alias is hidden: {help}"
        );
    }
}
