//! `dtb`: the command-line program over the generator and probe libraries.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser, Subcommand};
use dprobe::{Color, Perft, Position, Signature, TableFile, Tablebase, Variant};
use draughts_generator::compress::{compressed_path, Kind};
use draughts_generator::generate::{build_order, generate_with, plan, BuildOptions};
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
        /// zstd level of the compressed files, 1 to 22: 19 gives the smallest files, 9 builds
        /// much faster for files about a tenth larger.
        #[arg(long, default_value_t = 19, value_parser = clap::value_parser!(i32).range(1..=22))]
        zstd_level: i32,
    },
    /// Print each table's statistics: positions, wins, draws, losses, captures, longest win.
    Stats {
        #[command(flatten)]
        tables: Tables,
        /// Print a JSON array instead of a table.
        #[arg(long)]
        json: bool,
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
        /// The position, a PDN FEN string in the variant's numbering.
        fen: String,
    },
    /// Print the header of a compressed table file and check its checksums.
    Info {
        /// A `.wdl` or `.dtw` file.
        file: PathBuf,
    },
    /// Check every table independently: each value must follow from its moves' values; and
    /// every compressed file's checksums.
    Verify {
        #[command(flatten)]
        tables: Tables,
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
            tables: Tables { variant, dir },
            pieces,
            threads,
            zstd_level,
        } => {
            set_threads(threads)?;
            let options = BuildOptions { zstd_level };
            build(&variant, pieces, &dir, &options).map(|()| ExitCode::SUCCESS)
        }
        Command::Stats {
            tables: Tables { variant, dir },
            json,
        } => stats(&variant, &dir, json).map(|()| ExitCode::SUCCESS),
        Command::Verify {
            tables: Tables { variant, dir },
            threads,
        } => {
            set_threads(threads)?;
            verify(&variant, &dir)
        }
        Command::Demo { dir } => demo(&dir).map(|()| ExitCode::SUCCESS),
        Command::Probe {
            tables: Tables { variant, dir },
            json,
            line,
            fen,
        } => probe(&variant, &dir, &fen, json, line).map(|()| ExitCode::SUCCESS),
        Command::Info { file } => info(&file),
    }
}

/// The ending `dtb demo` shows: three kings against one, the lone king off the long diagonal
/// (Petrov's triangle wins it); this is the longest such win, 25 plies.
const DEMO_FEN: &str = "W:WK21,K26,K30:BK31";

fn demo(dir: &Path) -> Result<(), String> {
    let variant = Variant::RUSSIAN;
    build(&variant, 4, dir, &BuildOptions::default())?;
    out!(
        "Three kings against one (Russian rules), from the tables in {}:",
        dir.display()
    );
    out!("");
    probe(&variant, dir, DEMO_FEN, false, true)
}

