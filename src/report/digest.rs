//! A report's digest: the last field of every JSON report (`batch`, `compare`, `sweep`, and
//! what `merge` writes) is `"digest"`, the [`crate::shard::content_hash`] of every byte of the
//! document before that field. Whatever reads a report back (`merge`) checks it first, so a
//! report changed after it was written, by a byte or a reformatting, is refused by name before
//! any of its records is believed.

use crate::shard::ContentHasher;
use std::io::{self, Write};

/// What joins the digest to the document before it (the pretty printer's indentation).
const FIELD: &[u8] = b",\n  \"digest\": \"";

/// Writes the pretty-printed JSON object that `body` writes to `w`, with the `digest` field
/// added as its last field, then a newline. `body` must write one object with at least one
/// field, pretty-printed with two-space indentation (what `serde_json::to_writer_pretty`
/// writes); it streams through, only its last two bytes (`\n}`) held back.
pub fn write_signed(
    w: &mut dyn Write,
    body: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let mut signer = Signer {
        inner: w,
        hash: ContentHasher::new(),
        held: Vec::with_capacity(2),
    };
    body(&mut signer)?;
    let Signer {
        inner,
        mut hash,
        held,
        ..
    } = signer;
    if held != b"\n}" {
        return Err(io::Error::other(
            "a report's JSON must be a pretty-printed object with fields (internal error)",
        ));
    }
    hash.update(FIELD);
    let tail = format!("{}\"\n}}\n", hash.finish());
    inner.write_all(FIELD)?;
    inner.write_all(tail.as_bytes())
}

/// Passes bytes through, hashing them, and holds the last two back.
struct Signer<'a> {
    inner: &'a mut dyn Write,
    hash: ContentHasher,
    held: Vec<u8>,
}

impl Signer<'_> {
    fn pass(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.inner.write_all(bytes)?;
        self.hash.update(bytes);
        Ok(())
    }
}

impl Write for Signer<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // Every byte but the last two seen so far passes (a long `buf` without a copy); those
        // two are held.
        let mut held = std::mem::take(&mut self.held);
        if buf.len() >= 2 {
            self.pass(&held)?;
            self.pass(&buf[..buf.len() - 2])?;
            held.clear();
            held.extend_from_slice(&buf[buf.len() - 2..]);
        } else {
            held.extend_from_slice(buf);
            let pass = held.len().saturating_sub(2);
            self.pass(&held[..pass])?;
            held.drain(..pass);
        }
        self.held = held;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Checks the digest of a report's text; why not, for a message that names the file.
pub fn check(text: &str) -> Result<(), String> {
    let bytes = text.trim_end_matches(['\n', '\r', ' ', '\t']).as_bytes();
    let Some(at) = bytes.windows(FIELD.len()).rposition(|w| w == FIELD) else {
        return Err(
            "it carries no digest: it was written by an older gpu-sudoku, or rewritten \
                    by another tool"
                .into(),
        );
    };
    let rest = &bytes[at + FIELD.len()..];
    let ok_tail = rest.len() == 16 + 3
        && rest[..16].iter().all(|b| b.is_ascii_hexdigit())
        && &rest[16..] == b"\"\n}";
    if !ok_tail {
        return Err(
            "its digest is not the report's last field: the report was changed after \
                    it was written"
                .into(),
        );
    }
    let mut hash = ContentHasher::new();
    hash.update(&bytes[..at + FIELD.len()]);
    if hash.finish().as_bytes() != &rest[..16] {
        return Err(
            "its digest does not match its content: the report was changed after it \
                    was written (a byte edited, or the JSON reformatted)"
                .into(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signed(value: &serde_json::Value) -> String {
        let mut out = Vec::new();
        write_signed(&mut out, |w| {
            serde_json::to_writer_pretty(&mut *w, value).map_err(io::Error::other)
        })
        .unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_signed_report_checks_and_stays_json() {
        let v = serde_json::json!({"a": 1, "rows": [{"x": "y\nz"}, 2.5]});
        let text = signed(&v);
        assert!(text.ends_with("\"\n}\n"), "{text}");
        check(&text).unwrap();
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["rows"], v["rows"]);
        assert_eq!(back["digest"].as_str().unwrap().len(), 16);
    }

    #[test]
    fn every_changed_byte_is_caught() {
        let text = signed(&serde_json::json!({"solved": true, "steps": 58, "grid": "123"}));
        for i in 0..text.trim_end().len() {
            let mut b = text.clone().into_bytes();
            b[i] ^= 0x01;
            if let Ok(t) = String::from_utf8(b) {
                assert!(check(&t).is_err(), "byte {i} flipped passed");
            }
        }
        let reformatted =
            serde_json::to_string(&serde_json::from_str::<serde_json::Value>(&text).unwrap())
                .unwrap();
        assert!(check(&reformatted).is_err());
        assert!(check("{\n  \"a\": 1\n}\n")
            .unwrap_err()
            .contains("no digest"));
    }

    #[test]
    fn the_bytes_pass_alike_in_any_pieces() {
        let body = b"{\n  \"a\": [1, 2, 3]\n}";
        let whole = {
            let mut out = Vec::new();
            write_signed(&mut out, |w| w.write_all(body)).unwrap();
            out
        };
        for piece in [1, 2, 3, 7] {
            let mut out = Vec::new();
            write_signed(&mut out, |w| {
                body.chunks(piece).try_for_each(|c| w.write_all(c))
            })
            .unwrap();
            assert_eq!(out, whole, "{piece}");
        }
        check(std::str::from_utf8(&whole).unwrap()).unwrap();
    }

    #[test]
    fn a_body_that_is_not_a_pretty_object_is_an_error() {
        let mut out = Vec::new();
        assert!(write_signed(&mut out, |w| w.write_all(b"[1]")).is_err());
    }
}
