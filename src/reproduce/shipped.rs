//! The puzzle sets `reproduce` reads, built into the library (about 180 KB), so that an installed
//! binary reproduces the papers from any folder. Each is the repository's file of that path at
//! build time (`include_str!`: a change to the file rebuilds); `reproduce --puzzles DIR` reads
//! a folder instead.

/// (path in the repository, contents) of every built-in set.
pub const FILES: &[(&str, &str)] = &[
    ("puzzles/easy.txt", include_str!("../../puzzles/easy.txt")),
    (
        "puzzles/medium.txt",
        include_str!("../../puzzles/medium.txt"),
    ),
    ("puzzles/hard.txt", include_str!("../../puzzles/hard.txt")),
    ("puzzles/evil.txt", include_str!("../../puzzles/evil.txt")),
    (
        "puzzles/unique/easy.txt",
        include_str!("../../puzzles/unique/easy.txt"),
    ),
    (
        "puzzles/unique/medium.txt",
        include_str!("../../puzzles/unique/medium.txt"),
    ),
    (
        "puzzles/unique/hard.txt",
        include_str!("../../puzzles/unique/hard.txt"),
    ),
    (
        "puzzles/unique/evil.txt",
        include_str!("../../puzzles/unique/evil.txt"),
    ),
    (
        "puzzles/25x25-logic.txt",
        include_str!("../../puzzles/25x25-logic.txt"),
    ),
    ("puzzles/25x25.txt", include_str!("../../puzzles/25x25.txt")),
    (
        "docs/baselines/astar-d0673-500.txt",
        include_str!("../../docs/baselines/astar-d0673-500.txt"),
    ),
    (
        "docs/baselines/astar-d0673-10.txt",
        include_str!("../../docs/baselines/astar-d0673-10.txt"),
    ),
    (
        "docs/baselines/ga-easy.txt",
        include_str!("../../docs/baselines/ga-easy.txt"),
    ),
    (
        "docs/baselines/ga-medium.txt",
        include_str!("../../docs/baselines/ga-medium.txt"),
    ),
    (
        "docs/baselines/ga-hard.txt",
        include_str!("../../docs/baselines/ga-hard.txt"),
    ),
];

/// The built-in contents of the repository's file `path` (e.g. `puzzles/evil.txt`).
pub fn get(path: &str) -> Option<&'static str> {
    FILES
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, text)| *text)
}

#[cfg(test)]
mod tests {
    /// Every built-in set reads as puzzles, under its repository path.
    #[test]
    fn built_in_sets_read() {
        for (path, text) in super::FILES {
            let f = crate::puzzle::read_puzzles_from(path, text.as_bytes(), &Default::default())
                .unwrap();
            assert!(!f.puzzles.is_empty(), "{path}");
        }
        assert!(super::get("puzzles/evil.txt").is_some());
        assert!(super::get("puzzles/nope.txt").is_none());
    }
}
