//! `dtb`: the command-line program over the generator and probe libraries. This file holds the
//! arguments and hands each command to its module; what a command does is in that module.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use dprobe::{
    draw::{DrawPreset, Interpretation},
    DrawRules, Variant,
};
use draughts_generator::pure::build::BuildOptions;
use draughts_generator::pure::parts::DEFAULT_PART_POSITIONS;
use draughts_generator::pure::write::Compression;

use error::CliError;
use probe::{Counts, DrawRequest};

// Defined before the modules: a `macro_rules!` macro is visible only in the text after it.
/// Prints a line to standard output; a closed pipe (`dtb stats | head`) is not an error.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

mod common;
mod demo;
mod error;
mod find;
mod generate;
mod info;
mod perft;
mod plan;
mod probe;
mod serve;
mod stats;
mod verify;

#[derive(Parser)]
#[command(
    name = "dtb",
    version,
    about = "Endgame tablebases for 8x8 draughts with flying kings"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Which tables: a variant's, in a folder.
#[derive(Args)]
struct Tables {
    /// russian, brazilian, portuguese or spanish (Portuguese and Spanish share tables).
    #[arg(long)]
    variant: Variant,
    /// The folder of the tables.
    #[arg(long, default_value = "tables")]
    dir: PathBuf,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaf positions of the move tree to a given depth (checks the move generator).
    Perft {
        /// russian, brazilian, portuguese or spanish.
        #[arg(long)]
        variant: Variant,
        /// Depth in plies.
        #[arg(long)]
        depth: u32,
        /// Start position as a PDN FEN string in the variant's numbering (default: the initial
        /// position).
        #[arg(long)]
        fen: Option<String>,
        /// Also print the count below each legal move.
        #[arg(long)]
        divide: bool,
    },
    /// Build every missing table of a variant's move rules up to a number of pieces.
    Generate {
        #[command(flatten)]
        tables: Tables,
        /// The largest number of pieces on the board.
        #[arg(long)]
        pieces: u32,
        /// Worker threads (default: every core).
        #[arg(long)]
        threads: Option<usize>,
        /// How the compressed files are compressed: `quick` (WDL files as `small` makes them,
        /// DTW files with a quicker zstd parser, about 9 % larger) or `small` (both with the
        /// setting tuned for size per second; compressing takes about three times as long).
        #[arg(long, value_enum, default_value_t = CompressionChoice::Quick)]
        compression: CompressionChoice,
        /// A plain zstd level of the compressed files, 1 to 22, instead of `--compression`:
        /// 19 gives files under 1 % smaller than `small` for about eight times its compression
        /// time.
        #[arg(long, value_parser = clap::value_parser!(i32).range(1..=22), conflicts_with = "compression")]
        zstd_level: Option<i32>,
        /// Also write the compressed files of tables already built again, under the compression
        /// asked for, from their raw files (nothing is solved again): `--recompress
        /// --compression small` shrinks the DTW files of a set built with the default.
        #[arg(long)]
        recompress: bool,
        /// Keep the raw working files (`.dtr`, one byte a position where the table's distances
        /// allow, else two) when the build is done.
        /// Without it a table's raw file is deleted as soon as no table still to be built reads
        /// it (up to 6 pieces, the rule tables built after the pure ones read each pair's own),
        /// and the finished build leaves only the published files: the tables they hold are
        /// read back from those when a later build, `verify` or `stats` needs them.
        #[arg(long)]
        keep_raw: bool,
        /// Build one unit of `dtb plan` only (a pair of tables, a part of a large pair
        /// `<pair>.levels-<low>-<high>`, or `rule-tables`), from the tables already in the
        /// folder: what a cluster job runs. Fails, naming the table or part, if one it reads is
        /// not there yet.
        #[arg(long, value_name = "ID")]
        unit: Option<String>,
        /// Print each table this run solves on standard output, as a line of JSON with the
        /// keys of `dtb stats --json` (statistics, longest win, checksum of the values): a
        /// build's figures without reading its tables again. Tables found built are not printed.
        #[arg(long)]
        json: bool,
        /// zstd level of the rule tables, 1 to 22; higher levels compress more slowly.
        #[arg(long, default_value_t = generate::RULES_ZSTD_LEVEL, value_parser = clap::value_parser!(i32).range(1..=22))]
        rules_zstd_level: i32,
        /// The counted draw rules of the rule tables built after the pure ones (`none`: no rule
        /// tables).
        #[command(flatten)]
        rules: DrawChoice,
    },
    /// Cut a build into units (pairs of tables, then the rule tables) with the units each
    /// waits for, and each one's positions, memory and CPU time estimated: for a scheduler.
    Plan {
        /// russian, brazilian, portuguese or spanish.
        #[arg(long)]
        variant: Variant,
        /// The largest number of pieces on the board.
        #[arg(long)]
        pieces: u32,
        /// Print JSON: `{"units": [{"id", "tables", "after", "positions", "memory_bytes",
        /// "cpu_seconds_estimate"}]}` (and `"levels": [low, high]` for a part of a pair).
        #[arg(long)]
        json: bool,
        /// Build a pair above this many positions in parts of at most this many (a level of
        /// slices at least), one unit each, so that no job holds the whole pair.
        #[arg(long, default_value_t = DEFAULT_PART_POSITIONS)]
        part_positions: u64,
        /// The counted draw rules of the rule tables (`none`: no rule-table unit).
        #[command(flatten)]
        rules: DrawChoice,
    },
    /// Facts of one table for checking endgame theory: its longest wins with their lines, or
    /// its mutual zugzwangs (where the side to move does worse than if the other side moved).
    #[command(group(
        clap::ArgGroup::new("query")
            .required(true)
            .args(["longest", "zugzwangs", "rule_changes"])
    ))]
    Find {
        #[command(flatten)]
        tables: Tables,
        /// The table, by the pieces of the side to move, `v`, the other side's (e.g. KKMvK).
        #[arg(long)]
        table: String,
        /// The N longest wins, each with its line to the end of the game.
        #[arg(long, value_name = "N")]
        longest: Option<usize>,
        /// The mutual zugzwangs: how many of each kind, and the first ones (`--limit`).
        #[arg(long)]
        zugzwangs: bool,
        /// The positions whose result the counted draw rules change (cursed wins, blessed
        /// losses), with the counters that change each on their own.
        #[arg(long)]
        rule_changes: bool,
        /// How many zugzwangs or rule changes to list.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// The counted draw rules of `--rule-changes`.
        #[command(flatten)]
        rules: DrawChoice,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print each table's statistics: positions, wins, draws, losses, captures, longest win.
    Stats {
        #[command(flatten)]
        tables: Tables,
        /// Print a JSON array instead of a table.
        #[arg(long)]
        json: bool,
        /// The counted draw rules whose results are shown, where their tables are built.
        #[command(flatten)]
        rules: DrawChoice,
    },
    /// Build the Russian tables up to 4 pieces (if missing) and probe a well-known ending.
    Demo {
        /// Where the tables go.
        #[arg(long, default_value = "tables")]
        dir: PathBuf,
    },
    /// The value of a position, and of each of its moves, from the compressed tables.
    Probe {
        #[command(flatten)]
        tables: Tables,
        /// Print JSON: `wdl`, `dtw` (plies, null for a draw) and `moves`, best first.
        #[arg(long)]
        json: bool,
        /// Also print the principal variation to the end of the game.
        #[arg(long)]
        line: bool,
        /// The counted draw rules probed under.
        #[command(flatten)]
        rules: DrawChoice,
        /// Running counts, in plies since each counter started, by counter id:
        /// `r1-three-kings=12,r4-long-diagonal=4`; `id=none` for a counter not started.
        /// Counters not given are at their start.
        #[arg(long, value_parser = probe::parse_counts)]
        counts: Option<Counts>,
        /// The position, a PDN FEN string in the variant's numbering.
        fen: String,
    },
    /// Serve a web explorer of the tables: a board to set up positions on, every move with its
    /// value, the best line, theory queries, and the JSON API behind them.
    Serve {
        /// The folder of the tables (every variant's found there is served).
        #[arg(long, default_value = "tables")]
        dir: PathBuf,
        /// The address to listen on (0.0.0.0: every network interface).
        #[arg(long, default_value = "127.0.0.1")]
        bind: std::net::IpAddr,
        /// The port to listen on (0: any free port; the address is printed).
        #[arg(long, default_value_t = 8080)]
        port: u16,
    },
    /// Print the header of a compressed table file and check its checksums.
    Info {
        /// A `.wdl`, `.dtw` or `.rules` file.
        file: PathBuf,
    },
    /// Check every table independently: each value must follow from its moves' values; and
    /// every compressed file's checksums. Then the same for the rule tables, where built.
    Verify {
        #[command(flatten)]
        tables: Tables,
        /// Worker threads (default: every core).
        #[arg(long)]
        threads: Option<usize>,
        /// The counted draw rules whose rule tables to check (by default the variant's own,
        /// where built; rules asked for must be built).
        #[command(flatten)]
        rules: DrawChoice,
    },
}

