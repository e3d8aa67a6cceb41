//! Text lines from a file, standard input or a gzip stream, in bounded memory.
//!
//! Lines end at `\n`, `\r\n`, a lone `\r` (old Mac files), NEL (U+0085), LINE SEPARATOR (U+2028)
//! or PARAGRAPH SEPARATOR (U+2029). A UTF-8 byte-order mark at the start is skipped. Every line
//! must be UTF-8 without NUL bytes and at most [`MAX_LINE_BYTES`] long; the reader stops at the
//! first byte past that, so endless or binary input (`/dev/zero`) fails in constant memory.

use super::error::ParseError;
use std::io::{self, BufRead, BufReader, Read};

/// Longest line accepted, in bytes: four times the largest puzzle line (64x64: 4096 symbols),
/// leaving room for a solution and ratings after it (or a CSV row of puzzle and solution).
pub const MAX_LINE_BYTES: usize = 16_384;

/// The UTF-8 encodings of NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR.
const UNICODE_BREAKS: [&[u8]; 3] = [b"\xC2\x85", b"\xE2\x80\xA8", b"\xE2\x80\xA9"];
/// Longest break sequence minus one: bytes of a break that may sit in the buffer unrecognised.
const BREAK_SLACK: usize = 2;

/// One line of text and its 1-based number.
pub(super) struct Line {
    pub number: usize,
    pub text: String,
}

pub(super) struct LineReader<'a> {
    file: String,
    src: Box<dyn BufRead + 'a>,
    gzip: bool,
    buf: Vec<u8>,
    /// Number of the line read last.
    number: usize,
}

/// What the first bytes say about a stream.
enum Container {
    Text,
    Gzip,
}

/// Compressed or UTF-16 input other than gzip gets a message that says what to do.
fn sniff(head: &[u8]) -> Result<Container, String> {
    let other = |what: &str| {
        Err(format!(
            "this is {what}, which is not read directly: decompress it first (gzip is read as is)"
        ))
    };
    match head {
        [0x1f, 0x8b, ..] => Ok(Container::Gzip),
        [b'P', b'K', 3, 4, ..] | [b'P', b'K', 5, 6, ..] => other("a zip archive"),
        [0xfd, b'7', b'z', b'X', b'Z', 0, ..] => other("xz-compressed data"),
        [0x28, 0xb5, 0x2f, 0xfd, ..] => other("zstd-compressed data"),
        [b'B', b'Z', b'h', b'1'..=b'9', 0x31, 0x41, 0x59, 0x26, ..] => {
            other("bzip2-compressed data")
        }
        [0xff, 0xfe, ..] | [0xfe, 0xff, ..] => {
            Err("this is UTF-16 text: save it as UTF-8 (or ASCII)".to_string())
        }
        _ => Ok(Container::Text),
    }
}

