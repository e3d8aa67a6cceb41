//! CSV, written and read one way everywhere: [`Writer`] writes every report's CSV with the csv
//! crate (a field is quoted only when it holds a comma, a quote or a line break), and
//! [`split_line`] reads every CSV the project takes in (puzzle files, sweep CSVs, traces, wide
//! CSVs) with the csv crate's parser, a line at a time, so that each field knows its column and
//! every error is located. A field cannot span lines: the readers are line-based and name the
//! line of every mistake.

use std::io::Write;

/// Writes CSV rows to `W`; [`Writer::finish`] flushes them (a row is not written until then).
pub struct Writer<W: Write> {
    inner: csv::Writer<W>,
}

impl<W: Write> Writer<W> {
    pub fn new(w: W) -> Self {
        let inner = csv::WriterBuilder::new()
            .quote_style(csv::QuoteStyle::Necessary)
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(w);
        Writer { inner }
    }

    /// Writes one row. Every row must have as many fields as the first (the header): a row of
    /// another width is an error, not a shifted table.
    pub fn row<I, T>(&mut self, fields: I) -> std::io::Result<()>
    where
        I: IntoIterator<Item = T>,
        T: AsRef<[u8]>,
    {
        self.inner
            .write_record(fields)
            .map_err(std::io::Error::from)
    }

    /// Flushes and hands back `W`.
    pub fn finish(self) -> std::io::Result<W> {
        self.inner
            .into_inner()
            .map_err(|e| std::io::Error::other(e.error().to_string()))
    }
}

/// A table of rows as text: a header, then `rows` (each as wide as the header).
pub fn to_string<H, R, T>(
    header: impl IntoIterator<Item = H>,
    rows: impl IntoIterator<Item = R>,
) -> std::io::Result<String>
where
    H: AsRef<[u8]>,
    R: IntoIterator<Item = T>,
    T: AsRef<[u8]>,
{
    let mut w = Writer::new(Vec::new());
    w.row(header)?;
    for r in rows {
        w.row(r)?;
    }
    let bytes = w.finish()?;
    String::from_utf8(bytes).map_err(std::io::Error::other)
}

/// One row as text, without its line break (for a CSV that grows a row at a time).
pub fn line<I, T>(fields: I) -> String
where
    I: IntoIterator<Item = T>,
    T: AsRef<[u8]>,
{
    let mut w = Writer::new(Vec::new());
    // Writing one row to memory cannot fail: there is no first row to differ from.
    let bytes = w.row(fields).and_then(|()| w.finish()).unwrap_or_default();
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    text.pop(); // the line break
    text
}

/// How many bytes `text` takes as a field (quoted when it must be).
pub fn field_len(text: &str) -> usize {
    if text.contains([',', '"', '\n', '\r']) {
        text.len() + 2 + text.matches('"').count()
    } else {
        text.len()
    }
}

/// One field of a line: its text (unquoted, trimmed) and the 1-based column (in characters)
/// where that text starts.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub text: String,
    pub column: usize,
}

/// A line that is not CSV: the 1-based column of the mistake and what it is.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    pub column: usize,
    pub why: &'static str,
}

/// Splits one line (without its line break) into fields with the csv crate's parser: fields
/// are separated by commas and may be quoted (`"a,b"`, `""` for a quote inside). Whitespace
/// around a field is not part of it. A quoted field must close on its line, and only
/// whitespace may follow its closing quote. An empty line has no fields.
pub fn split_line(line: &str) -> Result<Vec<Field>, FieldError> {
    let bytes = line.as_bytes();
    let mut parser = csv_core::ReaderBuilder::new()
        .terminator(csv_core::Terminator::Any(b'\n'))
        .build();
    // A field's text is never longer than the line it comes from.
    let mut out = vec![0u8; bytes.len()];
    let mut fields = Vec::new();
    let (mut pos, mut start, mut written) = (0, 0, 0);
    loop {
        let (result, read, wrote) = parser.read_field(&bytes[pos..], &mut out[written..]);
        pos += read;
        written += wrote;
        match result {
            // The line is all read: the next call (with nothing left) ends its last field.
            csv_core::ReadFieldResult::InputEmpty => {}
            csv_core::ReadFieldResult::OutputFull => {
                return Err(FieldError {
                    column: column_at(line, start),
                    why: "this field does not parse as CSV",
                })
            }
            csv_core::ReadFieldResult::Field { record_end } => {
                let raw = &line[start..pos];
                let raw = if record_end {
                    raw
                } else {
                    raw.strip_suffix(',').unwrap_or(raw)
                };
                let text = String::from_utf8_lossy(&out[..written]);
                fields.push(field(line, start, raw, text.trim())?);
                (start, written) = (pos, 0);
                if record_end {
                    return Ok(fields);
                }
            }
            csv_core::ReadFieldResult::End => return Ok(fields),
        }
    }
}

/// The 1-based character column of byte `at` of `line`.
fn column_at(line: &str, at: usize) -> usize {
    line[..at].chars().count() + 1
}

