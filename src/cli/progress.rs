//! Progress bars for long commands (drawn on a terminal's stderr only, silent when piped) and
//! pipe-friendly output.

use indicatif::{ProgressBar, ProgressStyle};

/// The one progress bar of every command: `len` steps labelled `what` (change the label with
/// `set_message`), drawn on stderr only when it is a terminal, so pipes and files stay clean.
pub fn bar(len: usize, what: &str) -> ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(len as u64);
    pb.set_style(
        ProgressStyle::with_template("{msg} {bar:40} {pos}/{len} [{elapsed_precise}, eta {eta}]")
            .expect("valid template"),
    );
    pb.set_message(what.to_string());
    pb
}
