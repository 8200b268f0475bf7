//! `dtb`: the command-line program over the generator and probe libraries.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use dprobe::{Color, Perft, Position, Signature, Variant};
use draughts_generator::generate::{build_order, generate, plan};
use draughts_generator::progress::Bars;
use draughts_generator::store::{table_path, Table};
use draughts_generator::tableset::TableSet;
use draughts_generator::verify::verify_table;

/// Prints a line to standard output; a closed pipe (`dtb stats | head`) is not an error.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

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
        /// russian, brazilian, portuguese or spanish (Portuguese and Spanish share tables).
        #[arg(long)]
        variant: Variant,
        /// The largest number of pieces on the board.
        #[arg(long)]
        pieces: u32,
        /// Where the tables go.
        #[arg(long, default_value = "tables")]
        dir: PathBuf,
        /// Worker threads (default: every core).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Print each table's statistics: positions, wins, draws, losses, captures, longest win.
    Stats {
        /// russian, brazilian, portuguese or spanish.
        #[arg(long)]
        variant: Variant,
        /// Where the tables are.
        #[arg(long, default_value = "tables")]
        dir: PathBuf,
        /// Print a JSON array instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Check every table independently: each value must follow from its moves' values.
    Verify {
        /// russian, brazilian, portuguese or spanish.
        #[arg(long)]
        variant: Variant,
        /// Where the tables are.
        #[arg(long, default_value = "tables")]
        dir: PathBuf,
        /// Worker threads (default: every core).
        #[arg(long)]
        threads: Option<usize>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    match cli.command {
        Command::Perft {
            variant,
            depth,
            fen,
            divide,
        } => perft(&variant, depth, fen.as_deref(), divide).map(|()| ExitCode::SUCCESS),
        Command::Generate {
            variant,
            pieces,
            dir,
            threads,
        } => {
            set_threads(threads)?;
            build(&variant, pieces, &dir).map(|()| ExitCode::SUCCESS)
        }
        Command::Stats { variant, dir, json } => {
            stats(&variant, &dir, json).map(|()| ExitCode::SUCCESS)
        }
        Command::Verify {
            variant,
            dir,
            threads,
        } => {
            set_threads(threads)?;
            verify(&variant, &dir)
        }
    }
}

fn set_threads(threads: Option<usize>) -> Result<(), String> {
    if let Some(threads) = threads {
        if threads == 0 {
            return Err("--threads must be at least 1".into());
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global()
            .map_err(|e| format!("cannot start {threads} threads: {e}"))?;
    }
    Ok(())
}

fn perft(variant: &Variant, depth: u32, fen: Option<&str>, divide: bool) -> Result<(), String> {
    let position = match fen {
        Some(fen) => Position::from_fen(fen, variant).map_err(|e| e.to_string())?,
        None => Position::INITIAL,
    };
    let board = position.board();
    let mut counter = Perft::new();
    let started = Instant::now();
    let total = if divide {
        let mut total = 0;
        for (relative, count) in counter.divide(&board, &variant.moves, depth) {
            let mv = position.orient_move(&relative);
            out!("{:<24} {count}", position.move_to_string(variant, &mv));
            total += count;
        }
        total
    } else {
        counter.count(&board, &variant.moves, depth)
    };
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "{variant} depth {depth}: {total} leaves in {seconds:.3} s ({:.1} M leaves/s)",
        total as f64 / seconds.max(1e-9) / 1e6
    );
    out!("{total}");
    Ok(())
}

/// The most pieces a build may ask for: 8 is the cluster-scale goal; more has no use here.
const MAX_PIECES: u32 = 8;

fn build(variant: &Variant, pieces: u32, dir: &Path) -> Result<(), String> {
    if !(2..=MAX_PIECES).contains(&pieces) {
        return Err(format!(
            "--pieces must be between 2 and {MAX_PIECES} (got {pieces})"
        ));
    }
    let total: u64 = plan(pieces).iter().map(|p| p.positions).sum();
    eprintln!(
        "{} rules ({}), up to {pieces} pieces: {} tables, {total} positions, {} threads, into {}",
        variant,
        variant.moves.id.name(),
        build_order(pieces).len(),
        rayon::current_num_threads(),
        dir.display()
    );
    let started = Instant::now();
    let bars = Bars::new(total);
    let result = generate(dir, &variant.moves, pieces, &bars);
    bars.finish();
    result.map_err(|e| e.to_string())?;
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "done in {seconds:.1} s ({:.1} M positions/s)",
        total as f64 / seconds.max(1e-9) / 1e6
    );
    Ok(())
}

