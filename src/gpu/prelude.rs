//! The `const` lines the host writes before a kernel's WGSL: every number the kernel shares
//! with the Rust side (sizes, buffer layouts, limits, flag bits, enum codes, the bits of f32
//! constants), written from the Rust definitions, so that no number is written twice. The kernel
//! files use these names only; each kernel's tests check that ([`Prelude::check_kernel`]).

use crate::choice::Choice;

/// A kernel's `const` lines, in the order added, and their names.
#[derive(Clone, Debug, Default)]
pub struct Prelude {
    text: String,
    names: Vec<String>,
    /// The names from [`Prelude::codes`].
    codes: Vec<String>,
}

impl Prelude {
    pub fn new() -> Prelude {
        Prelude::default()
    }

    fn line(&mut self, name: String, ty: &str, value: String, note: &str) -> &mut Prelude {
        assert!(
            !self.names.contains(&name),
            "prelude constant {name} written twice"
        );
        self.text += &format!("const {name}: {ty} = {value};");
        if !note.is_empty() {
            self.text += &format!(" // {note}");
        }
        self.text.push('\n');
        self.names.push(name);
        self
    }

    /// `const NAME: u32 = value;`.
    pub fn u32(&mut self, name: &str, value: u32) -> &mut Prelude {
        self.line(name.into(), "u32", format!("{value}u"), "")
    }

    /// `const NAME: u32 = value;` from a size or offset (which must fit a u32).
    pub fn size(&mut self, name: &str, value: usize) -> &mut Prelude {
        let v = u32::try_from(value).unwrap_or_else(|_| panic!("{name} = {value} exceeds u32"));
        self.u32(name, v)
    }

    /// `const NAME: u32 = 0x…u;`: a bit pattern (flags, magic numbers), written in hex.
    pub fn bits(&mut self, name: &str, value: u32) -> &mut Prelude {
        self.line(name.into(), "u32", format!("{value:#010x}u"), "")
    }

    /// `const NAME_BITS: u32 = 0x…u;`: the bits of an f32, which the kernel turns back into the
    /// f32 with `bitcast<f32>(NAME_BITS)`: the same value bit for bit, with no decimal
    /// rounding on either side (naga cannot evaluate `bitcast` in a `const`, so the f32 itself
    /// is not a constant).
    pub fn f32_bits(&mut self, name: &str, value: f32) -> &mut Prelude {
        let note = format!("{value:e}");
        self.line(
            format!("{name}_BITS"),
            "u32",
            format!("{:#010x}u", value.to_bits()),
            &note,
        )
    }

    /// `const NAME: bool = value;`.
    pub fn bool(&mut self, name: &str, value: bool) -> &mut Prelude {
        self.line(name.into(), "bool", value.to_string(), "")
    }

    /// `const PREFIX_VALUE: u32 = code;` for every value of `C` (VALUE: its name in capitals,
    /// `-` as `_`), e.g. `TIE_KEEP`: the codes the host writes into the kernel's buffers.
    pub fn codes<C: Choice>(&mut self, prefix: &str, code: impl Fn(C) -> u32) -> &mut Prelude {
        let mut seen = Vec::new();
        for &c in C::ALL {
            let v = code(c);
            assert!(!seen.contains(&v), "{prefix}: code {v} given twice");
            seen.push(v);
            let name = format!("{prefix}_{}", c.name().to_uppercase().replace('-', "_"));
            self.u32(&name, v);
            self.codes.push(name);
        }
        self
    }

    /// The names defined, in order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The `const` lines.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The kernel's source: the `const` lines, then `parts` (WGSL files), one after another.
    pub fn source(&self, parts: &[&str]) -> String {
        let mut s = self.text.clone();
        for p in parts {
            s.push('\n');
            s += p;
        }
        s
    }

    /// What is wrong with `kernel` (a WGSL file) for this prelude, if anything: a constant it
    /// never uses (an enum code may instead be named in a comment, where a final `else` takes
    /// it), a constant it declares again, a hex literal (bit patterns and magic numbers
    /// come from the host), or an expression of `coded` (variables that hold enum codes or
    /// flags) compared with a bare number instead of a constant's name.
    pub fn check_kernel(&self, kernel: &str, coded: &[&str]) -> Vec<String> {
        let code: String = kernel
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        let split = |text: &'_ str| -> Vec<String> {
            text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect()
        };
        let words = split(&code);
        let with_comments = split(kernel);
        let mut errors = Vec::new();
        for name in &self.names {
            let seen = if self.codes.contains(name) {
                &with_comments
            } else {
                &words
            };
            if !seen.contains(name) {
                errors.push(format!("{name} is never used"));
            }
        }
        for decl in ["const", "override", "var", "let", "alias", "fn", "struct"] {
            for w in words.windows(2) {
                if w[0] == decl && self.names.contains(&w[1]) {
                    errors.push(format!("`{decl} {}` declares a prelude name again", w[1]));
                }
            }
        }
        if let Some(i) = code.find("0x") {
            let line = code[..i].lines().count().max(1);
            errors.push(format!(
                "hex literal at line {line}: bits come from the prelude"
            ));
        }
        for line in code.lines() {
            let t = tokens(line);
            for w in t.windows(3) {
                let (a, op, b) = (w[0], w[1], w[2]);
                let number = |x: &str| x.starts_with(|c: char| c.is_ascii_digit());
                if ["==", "!=", "<", ">", "<=", ">="].contains(&op)
                    && ((coded.contains(&a) && number(b)) || (number(a) && coded.contains(&b)))
                {
                    errors.push(format!("`{a} {op} {b}` compares a code with a bare number"));
                }
            }
        }
        errors
    }
}

