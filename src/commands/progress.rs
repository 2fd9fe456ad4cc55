//! The progress bar shown on a terminal while big inputs are read.

use std::io::{self, IsTerminal};

/// Records between progress updates: rare enough to cost nothing per packet.
pub const PROGRESS_EVERY: u64 = 1 << 16;

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
