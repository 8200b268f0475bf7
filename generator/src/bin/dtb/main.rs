//! `dtb`: the command-line program over the generator and probe libraries.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser, Subcommand};
use dprobe::{
    draw::{DrawPreset, Interpretation},
    format::{draw_table_path, raw_table_path, TableFile},
    index::Signature,
    rules::Perft,
    Color, DrawRules, Position, ProbeError, Tablebase, Variant,
};
use draughts_generator::draw::build::generate_draw_tables;
use draughts_generator::draw::stats::DrawStats;
use draughts_generator::draw::verify::{verify_draw_table, DrawTables};
use draughts_generator::progress::Bars;
use draughts_generator::pure::build::{build_order, generate_with, plan, BuildOptions};
use draughts_generator::pure::store::Table;
use draughts_generator::pure::tableset::TableSet;
use draughts_generator::pure::verify::{check_published, verify_table};
use draughts_generator::pure::write::Compression;

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
        /// zstd level of the rule tables, 1 to 22. Their planes are many times the size of the
        /// pure tables: 9 builds them about four times faster than 19 for files about 15 %
        /// larger.
        #[arg(long, default_value_t = RULES_ZSTD_LEVEL, value_parser = clap::value_parser!(i32).range(1..=22))]
        rules_zstd_level: i32,
        /// The counted draw rules of the rule tables built after the pure ones (`none`: no rule
        /// tables).
        #[command(flatten)]
        rules: DrawChoice,
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
        #[arg(long, value_parser = parse_counts)]
        counts: Option<Counts>,
        /// The position, a PDN FEN string in the variant's numbering.
        fen: String,
    },
    /// Print the header of a compressed table file and check its checksums.
    Info {
        /// A `.wdl` or `.dtw` file.
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
    fn rules(&self, variant: &Variant) -> Result<DrawRules, String> {
        let mut reading = Interpretation::default();
        for setting in &self.settings {
            reading.set(setting).map_err(|e| e.to_string())?;
        }
        let rules = DrawRules::new(self.draw_rules.unwrap_or(variant.draw_preset), reading);
        rules.check_supported().map_err(|e| {
            format!("{e}; leave that setting at RULES.md's reading (`dtb generate --help` lists the settings)")
        })?;
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
            compression,
            zstd_level,
            recompress,
            rules_zstd_level,
            rules,
        } => {
            set_threads(threads)?;
            let rules = rules.rules(&variant)?;
            let options = BuildOptions {
                compression: zstd_level.map_or(compression.into(), Compression::Level),
                recompress,
            };
            build(&variant, pieces, &dir, &options)?;
            build_rules(&variant, &rules, pieces, &dir, rules_zstd_level)
                .map(|()| ExitCode::SUCCESS)
        }
        Command::Stats {
            tables: Tables { variant, dir },
            json,
            rules,
        } => stats(&variant, &dir, json, &rules.rules(&variant)?).map(|()| ExitCode::SUCCESS),
        Command::Verify {
            tables: Tables { variant, dir },
            threads,
            rules,
        } => {
            set_threads(threads)?;
            // Tables of the variant's own rules are checked where built; rules asked for must be.
            verify(&variant, &dir, &rules.rules(&variant)?, rules.named())
        }
        Command::Demo { dir } => demo(&dir).map(|()| ExitCode::SUCCESS),
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
            probe(&variant, &dir, &fen, json, line, &request).map(|()| ExitCode::SUCCESS)
        }
        Command::Info { file } => info(&file),
    }
}

/// The ending `dtb demo` shows: three kings against one, the lone king off the long diagonal
/// (Petrov's triangle wins it); this is the longest such win, 25 plies.
const DEMO_FEN: &str = "W:WK21,K26,K30:BK31";

/// Running counts given on the command line: counter id and plies (`None`: not started).
#[derive(Clone, Debug, Default)]
struct Counts(Vec<(String, Option<u16>)>);

fn parse_counts(text: &str) -> Result<Counts, String> {
    let mut counts = Vec::new();
    for item in text.split(',').filter(|s| !s.is_empty()) {
        let (id, value) = item
            .split_once('=')
            .ok_or_else(|| format!("{item:?}: expected id=plies, e.g. r1-three-kings=12"))?;
        let value =
            match value.trim() {
                "none" => None,
                n => Some(n.parse::<u16>().map_err(|_| {
                    format!("{item:?}: the count must be a number of plies or 'none'")
                })?),
            };
        counts.push((id.trim().to_string(), value));
    }
    Ok(Counts(counts))
}

