//! `dtb`: the command-line program over the generator and probe libraries.

use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use dprobe::{Perft, Position, Variant};

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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<(), String> {
    match cli.command {
        Command::Perft {
            variant,
            depth,
            fen,
            divide,
        } => perft(&variant, depth, fen.as_deref(), divide),
    }
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
            println!("{:<24} {count}", position.move_to_string(variant, &mv));
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
    println!("{total}");
    Ok(())
}