/// The compressions `--compression` names.
#[derive(Clone, Copy, clap::ValueEnum)]
enum CompressionChoice {
    /// The build's default: small WDL files, DTW files compressed quickly.
    Quick,
    /// Both kinds of file with the setting tuned for size per second.
    Small,
}

impl From<CompressionChoice> for Compression {
    fn from(choice: CompressionChoice) -> Compression {
        match choice {
            CompressionChoice::Quick => Compression::Quick,
            CompressionChoice::Small => Compression::Small,
        }
    }
}

/// Which counted draw rules: a preset and, optionally, readings other than RULES.md's.
#[derive(Args)]
struct DrawChoice {
    /// fmjd64, cbd, fpd, spanish, or none (default: the variant's own; Brazilian: cbd).
    #[arg(long)]
    draw_rules: Option<DrawPreset>,
    /// A reading of the rules other than RULES.md's, as name=value; repeat for more.
    /// r4-limit-outcome=draw|pure-value, r1-requires-no-men, forcada-exactly-three-kings,
    /// forcada-restart-on-leave, forcada-start-if-occupied, kings-rule-excludes-three-kings
    /// (true|false), forcada-moves, spanish-three-kings-moves (1 to 60). Tables under other
    /// readings are kept in a directory of their own.
    #[arg(long = "rule-setting", value_name = "NAME=VALUE")]
    settings: Vec<String>,
}

