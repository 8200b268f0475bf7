//! Measures encodings of the rule tables' budget information on rule tables already built: the
//! planes as stored (one byte per position and layer) against a staircase of corners per
//! position (docs/DRAW_RULES.md §3.2), with and without the entries the pure value decides
//! masked. Every option is compressed the same way (zstd level 9, 16 KiB chunks), so the figures
//! compare encodings, not compressors. docs/DRAW_RULES.md §9 quotes its output.
//!
//! `cargo run --release -p draughts-generator --example rule_encodings -- DIR RULE_SET DRAW_RULES`
//! (for example `tables russian fmjd64`).

use std::path::{Path, PathBuf};

use dprobe::draw::{DrawWdl, PlaneKind, NEVER};
use dprobe::format::DrawFile;
use dprobe::index::TableIndex;
use dprobe::rules::has_capture;
use dprobe::Variant;
use draughts_generator::draw::tables::pure_results;
use draughts_generator::pure::tableset::TableSet;
use rayon::prelude::*;

/// Raw bytes compressed at a time: every option is cut the same way.
const CHUNK: usize = 16 << 10;

fn compressed(bytes: &[u8]) -> usize {
    bytes
        .chunks(CHUNK)
        .map(|chunk| {
            zstd::bulk::compress(chunk, 9)
                .expect("zstd compresses")
                .len()
        })
        .sum()
}

/// Sizes in bytes of one table's options, summed over its families.
#[derive(Default, Clone, Copy)]
struct Sizes {
    positions: u64,
    planes: usize,
    planes_masked: usize,
    corners: usize,
    corners_masked: usize,
    /// Positions with more than one corner.
    several: u64,
    most_corners: usize,
}

impl std::ops::AddAssign for Sizes {
    fn add_assign(&mut self, o: Sizes) {
        self.positions += o.positions;
        self.planes += o.planes;
        self.planes_masked += o.planes_masked;
        self.corners += o.corners;
        self.corners_masked += o.corners_masked;
        self.several += o.several;
        self.most_corners = self.most_corners.max(o.most_corners);
    }
}

/// Whether a position's budgets can matter: only where the pure winner wins with fresh counts
/// (running counts only lower the budgets, and the rules never create wins), and not in a
/// capture position (its value is its fresh result; its entries are filler since format 5).
fn matters(fresh: u8, capture: bool) -> bool {
    !capture
        && matches!(
            DrawWdl::from_code(fresh),
            Some(DrawWdl::Win | DrawWdl::Loss)
        )
}

/// One family's planes measured; `matter`: per position, [`matters`].
fn family(planes: &[Vec<u8>], kind: PlaneKind, matter: &[bool]) -> Sizes {
    let n = matter.len();
    let mut sizes = Sizes {
        positions: n as u64,
        ..Sizes::default()
    };
    let all: Vec<u8> = planes.concat();
    sizes.planes = compressed(&all);
    // Masked: an entry that cannot matter repeats the previous position's (what compresses
    // best without a second pass).
    let mut masked_planes = Vec::with_capacity(all.len());
    for plane in planes {
        let mut last = NEVER;
        for (i, &v) in plane.iter().enumerate() {
            if matter[i] {
                last = v;
            }
            masked_planes.push(last);
        }
    }
    sizes.planes_masked = compressed(&masked_planes);
    if kind != PlaneKind::LayersAz {
        // One plane: a threshold per position is already the information.
        sizes.corners = sizes.planes;
        sizes.corners_masked = sizes.planes_masked;
        return sizes;
    }
    // The staircase: (k, z_k) wherever z_k drops. First corner in a u16 (7 bits of A, 7 of Z,
    // a flag for more), the others in an overflow stream (index delta, count, corners).
    let mut first = Vec::with_capacity(2 * n);
    let mut first_masked = Vec::with_capacity(2 * n);
    let mut overflow = Vec::new();
    let mut overflow_masked = Vec::new();
    let (mut last_index, mut last_index_masked) = (0usize, 0usize);
    let mut last_word = u16::MAX;
    let mut corners = Vec::new();
    for i in 0..n {
        corners.clear();
        let mut previous = NEVER;
        for (k, plane) in planes.iter().enumerate() {
            if plane[i] < previous {
                corners.push((k as u16, u16::from(plane[i])));
                previous = plane[i];
            }
        }
        sizes.most_corners = sizes.most_corners.max(corners.len());
        let word = match corners.first() {
            None => u16::MAX,
            Some(&(a, z)) => a | z << 7 | u16::from(corners.len() > 1) << 14,
        };
        first.extend_from_slice(&word.to_le_bytes());
        let extra = |out: &mut Vec<u8>, last: &mut usize| {
            varint(out, (i - *last) as u64);
            *last = i;
            out.push(corners.len() as u8 - 1);
            for &(a, z) in &corners[1..] {
                out.push(a as u8);
                out.push(z as u8);
            }
        };
        if corners.len() > 1 {
            sizes.several += 1;
            extra(&mut overflow, &mut last_index);
        }
        if matter[i] {
            last_word = word;
            if corners.len() > 1 {
                extra(&mut overflow_masked, &mut last_index_masked);
            }
        }
        first_masked.extend_from_slice(&last_word.to_le_bytes());
    }
    sizes.corners = compressed(&first) + compressed(&overflow);
    sizes.corners_masked = compressed(&first_masked) + compressed(&overflow_masked);
    sizes
}

