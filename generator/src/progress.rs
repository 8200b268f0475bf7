//! Progress bars for `dtb generate`: one for the whole build, one for the table being solved.

use std::sync::Mutex;

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
        }
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
        for FinishedTable {
            signature,
            stats: s,
            ..
        } in tables
        {
            let line = format!(
                "{signature:>10}: {} positions, {} wins, {} draws, {} losses, longest win {} plies (the pair: solved in {solving:.1} s, written in {writing:.1} s)",
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
    }
}

fn pair_name(signature: Signature) -> String {
    if signature.flipped() == signature {
        signature.to_string()
    } else {
        format!("{signature}+{}", signature.flipped())
    }
}