/// The tokens of one line of WGSL: words (identifiers with their `.member`s, numbers),
/// comparison operators, and every other character on its own; spaces dropped.
fn tokens(line: &str) -> Vec<&str> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    let mut out = Vec::new();
    let mut i = 0;
    let b = line.as_bytes();
    while i < b.len() {
        let c = b[i] as char;
        let len = if word(c) {
            line[i..].find(|c: char| !word(c)).unwrap_or(line.len() - i)
        } else if matches!(&line[i..(i + 2).min(line.len())], "==" | "!=" | "<=" | ">=") {
            2
        } else {
            line[i..].chars().next().map_or(1, char::len_utf8)
        };
        if !line[i..i + len].trim().is_empty() {
            out.push(&line[i..i + len]);
        }
        i += len;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::choice! {
        /// A test set.
        enum Mode {
            /// One.
            Plain = "plain",
            /// Two.
            TwoWords = "two-words",
        }
    }

    fn code(m: Mode) -> u32 {
        match m {
            Mode::Plain => 0,
            Mode::TwoWords => 1,
        }
    }

    #[test]
    fn lines_names_and_exact_f32_bits() {
        let mut p = Prelude::new();
        p.u32("N", 9).bool("WGM", true).bits("MAGIC", 0x7ef3_11c3);
        p.f32_bits("TINY", 2f32.powi(-100)).codes("MODE", code);
        assert_eq!(
            p.text(),
            "const N: u32 = 9u;\nconst WGM: bool = true;\nconst MAGIC: u32 = 0x7ef311c3u;\n\
             const TINY_BITS: u32 = 0x0d800000u; // 7.888609e-31\n\
             const MODE_PLAIN: u32 = 0u;\nconst MODE_TWO_WORDS: u32 = 1u;\n"
        );
        assert_eq!(
            p.names(),
            [
                "N",
                "WGM",
                "MAGIC",
                "TINY_BITS",
                "MODE_PLAIN",
                "MODE_TWO_WORDS"
            ]
        );
        assert_eq!(p.source(&["a", "b"]), format!("{}\na\nb", p.text()));
        // Every f32 comes back bit for bit, subnormals and extremes included.
        for x in [1.0f32, f32::MIN_POSITIVE, 1e-45, f32::MAX, 0.1, -3.5] {
            let mut q = Prelude::new();
            q.f32_bits("X", x);
            let hex = q
                .text()
                .split("0x")
                .nth(1)
                .unwrap()
                .split('u')
                .next()
                .unwrap();
            assert_eq!(f32::from_bits(u32::from_str_radix(hex, 16).unwrap()), x);
        }
    }

    #[test]
    fn kernel_checks_find_each_fault() {
        let mut p = Prelude::new();
        p.u32("N", 9).codes("MODE", code);
        let good =
            "fn f(m: u32) -> bool { return m == MODE_PLAIN || m != MODE_TWO_WORDS || N > 2u; }";
        assert_eq!(p.check_kernel(good, &["m"]), Vec::<String>::new());
        // A code may be named in a comment only (where an `else` takes it); other names not.
        let comment =
            "fn f(m: u32) -> bool { return m == MODE_PLAIN && N > 0u; } // MODE_TWO_WORDS";
        assert!(p.check_kernel(comment, &["m"]).is_empty());
        let unused = "fn f(m: u32) -> bool { return m == MODE_PLAIN; } // MODE_TWO_WORDS, N";
        assert_eq!(p.check_kernel(unused, &["m"]), ["N is never used"]);
        let again = format!("const N: u32 = 9u;\n{good}");
        assert_eq!(p.check_kernel(&again, &["m"]).len(), 1);
        let hex = format!("{good}\nconst K: u32 = 0x10u;");
        assert_eq!(p.check_kernel(&hex, &["m"]).len(), 1);
        for bare in ["m == 1u", "m!=0u", "1u == m", "p.m > 0u"] {
            let k = format!("{good}\nfn g(m: u32, p: P) -> bool {{ return {bare}; }}");
            let e = p.check_kernel(&k, &["m", "p.m"]);
            assert_eq!(e.len(), 1, "{bare}: {e:?}");
            assert!(e[0].contains("bare number"), "{e:?}");
        }
        // A longer name that merely contains a coded one is not it.
        let other = format!("{good}\nfn g(mm: u32) -> bool {{ return mm == 1u; }}");
        assert!(p.check_kernel(&other, &["m"]).is_empty());
    }
}
