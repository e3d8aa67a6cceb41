//! Progress bars for long commands: drawn on a terminal's stderr only, silent when piped.

use indicatif::{ProgressBar, ProgressStyle};

/// A bar of `len` steps labelled `what`; hidden when stderr is not a terminal.
pub fn bar(len: usize, what: &str) -> ProgressBar {
    let pb = ProgressBar::new(len as u64);
    pb.set_style(
        ProgressStyle::with_template("{msg} {bar:40} {pos}/{len} [{elapsed_precise}, eta {eta}]")
            .expect("valid template"),
    );
    pb.set_message(what.to_string());
    pb
}