/// What `dtb probe` asks about the counted draw rules.
struct DrawRequest {
    rules: DrawRules,
    counts: Counts,
}

/// The default zstd level of rule tables.
const RULES_ZSTD_LEVEL: i32 = 9;

fn build_rules(
    variant: &Variant,
    draw: &DrawRules,
    pieces: u32,
    dir: &Path,
    zstd_level: i32,
) -> Result<(), String> {
    if draw.preset == DrawPreset::None {
        return Ok(());
    }
    let total: u64 = plan(pieces).iter().map(|p| p.positions).sum();
    eprintln!(
        "rule tables under the {} draw rules, up to {pieces} pieces",
        draw.directory_name()
    );
    let started = Instant::now();
    let bars = Bars::new(total);
    let result = generate_draw_tables(dir, &variant.moves, draw, pieces, zstd_level, &bars);
    bars.finish();
    result.map_err(|e| e.to_string())?;
    eprintln!("done in {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

fn demo(dir: &Path) -> Result<(), String> {
    let variant = Variant::RUSSIAN;
    let options = BuildOptions::default();
    build(&variant, 4, dir, &options)?;
    build_rules(&variant, &variant.draw_rules(), 4, dir, RULES_ZSTD_LEVEL)?;
    out!(
        "Three kings against one (Russian rules), from the tables in {}:",
        dir.display()
    );
    out!("");
    let request = DrawRequest {
        rules: variant.draw_rules(),
        counts: Counts::default(),
    };
    probe(&variant, dir, DEMO_FEN, false, true, &request)
}

fn probe(
    variant: &Variant,
    dir: &Path,
    fen: &str,
    json: bool,
    line: bool,
    request: &DrawRequest,
) -> Result<(), String> {
    let position = Position::from_fen(fen, variant).map_err(|e| e.to_string())?;
    let mut tables = Tablebase::new(*variant);
    tables
        .set_draw_rules(request.rules.clone())
        .map_err(|e| e.to_string())?;
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
    let counts: Vec<(&str, Option<u16>)> = request
        .counts
        .0
        .iter()
        .map(|(id, n)| (id.as_str(), *n))
        .collect();
    // Values under the counted rules: absent if there are none, or their tables are not built
    // (then only the pure value is shown, with the reason), an error for bad counts.
    let draw_results = if request.rules.preset == DrawPreset::None {
        None
    } else {
        match tables
            .probe_draw(&position, &counts)
            .and_then(|p| Ok((p, tables.draw_moves(&position, &counts)?)))
        {
            Ok(found) => Some(Ok(found)),
            Err(
                e @ (ProbeError::MissingDrawTable { .. } | ProbeError::UnsupportedDrawRules(_)),
            ) => {
                if !counts.is_empty() {
                    return Err(e.to_string());
                }
                Some(Err(e.to_string()))
            }
            Err(e) => return Err(e.to_string()),
        }
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
                let mut object = serde_json::json!({
                    "move": position.move_to_string(variant, mv),
                    "wdl": v.wdl().name(),
                    "dtw": v.distance(),
                });
                if let Some(Ok((_, draw_moves))) = &draw_results {
                    if let Some(r) = draw_moves.iter().find(|r| r.mv == *mv) {
                        object["result"] = serde_json::json!(r.result.name());
                        object["result_now"] = serde_json::json!(r.now.name());
                    }
                }
                object
            })
            .collect();
        let mut object = serde_json::json!({
            "fen": position.to_fen(variant),
            "wdl": value.wdl().name(),
            "dtw": value.distance(),
            "moves": moves,
        });
        match &draw_results {
            Some(Ok((probe, _))) => {
                object["draw_rules"] = serde_json::json!(request.rules.directory_name());
                object["result"] = serde_json::json!(probe.result.name());
                object["result_now"] = serde_json::json!(probe.now.name());
                object["budgets"] = serde_json::json!({
                    "A": probe.state.a,
                    "Z": probe.state.z,
                    "condition_started": probe.state.post,
                });
            }
            Some(Err(reason)) => object["rules_unavailable"] = serde_json::json!(reason),
            None => {}
        }
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
    out!("{side} to move: {value} (pure game)");
    match &draw_results {
        Some(Ok((probe, _))) => {
            out!(
                "under the {} draw rules: {} with every count at its start; {} with the counts \
                 given (plies left: A {}, Z {})",
                request.rules.directory_name(),
                probe.result,
                probe.now,
                probe.state.a.map_or("-".into(), |a| a.to_string()),
                probe.state.z.map_or("-".into(), |z| z.to_string()),
            );
        }
        Some(Err(reason)) => out!("under the counted draw rules: unavailable ({reason})"),
        None => {}
    }
    if moves.is_empty() {
        out!("no legal move: {side} has lost");
    }
    for (mv, v) in &moves {
        let rules = match &draw_results {
            Some(Ok((_, draw_moves))) => draw_moves
                .iter()
                .find(|r| r.mv == *mv)
                .map_or(String::new(), |r| {
                    format!("  rules: {}, now {}", r.result, r.now)
                }),
            _ => String::new(),
        };
        out!(
            "  {:<16} {:<18}{rules}",
            position.move_to_string(variant, mv),
            v.to_string()
        );
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
    out!("format version     {}", h.version);
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
            w if h.version == 1 => format!("{w} byte(s) per position (0 draw, else distance + 1)"),
            w => format!(
                "{w} byte(s) per position (distance + 1; draws are read from the .wdl file)"
            ),
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
    let (solving, writing) = bars.solving_and_writing();
    eprintln!(
        "done in {seconds:.1} s ({:.1} M positions/s): solving {solving:.1} s, writing files {writing:.1} s",
        total as f64 / seconds.max(1e-9) / 1e6
    );
    Ok(())
}

/// The tables of a variant present in `dir`, in build order.
fn present_tables(variant: &Variant, dir: &Path) -> Vec<Signature> {
    build_order(MAX_PIECES)
        .into_iter()
        .filter(|&s| raw_table_path(dir, variant.moves.id, s).exists())
        .collect()
}

fn stats(variant: &Variant, dir: &Path, json: bool, draw: &DrawRules) -> Result<(), String> {
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
        let fen = (table.stats.max_dtw > 0)
            .then(|| fen_of(variant, &signature, table.stats.max_dtw_index));
        rows.push((signature, table.stats, fen, table.checksum()));
    }
    // Results under the counted draw rules, where their tables are built.
    let rule_counts: Vec<Option<DrawStats>> = rows
        .iter()
        .map(|(signature, ..)| {
            let path = draw_table_path(dir, variant.moves.id, draw, *signature);
            DrawStats::of(&dprobe::format::DrawFile::open(&path).ok()?, draw).ok()
        })
        .collect();
    let mut out = String::new();
    if json {
        let array: Vec<serde_json::Value> = rows
            .iter()
            .zip(&rule_counts)
            .map(|((signature, s, fen, checksum), rule)| {
                let mut object = serde_json::json!({
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
                });
                if let Some(rule) = rule {
                    let [loss, blessed, _, cursed, win] = rule.all;
                    // Counted over every position, captures included (fresh counts).
                    object["draw_rules"] = serde_json::json!(draw.directory_name());
                    object["rule_wins"] = serde_json::json!(win);
                    object["cursed_wins"] = serde_json::json!(cursed);
                    object["blessed_losses"] = serde_json::json!(blessed);
                    object["rule_losses"] = serde_json::json!(loss);
                    let turned_by: serde_json::Map<String, serde_json::Value> = rule
                        .alone
                        .iter()
                        .map(|(id, [_, blessed, _, cursed, _])| {
                            (
                                id.to_string(),
                                serde_json::json!({
                                    "cursed_wins": cursed,
                                    "blessed_losses": blessed,
                                }),
                            )
                        })
                        .collect();
                    object["turned_by"] = serde_json::Value::Object(turned_by);
                    let (plies, fen) = match rule.longest_win {
                        Some((plies, index)) => {
                            (Some(plies), Some(fen_of(variant, signature, index)))
                        }
                        None => (None, None),
                    };
                    object["longest_rule_win"] = serde_json::json!(plies);
                    object["longest_rule_win_fen"] = serde_json::json!(fen);
                }
                object
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
        if rule_counts.iter().any(Option::is_some) {
            out.push_str(&format!(
                "\nunder the {} draw rules, every count at its start (mover's view):\n{:<10} {:>12} \
                 {:>12} {:>12} {:>12} {:>9}  turned to draws by a rule alone (cursed wins/blessed \
                 losses)\n",
                draw.directory_name(),
                "table",
                "wins",
                "cursed wins",
                "blessed",
                "losses",
                "rule_win"
            ));
            for ((signature, ..), rule) in rows.iter().zip(&rule_counts) {
                if let Some(rule) = rule {
                    let [loss, blessed, _, cursed, win] = rule.all;
                    let turned_by: Vec<String> = rule
                        .alone
                        .iter()
                        .filter(|(_, c)| c[1] + c[3] > 0)
                        .map(|(id, c)| format!("{id} {}/{}", c[3], c[1]))
                        .collect();
                    let longest = rule
                        .longest_win
                        .map_or("-".to_string(), |(plies, _)| plies.to_string());
                    out.push_str(&format!(
                        "{:<10} {win:>12} {cursed:>12} {blessed:>12} {loss:>12} {longest:>9}  {}\n",
                        signature.to_string(),
                        turned_by.join(", ")
                    ));
                }
            }
        }
    }
    out!("{}", out.trim_end());
    Ok(())
}

/// The position at `index` of `signature`'s table, White to move.
fn fen_of(variant: &Variant, signature: &Signature, index: u64) -> String {
    let board = dprobe::index::TableIndex::new(*signature).board(index);
    Position::from_board(&board, Color::White).to_fen(variant)
}

fn verify(
    variant: &Variant,
    dir: &Path,
    draw: &DrawRules,
    rules_required: bool,
) -> Result<ExitCode, String> {
    let signatures = present_tables(variant, dir);
    if signatures.is_empty() {
        return Err(format!(
            "no {} tables in {} to verify",
            variant.moves.id.name(),
            dir.display()
        ));
    }
    let mut tables = TableSet::new(dir, variant.moves);
    let mut bad = 0;
    for (step, signature) in signatures.iter().enumerate() {
        tables.close_all_but(signatures[step..].iter().copied());
        // A damaged or missing table is reported, and the check goes on with the others.
        let found = match verify_table(&tables, variant, *signature, 10) {
            Ok(found) => found,
            Err(problem) => {
                bad += 1;
                out!("{signature:>10}: cannot check: {problem}");
                continue;
            }
        };
        let files = tables
            .table(*signature)
            .map_err(|e| e.to_string())
            .and_then(|table| check_published(dir, &variant.moves, table));
        if found.is_empty() && files.is_ok() {
            out!("{signature:>10}: ok");
            continue;
        }
        bad += 1;
        if !found.is_empty() {
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
        if let Err(problem) = &files {
            out!("{signature:>10}: {problem}");
        }
    }
    out!("{} tables checked, {} inconsistent", signatures.len(), bad);
    if draw.preset != DrawPreset::None {
        bad += verify_rules(variant, dir, draw, rules_required, &mut tables, bad == 0);
    }
    Ok(if bad == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Checks the rule tables under `draw` in build order; returns how many are not consistent
/// (a directory of required rules that is missing counts as one).
fn verify_rules(
    variant: &Variant,
    dir: &Path,
    draw: &DrawRules,
    required: bool,
    pure: &mut TableSet,
    pure_consistent: bool,
) -> usize {
    let rule_dir = dir
        .join(variant.moves.id.name())
        .join(draw.directory_name());
    let name = draw.directory_name();
    let signatures: Vec<Signature> = build_order(MAX_PIECES)
        .into_iter()
        .filter(|&s| draw_table_path(dir, variant.moves.id, draw, s).exists())
        .collect();
    if signatures.is_empty() {
        out!(
            "no rule tables under the {name} draw rules in {}",
            rule_dir.display()
        );
        return usize::from(required);
    }
    if !pure_consistent {
        // The rule tables are checked against the pure values: not meaningful without them.
        out!("rule tables ({name}) not checked: the pure tables are not consistent");
        return 1;
    }
    let tables = DrawTables::new(dir, variant.moves, draw.clone());
    let mut bad = 0;
    for (step, signature) in signatures.iter().enumerate() {
        // As in the pure check: keep mapped only the pure tables still ahead.
        pure.close_all_but(signatures[step..].iter().copied());
        match verify_draw_table(pure, &tables, variant, *signature, 10) {
            Ok(found) if found.is_empty() => out!("{signature:>10}: ok ({name})"),
            Ok(found) => {
                bad += 1;
                out!("{signature:>10}: INCONSISTENT ({name})");
                for f in found {
                    out!(
                        "    index {} {}: {}: stored {}, its moves give {}",
                        f.index,
                        f.fen,
                        f.quantity,
                        f.stored,
                        f.expected
                    );
                }
            }
            Err(problem) => {
                bad += 1;
                out!("{signature:>10}: cannot check ({name}): {problem}");
            }
        }
    }
    out!(
        "{} rule tables checked ({name}), {bad} inconsistent",
        signatures.len()
    );
    bad
}
