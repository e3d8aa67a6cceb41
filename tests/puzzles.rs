//! The shipped puzzle files: well-formed, consistent, in their bands and tiers, unique where
//! promised, and reproducible from the command in their header.

use gpu_sudoku::choice::Choice;
use gpu_sudoku::exact::{self, Solutions};
use gpu_sudoku::generate::{self, rate, Model, Spec, Tier};
use gpu_sudoku::puzzle::{read_puzzles, Geometry, PuzzleFile};

fn load(path: &str) -> PuzzleFile {
    let full = format!("{}/{path}", env!("CARGO_MANIFEST_DIR"));
    read_puzzles(&full, None).unwrap_or_else(|e| panic!("{e}"))
}

/// The `Spec` of the `gpu-sudoku generate …` command in a file's first header line.
fn header_spec(f: &PuzzleFile) -> Spec {
    let cmd = f.header.first().expect("header line");
    let words: Vec<&str> = cmd.split_whitespace().collect();
    assert_eq!(&words[..2], ["gpu-sudoku", "generate"], "{cmd}");
    let arg = |name: &str| {
        words
            .iter()
            .position(|w| *w == name)
            .map(|i| words[i + 1].to_string())
    };
    let model = match arg("--model").as_deref() {
        Some("paper") => Model::Paper,
        Some("rated") => Model::Rated,
        other => panic!("model {other:?}"),
    };
    let tier = arg("--tier").map(|t| match t.as_str() {
        "easy" => Tier::Easy,
        "medium" => Tier::Medium,
        "hard" => Tier::Hard,
        "evil" => Tier::Evil,
        _ => panic!("tier {t}"),
    });
    Spec {
        model,
        tier,
        d: arg("--d").map(|d| d.parse().unwrap()),
        unique: words.contains(&"--unique"),
        b: Geometry::box_for_side(arg("--size").unwrap().parse().unwrap()).unwrap(),
        count: arg("--count").unwrap().parse().unwrap(),
        seed: arg("--seed").unwrap().parse().unwrap(),
    }
}

/// The first `k` puzzles regenerate exactly (puzzle i depends only on the seed and i).
fn regenerates(f: &PuzzleFile, k: usize) {
    let spec = Spec {
        count: k.min(f.puzzles.len()),
        ..header_spec(f)
    };
    let again = generate::generate(&spec, &|| {}).unwrap();
    for (p, g) in f.puzzles.iter().zip(&again) {
        assert_eq!(p.grid, g.grid, "{}:{} does not regenerate", f.path, p.line);
        assert_eq!(p.extra, g.extra, "{}:{}", f.path, p.line);
    }
}

#[test]
fn paper_sets_lie_in_their_bands() {
    for &t in Tier::ALL {
        let f = load(&format!("puzzles/{t}.txt"));
        assert_eq!(f.puzzles.len(), 100, "{t}");
        let spec = header_spec(&f);
        assert_eq!(
            (spec.model, spec.tier, spec.count),
            (Model::Paper, Some(t), 100)
        );
        assert!(f.header[0].contains(&format!("-o puzzles/{t}.txt")));
        for p in &f.puzzles {
            assert!(p.grid.is_consistent(), "{}:{}", f.path, p.line);
            let d: f64 = p.extra.strip_prefix("d=").unwrap().parse().unwrap();
            assert!(t.band_contains(d), "{}:{} d={d}", f.path, p.line);
            assert!(
                t.band_contains(p.grid.blank_fraction()),
                "{}:{}",
                f.path,
                p.line
            );
            assert!(
                exact::count_solutions(&p.grid, 1) == 1,
                "{}:{}",
                f.path,
                p.line
            );
        }
        regenerates(&f, 100);
    }
}

#[test]
fn unique_sets_are_unique_and_of_their_tier() {
    for &t in Tier::ALL {
        let f = load(&format!("puzzles/unique/{t}.txt"));
        assert_eq!(f.puzzles.len(), 100, "{t}");
        let spec = header_spec(&f);
        assert_eq!((spec.model, spec.tier), (Model::Rated, Some(t)));
        for p in &f.puzzles {
            let Solutions::Unique(s) = exact::classify(&p.grid) else {
                panic!("{}:{} is not unique", f.path, p.line);
            };
            let r = generate::rate_with_solution(&p.grid, &s);
            assert_eq!(r.tier, t, "{}:{}", f.path, p.line);
            assert!(p.extra.starts_with(&format!("tier={t} score={} ", r.score)));
        }
        regenerates(&f, 3);
    }
}

