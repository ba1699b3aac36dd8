//! Progress on long work (calibration, `bench`, large sorts, large file reads) and the CLI's log lines.
//!
//! Progress bars and spinners draw on standard error only when it is a terminal: on a pipe or in a file there
//! is nothing but the one-line notes of what is being done. Debug lines (`-v` / `VKSORT_LOG=debug`) go to
//! standard error too.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

static VERBOSE: AtomicBool = AtomicBool::new(false);

/// Turns debug lines on (the CLI's `-v`, or `VKSORT_LOG=debug` in the environment).
pub fn set_verbose(on: bool) {
    VERBOSE.store(on, Ordering::Relaxed);
}

/// Whether debug lines are printed: [`set_verbose`], or `VKSORT_LOG=debug` (or `trace`).
pub fn verbose() -> bool {
    VERBOSE.load(Ordering::Relaxed)
        || std::env::var("VKSORT_LOG").is_ok_and(|v| {
            let v = v.to_ascii_lowercase();
            v == "debug" || v == "trace"
        })
}

/// Prints `vksort: debug: MSG` to standard error when [`verbose`].
pub fn debug(msg: impl AsRef<str>) {
    if verbose() {
        eprintln!("vksort: debug: {}", msg.as_ref());
    }
}

/// Prints `vksort: warning: MSG` to standard error.
pub fn warn(msg: impl AsRef<str>) {
    eprintln!("vksort: warning: {}", msg.as_ref());
}

/// Whether progress is drawn: standard error is a terminal (and `VKSORT_PROGRESS` is not `0`).
pub fn enabled() -> bool {
    std::io::stderr().is_terminal() && std::env::var("VKSORT_PROGRESS").map_or(true, |v| v != "0")
}

/// A bar of `total` steps with a message (hidden when [`enabled`] is false).
pub fn bar(total: u64) -> indicatif::ProgressBar {
    let b = indicatif::ProgressBar::with_draw_target(
        Some(total),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if !enabled() {
        b.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    b.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed_precise} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    b
}

/// A bar of `total` bytes (file reads).
pub fn bytes_bar(total: u64, what: &str) -> indicatif::ProgressBar {
    let b = bar(total);
    b.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg} {bar:40} {bytes}/{total_bytes} {bytes_per_sec}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    b.set_message(what.to_string());
    b
}

/// A spinner that names the stage of a long operation ([`Stages::stage`]); drawn only when `show` and
/// [`enabled`], cleared when dropped.
pub struct Stages {
    spinner: Option<indicatif::ProgressBar>,
}

impl Stages {
    pub fn new(show: bool) -> Self {
        let spinner = (show && enabled()).then(|| {
            let s = indicatif::ProgressBar::new_spinner();
            s.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            s.set_style(
                indicatif::ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
            );
            s.enable_steady_tick(Duration::from_millis(120));
            s
        });
        Self { spinner }
    }

    /// Names the stage now running (and prints it as a debug line).
    pub fn stage(&self, what: impl Into<String>) {
        let what = what.into();
        debug(&what);
        if let Some(s) = &self.spinner {
            s.set_message(what);
        }
    }
}

impl Drop for Stages {
    fn drop(&mut self) {
        if let Some(s) = &self.spinner {
            s.finish_and_clear();
        }
    }
}
