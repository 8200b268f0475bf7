//! Progress bars for `dtb generate`: one for the whole build, one for the table being solved.

use std::sync::Mutex;
use std::time::Instant;

use dprobe::index::Signature;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::pure::build::{BuildObserver, FinishedTable, PairTimes, Planned};
use crate::pure::solve::Progress;

/// Bars on standard error (hidden when it is not a terminal), and one line per finished table.
pub struct Bars {
    overall: ProgressBar,
    table: ProgressBar,
    /// Seconds spent solving and writing the pairs built so far.
    totals: Mutex<(f64, f64)>,
    /// The whole build's estimated work, for the time left printed after each pair.
    estimate: Mutex<Estimate>,
}

/// The work of a build, in the plan's estimated CPU seconds: what is done, what is left. The
/// time left is the time so far scaled by the work left over the work done, so that the model's
/// error on this machine cancels out and only its error between piece counts remains.
struct Estimate {
    started: Instant,
    done: f64,
    total: f64,
}

impl Estimate {
    /// "the build: 37 % done in 12 min, about 21 min left", once some work is done.
    fn describe(&self) -> Option<String> {
        if self.total <= 0.0 || self.done <= 0.0 {
            return None;
        }
        let elapsed = self.started.elapsed().as_secs_f64();
        let share = (self.done / self.total).min(1.0);
        let left = elapsed * (self.total - self.done).max(0.0) / self.done;
        Some(format!(
            "the build: {:.1} % done in {}, about {} left",
            100.0 * share,
            duration(elapsed),
            duration(left)
        ))
    }
}

/// `s` seconds as a person reads them: "45 s", "12 min", "2 h 05 min".
fn duration(s: f64) -> String {
    let s = s.round() as u64;
    match s {
        0..120 => format!("{s} s"),
        120..7200 => format!("{} min", (s + 30) / 60),
        _ => format!("{} h {:02} min", s / 3600, s % 3600 / 60),
    }
}

impl Bars {
    /// Bars for a build of `total` positions.
    pub fn new(total: u64) -> Bars {
        let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
        let overall = multi.add(ProgressBar::new(total));
        overall.set_style(
            ProgressStyle::with_template(
                "all tables {bar:30} {percent:>3}% {human_pos}/{human_len} positions, {per_sec}, {eta} left",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        let table = multi.add(ProgressBar::new(0));
        table.set_style(
            ProgressStyle::with_template("{prefix:>10} {msg:<14} {bar:30} {per_sec}, {eta} left")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Bars {
            overall,
            table,
            totals: Mutex::new((0.0, 0.0)),
            estimate: Mutex::new(Estimate {
                started: Instant::now(),
                done: 0.0,
                total: 0.0,
            }),
        }
    }

    /// Prints, after each pair, the share of the build done and an estimate of the time left,
    /// the build being `pairs`.
    pub fn with_estimate(self, pairs: &[Planned]) -> Bars {
        if let Ok(mut estimate) = self.estimate.lock() {
            estimate.total = pairs.iter().map(Planned::estimated_cpu_seconds).sum();
        }
        self
    }

    /// Seconds spent solving and writing the pairs built so far (tables found on disk take
    /// neither).
    pub fn solving_and_writing(&self) -> (f64, f64) {
        *self.totals.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Clears the bars.
    pub fn finish(&self) {
        self.table.finish_and_clear();
        self.overall.finish();
    }
}

impl Progress for Bars {
    fn advance(&self, positions: u64) {
        self.table.inc(positions);
    }

    fn phase(&self, name: &str, total: u64) {
        self.table.set_length(total);
        self.table.set_position(0);
        self.table.set_message(name.to_string());
    }
}

impl BuildObserver for Bars {
    fn pair_started(&self, planned: &Planned) {
        self.table.set_prefix(pair_name(planned.signature));
        self.table.reset_eta();
    }

    fn pair_solved(&self, _planned: &Planned) {
        // Writing reports no progress of its own: an empty bar with the phase's name.
        self.phase("writing files", 0);
    }

    fn pair_finished(&self, planned: &Planned, tables: &[FinishedTable], times: PairTimes) {
        self.overall.inc(planned.positions);
        let PairTimes { solving, writing } = times;
        {
            let mut totals = self.totals.lock().unwrap_or_else(|e| e.into_inner());
            totals.0 += solving;
            totals.1 += writing;
        }
        let progress = {
            let mut estimate = self.estimate.lock().unwrap_or_else(|e| e.into_inner());
            estimate.done += planned.estimated_cpu_seconds();
            estimate
                .describe()
                .map(|d| format!("; {d}"))
                .unwrap_or_default()
        };
        for FinishedTable {
            signature,
            stats: s,
            ..
        } in tables
        {
            let line = format!(
                "{signature:>10}: {} positions, {} wins, {} draws, {} losses, longest win {} plies (the pair: solved in {solving:.1} s, written in {writing:.1} s{progress})",
                s.positions, s.wins, s.draws, s.losses, s.max_dtw
            );
            // Without a terminal (a log file, a cluster job) the bars are hidden: print plainly.
            if self.overall.is_hidden() {
                eprintln!("{line}");
            } else {
                self.overall.println(line);
            }
        }
    }

    fn pair_skipped(&self, planned: &Planned) {
        // Out of the count rather than counted as done at once: the rate and the time left are
        // those of the work this run does (a resumed build would otherwise promise too much).
        let left = self.overall.length().unwrap_or(0);
        self.overall
            .set_length(left.saturating_sub(planned.positions));
        let mut estimate = self.estimate.lock().unwrap_or_else(|e| e.into_inner());
        estimate.total -= planned.estimated_cpu_seconds();
    }
}

fn pair_name(signature: Signature) -> String {
    if signature.flipped() == signature {
        signature.to_string()
    } else {
        format!("{signature}+{}", signature.flipped())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_time_left_is_the_time_so_far_scaled_by_the_work_left() {
        let started = Instant::now().checked_sub(Duration::from_secs(60)).unwrap();
        let mut estimate = Estimate {
            started,
            done: 0.0,
            total: 100.0,
        };
        assert_eq!(estimate.describe(), None, "nothing done: no estimate yet");
        estimate.done = 25.0;
        assert_eq!(
            estimate.describe().as_deref(),
            Some("the build: 25.0 % done in 60 s, about 3 min left")
        );
        estimate.done = 100.0;
        assert_eq!(
            estimate.describe().as_deref(),
            Some("the build: 100.0 % done in 60 s, about 0 s left")
        );
    }

    #[test]
    fn durations_read_as_seconds_minutes_or_hours() {
        assert_eq!(duration(44.6), "45 s");
        assert_eq!(duration(150.0), "3 min");
        assert_eq!(duration(7500.0), "2 h 05 min");
    }
}