fn probe(variant: &Variant, dir: &Path, fen: &str, json: bool, line: bool) -> Result<(), String> {
    let position = Position::from_fen(fen, variant).map_err(|e| e.to_string())?;
    let mut tables = Tablebase::new(*variant);
    let found = tables.add_directory(dir).map_err(|e| e.to_string())?;
    if found == 0 {
        return Err(format!(
            "no {} table files in {}; run `dtb generate --variant {variant} --pieces N --dir {}` \
             first",
            variant.moves.id.name(),
            dir.display(),
            dir.display()
        ));
    }
    let value = tables.probe_dtw(&position).map_err(|e| e.to_string())?;
    let moves = tables.probe_moves(&position).map_err(|e| e.to_string())?;
    let pv = if line {
        tables
            .principal_variation(&position)
            .map_err(|e| e.to_string())?
    } else {
        Vec::new()
    };
    let mut pv_text = Vec::new();
    let mut at = position;
    for mv in &pv {
        pv_text.push(at.move_to_string(variant, mv));
        at = at.play(mv);
    }
    if json {
        let moves: Vec<serde_json::Value> = moves
            .iter()
            .map(|(mv, v)| {
                serde_json::json!({
                    "move": position.move_to_string(variant, mv),
                    "wdl": v.wdl().name(),
                    "dtw": v.distance(),
                })
            })
            .collect();
        let mut object = serde_json::json!({
            "fen": position.to_fen(variant),
            "wdl": value.wdl().name(),
            "dtw": value.distance(),
            "moves": moves,
        });
        if line {
            object["line"] = serde_json::json!(pv_text);
        }
        out!(
            "{}",
            serde_json::to_string_pretty(&object).map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    let side = match position.side_to_move {
        Color::White => "White",
        Color::Black => "Black",
    };
    out!("{}", position.diagram(variant).trim_end());
    out!("{}", position.to_fen(variant));
    out!("{side} to move: {value}");
    if moves.is_empty() {
        out!("no legal move: {side} has lost");
    }
    for (mv, v) in &moves {
        out!("  {:<16} {v}", position.move_to_string(variant, mv));
    }
    if line {
        if pv_text.is_empty() {
            out!("line: none (a draw never ends)");
        } else {
            out!("line: {}", pv_text.join(" "));
        }
    }
    Ok(())
}

fn info(file: &Path) -> Result<ExitCode, String> {
    let table = TableFile::open(file).map_err(|e| e.to_string())?;
    let h = table.header();
    out!("file               {}", file.display());
    out!("kind               {}", h.kind);
    out!("rule set           {}", h.rules.name());
    out!(
        "signature          {} ({} pieces)",
        h.signature,
        h.signature.pieces()
    );
    out!("positions          {}", h.positions);
    out!("positions/block    {}", h.positions_per_block);
    out!("blocks             {}", h.blocks);
    out!("codec              zstd");
    out!(
        "encoding           {}",
        match h.dtw_width {
            0 => "2 bits per position (0 loss, 1 draw, 2 win)".to_string(),
            w => format!("{w} byte(s) per position (0 draw, else distance + 1)"),
        }
    );
    out!("largest symbol     {}", h.max_symbol);
    out!("file size          {} bytes", h.file_len);
    out!(
        "bits per position  {:.4}",
        h.file_len as f64 * 8.0 / h.positions.max(1) as f64
    );
    match table.verify() {
        Ok(()) => {
            out!("checksums          ok");
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            out!("checksums          FAILED: {}", e.reason);
            Ok(ExitCode::FAILURE)
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

fn build(variant: &Variant, pieces: u32, dir: &Path, options: &BuildOptions) -> Result<(), String> {
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
    let result = generate_with(dir, &variant.moves, pieces, options, &bars);
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
        rows.push((signature, table.stats, fen, table.checksum()));
    }
    let mut out = String::new();
    if json {
        let array: Vec<serde_json::Value> = rows
            .iter()
            .map(|(signature, s, fen, checksum)| {
                serde_json::json!({
                    "rule_set": variant.moves.id.name(),
                    "table": signature.to_string(),
                    "pieces": signature.pieces(),
                    "positions": s.positions,
                    "wins": s.wins,
                    "draws": s.draws,
                    "losses": s.losses,
                    "captures": s.captures,
                    "max_dtw": s.max_dtw,
                    "max_dtw_fen": fen,
                    "checksum": format!("{checksum:016x}"),
                })
            })
            .collect();
        out = serde_json::to_string_pretty(&array).map_err(|e| e.to_string())? + "\n";
    } else {
        out.push_str(&format!(
            "{:<10} {:>6} {:>12} {:>12} {:>12} {:>12} {:>12} {:>7}  longest win (White to move)\n",
            "table", "pieces", "positions", "wins", "draws", "losses", "captures", "max_dtw"
        ));
        for (signature, s, fen, _) in &rows {
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

/// Checks the compressed files of a table: present, of the right table, every checksum intact.
fn verify_compressed(dir: &Path, variant: &Variant, signature: Signature) -> Result<(), String> {
    for kind in [Kind::Wdl, Kind::Dtw] {
        let path = compressed_path(dir, variant.moves.id, signature, kind);
        let file = TableFile::open(&path).map_err(|e| match e {
            dprobe::ProbeError::Io { .. } if !path.exists() => format!(
                "missing {}; run `dtb generate` again to write it",
                path.display()
            ),
            e => e.to_string(),
        })?;
        let h = file.header();
        if h.rules != variant.moves.id || h.signature != signature {
            return Err(format!("{}: holds another table", path.display()));
        }
        file.verify().map_err(|e| e.to_string())?;
    }
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
        // A damaged or missing table is reported, and the check goes on with the others.
        let found = match verify_table(&tables, variant, *signature, 10) {
            Ok(found) => found,
            Err(problem) => {
                bad += 1;
                out!("{signature:>10}: cannot check: {problem}");
                continue;
            }
        };
        let files = verify_compressed(dir, variant, *signature);
        if let Err(problem) = &files {
            bad += 1;
            out!("{signature:>10}: {problem}");
        } else if found.is_empty() {
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
