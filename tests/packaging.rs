//! What installing the tool gives a user beyond the command itself: shell completions and a man
//! page made from the same definitions as the command line, and the licence files Cargo.toml
//! names.

mod common;
use common::{ok, run};

#[test]
fn completions_for_every_shell() {
    let bash = ok(&run(&["completions", "bash"]));
    assert!(
        bash.contains("complete -F") && bash.contains("gpu-sudoku"),
        "{bash}"
    );
    // The subcommands and their options come from the clap definitions.
    assert!(bash.contains("reproduce") && bash.contains("--preset"));
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        assert!(
            ok(&run(&["completions", shell])).contains("batch"),
            "{shell}"
        );
    }
    common::fails_with(&run(&["completions", "tcsh"]), 2);
}

#[test]
fn man_page_covers_every_subcommand() {
    let page = ok(&run(&["man"]));
    assert!(
        page.starts_with(".ie") || page.contains(".TH gpu-sudoku"),
        "{}",
        &page[..200]
    );
    for sub in ["BATCH", "REPRODUCE", "MERGE", "SWEEP", "COMPARE", "TRACE"] {
        assert!(page.contains(&format!("GPU-SUDOKU {sub}")), "{sub}");
    }
    // One page: no pointer to a per-subcommand page that is never written.
    assert!(
        !page.contains(r"gpu\-sudoku\-batch(1)"),
        "a see-also to a missing page"
    );
    assert!(page.contains(r"(section GPU\-SUDOKU BATCH below)"));
    assert!(
        page.contains(r"\-\-shard"),
        "options are listed (roff escapes hyphens)"
    );
}

#[test]
fn both_licences_are_shipped() {
    let manifest = std::fs::read_to_string("Cargo.toml").unwrap();
    assert!(manifest.contains("license = \"MIT OR Apache-2.0\""));
    let mit = std::fs::read_to_string("LICENSE-MIT").unwrap();
    assert!(mit.contains("Permission is hereby granted, free of charge"));
    let apache = std::fs::read_to_string("LICENSE-APACHE").unwrap();
    assert!(apache.contains("Apache License") && apache.contains("Version 2.0"));
}
