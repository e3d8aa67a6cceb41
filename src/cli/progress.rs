//! Progress bars for long commands (drawn on a terminal's stderr only, silent when piped), and
//! the [`Events`] of a library job drawn as one.

use gpu_sudoku::job::Events;
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

/// A job's events on the terminal: its progress as a bar, its notes on standard error, and
/// each finished batch file handed to `file_done` (which prints its row) with the bar out of
/// the way.
pub struct BarEvents<F> {
    bar: ProgressBar,
    file_done: F,
}

impl<F: Fn(usize, &gpu_sudoku::report::batch::FileResults) + Sync> BarEvents<F> {
    pub fn new(file_done: F) -> Self {
        BarEvents {
            bar: bar(0, ""),
            file_done,
        }
    }

    /// The job is over: the bar goes.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Events with no batch rows to print.
pub fn bar_events() -> BarEvents<fn(usize, &gpu_sudoku::report::batch::FileResults)> {
    BarEvents::new(|_, _| {})
}

impl<F: Fn(usize, &gpu_sudoku::report::batch::FileResults) + Sync> Events for BarEvents<F> {
    fn total(&self, items: u64) {
        self.bar.set_length(items);
    }
    fn label(&self, label: &str) {
        self.bar.set_message(label.to_string());
    }
    fn advance(&self, items: u64) {
        self.bar.inc(items);
    }
    fn note(&self, line: &str) {
        self.bar.suspend(|| errln!("{line}"));
    }
    fn batch_file(&self, index: usize, file: &gpu_sudoku::report::batch::FileResults) {
        self.bar.suspend(|| (self.file_done)(index, file));
    }
}