/// The field whose source is `raw`, starting at byte `start` of `line`; `text` is what the
/// parser made of it. A quoted field is checked to close, with nothing but whitespace after.
fn field(line: &str, start: usize, raw: &str, text: &str) -> Result<Field, FieldError> {
    let lead = raw.len() - raw.trim_start().len();
    let at = start + lead;
    if lead > 0 || !raw.starts_with('"') {
        return Ok(Field {
            text: text.to_string(),
            column: column_at(line, at),
        });
    }
    // The closing quote: the first quote in the body that is not one of a `""` pair.
    let body = &raw.as_bytes()[1..];
    let mut i = 0;
    let close = loop {
        match body[i..].iter().position(|&b| b == b'"') {
            None => {
                return Err(FieldError {
                    column: column_at(line, at),
                    why: "this quoted field is not closed on its line (fields that span lines are not read)",
                })
            }
            Some(k) if body.get(i + k + 1) == Some(&b'"') => i += k + 2,
            Some(k) => break i + k,
        }
    };
    let after = &raw[1 + close + 1..];
    if let Some(k) = after.find(|c: char| !c.is_whitespace()) {
        return Err(FieldError {
            column: column_at(line, at + 1 + close + 1 + k),
            why: "text after the closing quote of a field: expected a comma",
        });
    }
    Ok(Field {
        text: text.to_string(),
        column: column_at(line, at + 1),
    })
}

/// The lines of a CSV text that hold something, with their 1-based numbers; a byte-order mark
/// (which spreadsheets may save) before the first is dropped.
pub fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| (i + 1, l))
}

/// The fields' texts of line `number` of the CSV `name`, or an error located as
/// `name:line:column`.
pub fn record(name: &str, number: usize, line: &str) -> anyhow::Result<Vec<String>> {
    split_line(line)
        .map(|fields| fields.into_iter().map(|f| f.text).collect())
        .map_err(|e| anyhow::anyhow!("{name}:{number}:{}: {}", e.column, e.why))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(line: &str) -> Vec<String> {
        split_line(line)
            .unwrap()
            .into_iter()
            .map(|f| f.text)
            .collect()
    }

    #[test]
    fn fields_split_on_commas_and_unquote() {
        assert_eq!(texts("a,b , c"), ["a", "b", "c"]);
        assert_eq!(texts("\"a,b\",\"say \"\"hi\"\"\""), ["a,b", "say \"hi\""]);
        assert_eq!(texts("a,"), ["a", ""]);
        assert_eq!(texts(",,"), ["", "", ""]);
        assert_eq!(texts("\"\""), [""]);
        assert!(texts("").is_empty());
        assert_eq!(texts("ä,\"ö,ü\""), ["ä", "ö,ü"]);
    }

    #[test]
    fn fields_know_their_columns() {
        let f = split_line("ab,  cd,\"ef\",ä\"x\"").unwrap();
        let cols: Vec<usize> = f.iter().map(|f| f.column).collect();
        assert_eq!(cols, [1, 6, 10, 14]);
        assert_eq!(f[3].text, "ä\"x\"");
    }

    #[test]
    fn a_bad_quote_is_located() {
        let e = split_line("a,\"bc,d").unwrap_err();
        assert_eq!(e.column, 3);
        assert!(e.why.contains("not closed"), "{}", e.why);
        let e = split_line("a,\"bc\" x,d").unwrap_err();
        assert_eq!(e.column, 8);
        assert!(e.why.contains("after the closing quote"), "{}", e.why);
        assert_eq!(texts("\"bc\"  ,d"), ["bc", "d"]);
        let e = record("f.csv", 7, "\"x").unwrap_err().to_string();
        assert_eq!(
            e,
            "f.csv:7:1: this quoted field is not closed on its line (fields that span lines are not read)"
        );
    }

    #[test]
    fn written_rows_read_back() {
        let odd = ["plain", "a,b", "say \"hi\"", "", " x "];
        let text = to_string(["h1", "h2", "h3", "h4", "h5"], [odd]).unwrap();
        assert_eq!(
            text,
            "h1,h2,h3,h4,h5\nplain,\"a,b\",\"say \"\"hi\"\"\",, x \n"
        );
        let rows: Vec<(usize, &str)> = lines(&text).collect();
        assert_eq!(rows.len(), 2);
        assert_eq!(texts(rows[1].1), ["plain", "a,b", "say \"hi\"", "", "x"]);
        for f in odd {
            let mut w = Writer::new(Vec::new());
            w.row([f, "z"]).unwrap();
            let line = String::from_utf8(w.finish().unwrap()).unwrap();
            assert_eq!(line.len(), field_len(f) + ",z\n".len(), "{f:?}");
        }
    }

    #[test]
    fn a_row_of_another_width_is_refused() {
        let mut w = Writer::new(Vec::new());
        w.row(["a", "b"]).unwrap();
        assert!(w.row(["c"]).is_err());
    }

    #[test]
    fn a_byte_order_mark_and_blank_lines_are_skipped() {
        let l: Vec<(usize, &str)> = lines("\u{feff}a,b\n\n  \n1,2\r\n").collect();
        assert_eq!(l, [(1, "a,b"), (4, "1,2")]);
    }
}