impl<'a> LineReader<'a> {
    /// Reads `reader` as text, or as the text inside it when it is gzip data (by its magic
    /// bytes, whatever the file name). `file` names the input in errors.
    pub fn new(file: &str, mut reader: impl Read + 'a) -> Result<LineReader<'a>, ParseError> {
        let whole = |message: String| ParseError::whole(file, message);
        let mut head = [0u8; 8];
        let mut got = 0;
        while got < head.len() {
            match reader.read(&mut head[got..]) {
                Ok(0) => break,
                Ok(k) => got += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(whole(format!("cannot read: {e}"))),
            }
        }
        let container = sniff(&head[..got]).map_err(whole)?;
        let src = io::Cursor::new(head[..got].to_vec()).chain(reader);
        let (src, gzip): (Box<dyn BufRead + 'a>, bool) = match container {
            Container::Text => (Box::new(BufReader::new(src)), false),
            Container::Gzip => (
                Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(src))),
                true,
            ),
        };
        Ok(LineReader {
            file: file.to_string(),
            src,
            gzip,
            buf: Vec::new(),
            number: 0,
        })
    }

    fn err(&self, column: Option<usize>, message: impl Into<String>) -> ParseError {
        ParseError {
            file: self.file.clone(),
            line: self.number,
            column,
            message: message.into(),
        }
    }

    /// Number of the line read last (0 before the first).
    pub fn last_line(&self) -> usize {
        self.number
    }

    /// The next line, `None` at the end of the input.
    pub fn next_line(&mut self) -> Result<Option<Line>, ParseError> {
        self.buf.clear();
        let too_long = match self.read_raw()? {
            None => return Ok(None),
            Some(too_long) => too_long,
        };
        self.number += 1;
        if self.number == 1 && self.buf.starts_with(b"\xEF\xBB\xBF") {
            self.buf.drain(..3);
        }
        let valid = self.check_bytes(too_long)?;
        if too_long {
            return Err(self.err(
                None,
                format!(
                    "line is longer than {MAX_LINE_BYTES} bytes, more than any puzzle format \
                     needs (is this a puzzle file?)"
                ),
            ));
        }
        debug_assert_eq!(valid, self.buf.len());
        let text = String::from_utf8(std::mem::take(&mut self.buf)).expect("checked as UTF-8");
        Ok(Some(Line {
            number: self.number,
            text,
        }))
    }

    /// Errors at the first NUL byte or invalid UTF-8 in `buf`; else the length of its valid
    /// prefix (all of it, except an incomplete character cut off by the length limit).
    fn check_bytes(&self, cut: bool) -> Result<usize, ParseError> {
        let nul = self.buf.iter().position(|&c| c == 0);
        let (valid, invalid) = match std::str::from_utf8(&self.buf) {
            Ok(s) => (s.len(), None),
            // An incomplete character at the end of a line cut by the limit is not an error.
            Err(e) if e.error_len().is_none() && cut => (e.valid_up_to(), None),
            Err(e) => (e.valid_up_to(), Some(e.valid_up_to())),
        };
        let first_bad = match (nul, invalid) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let Some(at) = first_bad else {
            return Ok(valid);
        };
        let prefix = std::str::from_utf8(&self.buf[..at]).expect("before the first bad byte");
        let column = prefix.chars().count() + 1;
        let what = if nul == Some(at) {
            "contains a NUL byte (is this a binary file?)"
        } else {
            "not UTF-8 text (is this a binary file?)"
        };
        Err(self.err(Some(column), what))
    }

    /// Reads one line's bytes, without its break, into `buf`: `None` at the end of the input,
    /// else whether the line was cut off for being longer than [`MAX_LINE_BYTES`].
    fn read_raw(&mut self) -> Result<Option<bool>, ParseError> {
        let mut any = false;
        loop {
            let chunk = match self.src.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.read_error(e)),
            };
            if chunk.is_empty() {
                return Ok(any.then_some(false));
            }
            any = true;
            let room = MAX_LINE_BYTES + BREAK_SLACK + 1 - self.buf.len();
            let window = &chunk[..chunk.len().min(room)];
            // Line feed, carriage return, or the last byte of a Unicode break.
            let stop = window
                .iter()
                .position(|&c| matches!(c, b'\n' | b'\r' | 0x85 | 0xA8 | 0xA9));
            let take = stop.map_or(window.len(), |i| i + 1);
            let stop_byte = stop.map(|i| window[i]);
            self.buf.extend_from_slice(&window[..take]);
            self.src.consume(take);
            let ended = match stop_byte {
                None => false,
                Some(b'\n') => {
                    self.buf.pop();
                    true
                }
                Some(b'\r') => {
                    self.buf.pop();
                    self.skip_line_feed()?;
                    true
                }
                Some(_) => match UNICODE_BREAKS.iter().find(|b| self.buf.ends_with(b)) {
                    Some(b) => {
                        self.buf.truncate(self.buf.len() - b.len());
                        true
                    }
                    None => false,
                },
            };
            if self.buf.len() > MAX_LINE_BYTES + if ended { 0 } else { BREAK_SLACK } {
                return Ok(Some(true));
            }
            if ended {
                return Ok(Some(false));
            }
        }
    }

    /// After a `\r`: a `\n` right after it belongs to the same break.
    fn skip_line_feed(&mut self) -> Result<(), ParseError> {
        loop {
            match self.src.fill_buf() {
                Ok(next) => {
                    if next.first() == Some(&b'\n') {
                        self.src.consume(1);
                    }
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.read_error(e)),
            }
        }
    }

    fn read_error(&self, e: io::Error) -> ParseError {
        let what = if self.gzip {
            "cannot read the gzip data"
        } else {
            "cannot read"
        };
        ParseError {
            file: self.file.clone(),
            line: self.number + 1,
            column: None,
            message: format!("{what}: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(bytes: &[u8]) -> Result<Vec<String>, ParseError> {
        let mut r = LineReader::new("t", bytes)?;
        let mut out = Vec::new();
        while let Some(l) = r.next_line()? {
            assert_eq!(l.number, out.len() + 1);
            out.push(l.text);
        }
        Ok(out)
    }

    #[test]
    fn every_line_break_ends_a_line() {
        for text in [
            "a\nb\nc",
            "a\r\nb\r\nc\r\n",
            "a\rb\rc\r",
            "a\u{85}b\u{2028}c\u{2029}",
            "\u{feff}a\nb\rc",
        ] {
            assert_eq!(lines(text.as_bytes()).unwrap(), ["a", "b", "c"], "{text:?}");
        }
        assert_eq!(lines(b"a\r\r\nb").unwrap(), ["a", "", "b"]);
        assert_eq!(lines(b"").unwrap(), Vec::<String>::new());
        assert_eq!(lines(b"\n").unwrap(), [""]);
        // Other characters sharing the break's last byte (é is C3 A9) are text.
        assert_eq!(
            lines("é\u{a8}\u{85}x".as_bytes()).unwrap(),
            ["é\u{a8}", "x"]
        );
    }

    #[test]
    fn a_break_split_across_reads_is_one_break() {
        // A reader that hands out one byte at a time.
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
                let Some((&first, rest)) = self.0.split_first() else {
                    return Ok(0);
                };
                out[0] = first;
                self.0 = rest;
                Ok(1)
            }
        }
        let text = "first\r\nsecond\u{2028}third\rfourth";
        let mut r = LineReader::new("t", Trickle(text.as_bytes())).unwrap();
        let mut got = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            got.push(l.text);
        }
        assert_eq!(got, ["first", "second", "third", "fourth"]);
    }

    #[test]
    fn bad_bytes_are_located() {
        let e = lines(b"ok\nab\xffc").unwrap_err();
        assert_eq!((e.line, e.column), (2, Some(3)));
        assert!(e.message.contains("not UTF-8"), "{e}");
        let e = lines("ok\u{2028}\u{e9}\0".as_bytes()).unwrap_err();
        assert_eq!((e.line, e.column), (2, Some(2)));
        assert!(e.message.contains("NUL"), "{e}");
        let e = lines(b"\xff\xfe1\x002\x00").unwrap_err();
        assert!(e.message.contains("UTF-16"), "{e}");
        let e = lines(b"PK\x03\x04rest").unwrap_err();
        assert!(e.message.contains("zip"), "{e}");
    }

    #[test]
    fn a_line_at_the_limit_is_read_and_one_byte_more_is_refused() {
        let mut text = vec![b'.'; MAX_LINE_BYTES];
        text.push(b'\n');
        assert_eq!(lines(&text).unwrap()[0].len(), MAX_LINE_BYTES);
        text.insert(0, b'.');
        let e = lines(&text).unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.message.contains("longer than 16384 bytes"), "{e}");
    }

    #[test]
    fn endless_input_fails_in_bounded_memory() {
        let e = lines_from(io::repeat(b'7')).unwrap_err();
        assert!(e.message.contains("longer than"), "{e}");
        let e = lines_from(io::repeat(0)).unwrap_err();
        assert_eq!((e.line, e.column), (1, Some(1)));
        assert!(e.message.contains("NUL"), "{e}");
    }

    fn lines_from(src: impl Read) -> Result<usize, ParseError> {
        let mut r = LineReader::new("t", src)?;
        let mut count = 0;
        while r.next_line()?.is_some() {
            count += 1;
        }
        Ok(count)
    }
}