/// The tables of a variant present in `dir`, in build order.
fn present_tables(variant: &Variant, dir: &Path) -> Vec<Signature> {
    build_order(MAX_PIECES)
        .into_iter()
        .filter(|&s| table_path(dir, variant.moves.id, s).exists())
        .collect()
}

fn stats(variant: &Variant, dir: &Path, json: bool) -> Result<(), String> {
    let signatures = present_tables(variant, dir);
    if signatures.is_empty() {
        return Err(format!(
            "no {} tables in {}; run `dtb generate --variant {variant} --pieces N --dir {}` first",
            variant.moves.id.name(),
            dir.display(),
            dir.display()
        ));
    }
    let mut rows = Vec::new();
    for signature in signatures {
        let table =
            Table::open(dir, variant.moves.id, signature, false).map_err(|e| e.to_string())?;
        let fen = (table.stats.max_dtw > 0).then(|| {
            let board = table.index.board(table.stats.max_dtw_index);
            Position::from_board(&board, Color::White).to_fen(variant)
        });
        rows.push((signature, table.stats, fen));
    }
    let mut out = String::new();
    if json {
        let array: Vec<serde_json::Value> = rows
            .iter()
            .map(|(signature, s, fen)| {
                serde_json::json!({
                    "table": signature.to_string(),
                    "pieces": signature.pieces(),
                    "positions": s.positions,
                    "wins": s.wins,
                    "draws": s.draws,
                    "losses": s.losses,
                    "captures": s.captures,
                    "max_dtw": s.max_dtw,
                    "max_dtw_fen": fen,
                })
            })
            .collect();
        out = serde_json::to_string_pretty(&array).map_err(|e| e.to_string())? + "\n";
    } else {
        out.push_str(&format!(
            "{:<10} {:>6} {:>12} {:>12} {:>12} {:>12} {:>12} {:>7}  longest win (White to move)\n",
            "table", "pieces", "positions", "wins", "draws", "losses", "captures", "max_dtw"
        ));
        for (signature, s, fen) in &rows {
            out.push_str(&format!(
                "{:<10} {:>6} {:>12} {:>12} {:>12} {:>12} {:>12} {:>7}  {}\n",
                signature.to_string(),
                signature.pieces(),
                s.positions,
                s.wins,
                s.draws,
                s.losses,
                s.captures,
                s.max_dtw,
                fen.as_deref().unwrap_or("-"),
            ));
        }
    }
    out!("{}", out.trim_end());
    Ok(())
}

fn verify(variant: &Variant, dir: &Path) -> Result<ExitCode, String> {
    let signatures = present_tables(variant, dir);
    if signatures.is_empty() {
        return Err(format!(
            "no {} tables in {} to verify",
            variant.moves.id.name(),
            dir.display()
        ));
    }
    let tables = TableSet::new(dir, variant.moves);
    let mut bad = 0;
    for signature in &signatures {
        let found = verify_table(&tables, variant, *signature, 10).map_err(|e| e.to_string())?;
        if found.is_empty() {
            out!("{signature:>10}: ok");
        } else {
            bad += 1;
            out!("{signature:>10}: INCONSISTENT");
            for f in found {
                out!(
                    "    index {} {}: stored {:?}, its moves give {:?}",
                    f.index,
                    f.fen,
                    f.stored,
                    f.expected
                );
            }
        }
    }
    out!("{} tables checked, {} inconsistent", signatures.len(), bad);
    Ok(if bad == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
