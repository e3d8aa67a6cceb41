//! Fuzz target: every puzzle reader, in every format and size, plain and gzip.
//!
//! Input: the first byte says how to read, the rest is the file.
//! - bits 0-2: the format (0-4: Auto, Line, Integers, Blocks, Csv; 5-7: Auto, Line, Integers);
//! - bits 3-5: the side (0: from the file; 1..=7: 4, 9, 16, 25, 36, 49, 64);
//! - bit 6: gzip the file before reading it (raw gzip data is read as gzip anyway);
//! - bit 7: ask for a CSV column: `2` when the format bits are 5-7, else `puzzle`.
//!
//! A result must keep the readers' promises: puzzles of one size, consistent clues, solutions
//! that solve their puzzles, lines in order; an error must name a line and column that exist.
#![no_main]

use gpu_sudoku::puzzle::{read_puzzles_from, Format, ReadOptions};
use libfuzzer_sys::fuzz_target;
use std::io::Write;

const FORMATS: [Format; 5] = [
    Format::Auto,
    Format::Line,
    Format::Integers,
    Format::Blocks,
    Format::Csv,
];

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).expect("in memory");
    e.finish().expect("in memory")
}

/// The file's lines as the readers split them (`\n`, `\r\n`, `\r`, NEL, U+2028, U+2029).
fn lines(file: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < file.len() {
        let unicode = [&b"\xC2\x85"[..], b"\xE2\x80\xA8", b"\xE2\x80\xA9"]
            .into_iter()
            .find(|seq| file[i..].starts_with(seq));
        let (end, next) = match (file[i], unicode) {
            (b'\n', _) => (i, i + 1),
            (b'\r', _) if file.get(i + 1) == Some(&b'\n') => (i, i + 2),
            (b'\r', _) => (i, i + 1),
            (_, Some(seq)) => (i, i + seq.len()),
            _ => {
                i += 1;
                continue;
            }
        };
        out.push(&file[start..end]);
        start = next;
        i = next;
    }
    out.push(&file[start..]);
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&how, file)) = data.split_first() else {
        return;
    };
    let side_bits = (how >> 3) & 7;
    let options = ReadOptions {
        format: FORMATS[(how & 7) as usize % FORMATS.len()],
        side: (side_bits > 0).then(|| (side_bits as usize + 1).pow(2)),
        column: (how & 0x80 != 0).then(|| if how & 7 >= 5 { "2" } else { "puzzle" }.to_string()),
    };
    let packed;
    let input: &[u8] = if how & 0x40 != 0 {
        packed = gzip(file);
        &packed
    } else {
        file
    };
    match read_puzzles_from("fuzz", input, &options) {
        Ok(f) => {
            assert!(!f.puzzles.is_empty());
            if let Some(side) = options.side {
                assert_eq!(f.b * f.b, side);
            }
            let mut last_line = 0;
            for p in &f.puzzles {
                assert_eq!(p.grid.box_size(), f.b);
                assert!(p.grid.is_consistent(), "line {}", p.line);
                assert!(p.line > last_line, "line {} after {last_line}", p.line);
                last_line = p.line;
                if let Some(s) = &p.solution {
                    s.verify_solution_of(&p.grid)
                        .expect("a kept solution solves its puzzle");
                }
            }
        }
        Err(e) => {
            let shown = e.to_string();
            assert!(shown.starts_with("fuzz"), "{shown}");
            assert!(!e.message.is_empty());
            if e.line == 0 {
                assert!(e.column.is_none(), "{shown}");
            }
            // Places are checked against the text itself (not raw gzip data).
            if how & 0x40 != 0 || !file.starts_with(&[0x1f, 0x8b]) {
                let lines = lines(file);
                assert!(e.line <= lines.len(), "{shown}: {} lines", lines.len());
                if let Some(c) = e.column {
                    let chars = String::from_utf8_lossy(lines[e.line - 1]).chars().count();
                    assert!((1..=chars + 1).contains(&c), "{shown}: {chars} characters");
                }
            }
        }
    }
});
