//! What the command line shows while inputs are read: a progress bar on a terminal for
//! big inputs, and the notices about the inputs on stderr.

use std::io::{self, IsTerminal};

use crate::capture::merge::Notice;
use crate::pipeline::Observer;

/// Inputs smaller than this finish too fast for a progress bar to help.
const PROGRESS_MIN_BYTES: u64 = 64 << 20;

/// A progress bar on stderr for big inputs, shown only when stderr is a terminal.
pub struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    pub fn new(total: u64) -> Self {
        if total < PROGRESS_MIN_BYTES || !io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(total),
            indicatif::ProgressDrawTarget::stderr(),
        );
        let style = indicatif::ProgressStyle::with_template(
            "{bar:30} {bytes}/{total_bytes} {bytes_per_sec} {msg} ETA {eta}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
        bar.set_style(style);
        Progress(Some(bar))
    }

    pub fn update(&self, bytes: u64, packets: u64) {
        if let Some(bar) = &self.0 {
            bar.set_position(bytes);
            let secs = bar.elapsed().as_secs_f64();
            if secs > 0.0 {
                bar.set_message(format!("{:.2} Mpkt/s", packets as f64 / secs / 1e6));
            }
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

/// Says on stderr what reading an input found.
pub fn print_notice(files: &[String], notice: &Notice) {
    let name = files.get(notice.file).map_or("?", String::as_str);
    if notice.fatal {
        eprintln!("rdmadump: {name}: {}", notice.message);
    } else {
        eprintln!("rdmadump: warning: {name}: {}", notice.message);
    }
}

/// The pipeline's observer for the commands: the progress bar, and the notices on stderr;
/// neither for a quiet pass, which only prepares the real one.
pub struct StderrObserver {
    bar: Progress,
    quiet: bool,
}

impl StderrObserver {
    pub fn new(quiet: bool) -> Self {
        StderrObserver {
            bar: Progress(None),
            quiet,
        }
    }
}

impl Observer for StderrObserver {
    fn started(&mut self, total_bytes: u64) {
        if !self.quiet {
            self.bar = Progress::new(total_bytes);
        }
    }

    fn progress(&mut self, bytes: u64, records: u64) {
        self.bar.update(bytes, records);
    }

    fn notice(&mut self, files: &[String], notice: &Notice) {
        if !self.quiet {
            print_notice(files, notice);
        }
    }

    fn finished(&mut self) {
        self.bar.finish();
    }
}