fn varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() != 3 {
        eprintln!("usage: rule_encodings DIR RULE_SET DRAW_RULES");
        std::process::exit(2);
    }
    let folder = PathBuf::from(&args[0]).join(&args[1]).join(&args[2]);
    let moves = Variant::ALL
        .iter()
        .find(|v| v.moves.id.name() == args[1])
        .expect("a rule set: russian, brazilian or iberian")
        .moves;
    // The fresh results are read against the pure tables of `DIR`.
    let pure = TableSet::new(Path::new(&args[0]), moves);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .expect("a folder of rule tables")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rules"))
        .collect();
    files.sort();
    let mb = |b: usize| b as f64 / 1e6;
    println!(
        "{:<10} {:>11} {:>9} | {:>8} {:>8} {:>8} {:>8} | {:>9} {:>7}",
        "table",
        "positions",
        "file MB",
        "planes",
        "masked",
        "corners",
        "masked",
        "several",
        "corners"
    );
    let mut total = Sizes::default();
    let (mut total_file, mut total_fresh) = (0usize, 0usize);
    for path in &files {
        let file = DrawFile::open(path).expect("a rule table");
        let results = pure_results(&pure, file.signature).expect("the pure table");
        let fresh = file.fresh_results(&results).expect("fresh results");
        let fresh_size = compressed(&fresh);
        let index = TableIndex::new(file.signature);
        let matter: Vec<bool> = (0..fresh.len())
            .into_par_iter()
            .map(|i| matters(fresh[i], has_capture(&index.board(i as u64), &moves)))
            .collect();
        let mut sizes = Sizes::default();
        for post in [false, true] {
            let Some((kind, _)) = file.family(post) else {
                continue;
            };
            let planes = file.layers(post).expect("a family's layers");
            sizes += family(&planes, kind, &matter);
        }
        let file_size = std::fs::metadata(path).expect("a file").len() as usize;
        total_file += file_size;
        total_fresh += fresh_size;
        total += sizes;
        if file_size > 1 << 20 {
            println!(
                "{:<10} {:>11} {:>9.2} | {:>8.2} {:>8.2} {:>8.2} {:>8.2} | {:>9} {:>7}",
                file.signature.to_string(),
                fresh.len(),
                mb(file_size),
                mb(sizes.planes),
                mb(sizes.planes_masked),
                mb(sizes.corners),
                mb(sizes.corners_masked),
                sizes.several,
                sizes.most_corners
            );
        }
    }
    println!(
        "all {} files: {:.1} MB as written; fresh results {:.1} MB; budget information: planes \
         {:.1} MB, masked {:.1} MB; corners {:.1} MB, masked {:.1} MB; {} positions with \
         several corners, at most {}",
        files.len(),
        mb(total_file),
        mb(total_fresh),
        mb(total.planes),
        mb(total.planes_masked),
        mb(total.corners),
        mb(total.corners_masked),
        total.several,
        total.most_corners
    );
}