impl DrawChoice {
    /// The draw rules chosen for `variant`, or why they cannot be used.
    fn rules(&self, variant: &Variant) -> Result<DrawRules, CliError> {
        let mut reading = Interpretation::default();
        for setting in &self.settings {
            reading.set(setting)?;
        }
        let rules = DrawRules::new(self.draw_rules.unwrap_or(variant.draw_preset), reading);
        rules.check_supported()?;
        Ok(rules)
    }

    /// Whether the user named rules (then their tables must exist).
    fn named(&self) -> bool {
        self.draw_rules.is_some() || !self.settings.is_empty()
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, CliError> {
    match cli.command {
        Command::Perft {
            variant,
            depth,
            fen,
            divide,
        } => perft::perft(&variant, depth, fen.as_deref(), divide)?,
        Command::Generate {
            tables: Tables { variant, dir },
            pieces,
            threads,
            compression,
            zstd_level,
            recompress,
            keep_raw,
            unit,
            json,
            rules_zstd_level,
            rules,
        } => {
            common::set_threads(threads)?;
            let rules = rules.rules(&variant)?;
            let options = BuildOptions {
                compression: zstd_level.map_or(compression.into(), Compression::Level),
                recompress,
                keep_raw,
                // `generate::generate` decides, knowing the rule tables to follow.
                raw_for_rules: false,
            };
            let request = generate::Request {
                variant: &variant,
                pieces,
                dir: &dir,
                options,
                draw: rules,
                rules_zstd_level,
                json,
            };
            match unit {
                Some(unit) => generate::generate_unit(&request, &unit)?,
                None => generate::generate(&request)?,
            }
        }
        Command::Find {
            tables: Tables { variant, dir },
            table,
            longest,
            zugzwangs,
            rule_changes,
            limit,
            rules,
            json,
        } => {
            let query = match (longest, zugzwangs, rule_changes) {
                (Some(count), ..) => find::Query::Longest(count),
                (_, true, _) => find::Query::Zugzwangs(limit),
                _ => find::Query::RuleChanges(limit, rules.rules(&variant)?),
            };
            find::find(&variant, &dir, &table, query, json)?;
        }
        Command::Plan {
            variant,
            pieces,
            json,
            part_positions,
            rules,
        } => plan::plan(
            &variant,
            pieces,
            &rules.rules(&variant)?,
            part_positions.max(1),
            json,
        )?,
        Command::Stats {
            tables: Tables { variant, dir },
            json,
            rules,
        } => stats::stats(&variant, &dir, json, &rules.rules(&variant)?)?,
        Command::Verify {
            tables: Tables { variant, dir },
            threads,
            rules,
        } => {
            common::set_threads(threads)?;
            // Tables of the variant's own rules are checked where built; rules asked for must be.
            return verify::verify(&variant, &dir, &rules.rules(&variant)?, rules.named());
        }
        Command::Demo { dir } => demo::demo(&dir)?,
        Command::Probe {
            tables: Tables { variant, dir },
            json,
            line,
            rules,
            counts,
            fen,
        } => {
            let request = DrawRequest {
                rules: rules.rules(&variant)?,
                counts: counts.unwrap_or_default(),
            };
            probe::probe(&variant, &dir, &fen, json, line, &request)?;
        }
        Command::Serve { dir, bind, port } => serve::serve(&dir, bind, port)?,
        Command::Info { file } => return info::info(&file),
    }
    Ok(ExitCode::SUCCESS)
}