#[test]
fn large_sets() {
    for (path, side) in [
        ("puzzles/16x16.txt", 16),
        ("puzzles/25x25.txt", 25),
        ("puzzles/36x36.txt", 36),
        ("puzzles/49x49.txt", 49),
    ] {
        let f = load(path);
        assert!(f.puzzles.len() >= 3, "{path}");
        let spec = header_spec(&f);
        assert!(spec.unique, "{path}");
        for p in &f.puzzles {
            assert_eq!(p.grid.side(), side);
            assert!(p.grid.is_consistent(), "{path}:{}", p.line);
        }
        // Solving and regenerating the big ones in a debug-ish test build: only the first.
        let p = &f.puzzles[0];
        match exact::classify(&p.grid) {
            Solutions::Unique(s) => s.verify_solution_of(&p.grid).unwrap(),
            other => panic!("{path}:{} {other:?}", p.line),
        }
        regenerates(&f, 1);
    }
    let f = load("puzzles/25x25.txt");
    assert!(
        f.puzzles.iter().any(|p| p.grid.clue_count() == 301),
        "a 25x25 puzzle with 301 clues, the size of the RFSS paper's run"
    );
}

/// Magazine-style 25x25: the RFSS paper's clue count (301), unique, solvable without guessing.
#[test]
fn logic_25x25_has_the_paper_clue_count_and_needs_no_guess() {
    let f = load("puzzles/25x25-logic.txt");
    let spec = header_spec(&f);
    assert_eq!(
        (spec.model, spec.d, spec.tier),
        (Model::Rated, Some(0.5184), Some(Tier::Medium))
    );
    assert_eq!(f.puzzles.len(), 5);
    for p in &f.puzzles {
        assert_eq!(p.grid.side(), 25);
        assert_eq!(p.grid.clue_count(), 301, "{}", p.line);
        let r = rate(&p.grid).unwrap_or_else(|| panic!("line {} is not unique", p.line));
        assert!(r.tier <= Tier::Medium, "line {}: {:?}", p.line, r.tier);
    }
    regenerates(&f, 1);
}

#[test]
fn classic_puzzle() {
    let f = load("puzzles/classic.txt");
    let p = &f.puzzles[0];
    assert_eq!(
        p.grid.to_line(),
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
    );
    let s = exact::solve(&p.grid).unwrap();
    assert!(f.header.iter().any(|h| h.contains(&s.to_line())));
    assert_eq!(rate(&p.grid).unwrap().tier, Tier::Easy);
}

/// The ACS paper's logic-solvable set (less sabuncu3) and Easter Monster: each unique, named, and
/// the two facts its header states about the published strings hold.
#[test]
fn famous_puzzles_are_unique_and_named() {
    let f = load("puzzles/famous.txt");
    assert_eq!(f.puzzles.len(), 16);
    let mut names = Vec::new();
    for p in &f.puzzles {
        assert_eq!(p.grid.side(), 9);
        let name = p.extra.strip_prefix("name=").expect("name= field");
        assert!(
            f.header
                .iter()
                .any(|h| h.contains(name.trim_end_matches(char::is_numeric))),
            "{name} has no source in the header"
        );
        assert!(
            matches!(exact::classify(&p.grid), Solutions::Unique(_)),
            "{name} (line {}) is not unique",
            p.line
        );
        names.push(name);
    }
    for want in [
        "ai-escargot",
        "platinum-blonde",
        "golden-nugget",
        "red-dwarf",
        "easter-monster",
    ] {
        assert!(names.contains(&want), "{want} missing");
    }
    // The header's strings: sabuncu3 as published has 27 solutions, and the forum's Golden
    // Nugget with columns 5 and 6 exchanged is the paper's.
    let header_grid = |prefix: &str| {
        let h = f.header.iter().find(|h| h.contains(prefix)).unwrap();
        let line = h
            .split_whitespace()
            .find(|w| w.starts_with(prefix))
            .unwrap();
        gpu_sudoku::puzzle::parse_str(line, None).unwrap()[0]
            .grid
            .clone()
    };
    assert_eq!(exact::count_solutions(&header_grid("842......"), 100), 27);
    let forum = header_grid(".......39.....1");
    let nugget = &f.puzzles[names.iter().position(|&n| n == "golden-nugget").unwrap()];
    for cell in 0..81 {
        let col = cell % 9;
        let swapped = match col {
            4 => cell + 1,
            5 => cell - 1,
            _ => cell,
        };
        assert_eq!(forum.get(swapped), nugget.grid.get(cell), "cell {cell}");
    }
}
