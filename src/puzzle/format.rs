//! Writing grids: the one-line format (`53..7....`), integer rows, and a boxed pretty form.

use super::Grid;

/// Digit symbols of the one-line format: digit v is `SYMBOLS[v - 1]` (1-9, then A-Z, a-z, @ $ %),
/// enough for 64x64. Blanks are written as `.`.
pub const SYMBOLS: &[u8; 64] = b"123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz@$%";

/// The symbol of digit `v` (1..=64), `.` for 0.
pub fn symbol_for(v: u8) -> char {
    if v == 0 {
        '.'
    } else {
        SYMBOLS[v as usize - 1] as char
    }
}

impl Grid {
    /// The one-line format: n² symbols, `.` for blanks.
    pub fn to_line(&self) -> String {
        self.cells().iter().map(|&v| symbol_for(v)).collect()
    }

    /// The grid of box size `b` that [`Grid::to_line`] wrote as `line` (`.` for a blank),
    /// whatever it holds (a repeated digit included, for checks that say what is wrong);
    /// `None` when `line` is not n² symbols of such a grid.
    pub fn from_line(b: usize, line: &str) -> Option<Grid> {
        let n = b * b;
        let cells = line
            .bytes()
            .map(|c| match c {
                b'.' => Some(0),
                _ => SYMBOLS[..n]
                    .iter()
                    .position(|&s| s == c)
                    .map(|k| k as u8 + 1),
            })
            .collect::<Option<Vec<u8>>>()?;
        Grid::from_cells(b, cells).ok()
    }

    /// n lines of whitespace-separated integers, 0 for blanks.
    pub fn to_rows(&self) -> String {
        let n = self.side();
        let w = if n >= 10 { 2 } else { 1 };
        let mut s = String::new();
        for row in self.cells().chunks(n) {
            let line: Vec<String> = row.iter().map(|v| format!("{v:>w$}")).collect();
            s.push_str(&line.join(" "));
            s.push('\n');
        }
        s
    }

    /// A boxed block for people to read.
    pub fn to_pretty(&self) -> String {
        let (b, n) = (self.box_size(), self.side());
        let w = if n > 9 { 2 } else { 1 };
        let sep: String = {
            let seg = "-".repeat(b * (w + 1) + 1);
            let mut s = String::from("+");
            for _ in 0..b {
                s.push_str(&seg);
                s.push('+');
            }
            s
        };
        let mut out = String::new();
        for r in 0..n {
            if r % b == 0 {
                out.push_str(&sep);
                out.push('\n');
            }
            out.push('|');
            for c in 0..n {
                let v = self.get(r * n + c);
                let sym = if v == 0 {
                    ".".to_string()
                } else if n > 9 {
                    v.to_string()
                } else {
                    symbol_for(v).to_string()
                };
                out.push_str(&format!(" {sym:>w$}"));
                if c % b == b - 1 {
                    out.push_str(" |");
                }
            }
            out.push('\n');
        }
        out.push_str(&sep);
        out.push('\n');
        out
    }
}

impl std::fmt::Display for Grid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_line())
    }
}
