//! The block cache behind the probes: cache-only probes answer exactly what is in memory,
//! preloading fills it, and threads probing at once (with a cache large or tiny) agree with one.

use dprobe::{
    format::TableFile, index::Signature, index::TableIndex, rules::has_capture, Color, Position,
    ProbeError, Tablebase, Variant, Wdl,
};

use crate::tablebase::{built, signatures_up_to, tablebase};

const VARIANT: Variant = Variant::RUSSIAN;

/// Every `step`-th position of every table up to `pieces` pieces, both colours to move.
fn positions(pieces: u32, step: usize) -> Vec<Position> {
    signatures_up_to(pieces)
        .into_iter()
        .flat_map(|signature| {
            let index = TableIndex::new(signature);
            (0..index.size()).step_by(step).map(move |i| {
                let color = if i % 2 == 0 {
                    Color::White
                } else {
                    Color::Black
                };
                Position::from_board(&index.board(i), color)
            })
        })
        .collect()
}

fn not_in_cache(result: Result<Wdl, ProbeError>) -> bool {
    matches!(result, Err(ProbeError::NotInCache))
}

/// Blocks of the `.wdl` files up to `pieces` pieces.
fn wdl_blocks(pieces: u32) -> usize {
    let dir = built(&VARIANT).join(VARIANT.moves.id.name());
    signatures_up_to(pieces)
        .into_iter()
        .map(|signature| {
            let file = TableFile::open(&dir.join(format!("{signature}.wdl"))).unwrap();
            file.header().blocks as usize
        })
        .sum()
}

#[test]
fn a_cache_only_probe_answers_what_probe_wdl_left_in_memory() {
    let tables = tablebase(&VARIANT, built(&VARIANT));
    let all = positions(4, 101);
    let quiet = all
        .iter()
        .find(|p| !has_capture(&p.board(), &VARIANT.moves))
        .unwrap();
    // A capture whose value needs a smaller table (some are decided by a capture of every
    // piece, with no table).
    let capture = all
        .iter()
        .find(|p| {
            has_capture(&p.board(), &VARIANT.moves)
                && not_in_cache(tablebase(&VARIANT, built(&VARIANT)).probe_wdl_cached(p))
        })
        .unwrap();
    for position in [*quiet, *capture] {
        let tables = tablebase(&VARIANT, built(&VARIANT));
        // Nothing opened yet: not in the cache, and still not (no file was opened by it).
        for _ in 0..2 {
            let result = tables.probe_wdl_cached(&position);
            assert!(not_in_cache(result.clone()), "{result:?}");
        }
        let wdl = tables.probe_wdl(&position).unwrap();
        assert_eq!(tables.probe_wdl_cached(&position).unwrap(), wdl);
    }
    // Errors other than a miss come first, as probe_wdl gives them.
    let too_many = Position::from_fen("W:W5,6,7,8,9:B25,26", &VARIANT).unwrap();
    assert!(matches!(
        tables.probe_wdl_cached(&too_many),
        Err(ProbeError::TooManyPieces { .. })
    ));
    let message = ProbeError::NotInCache.to_string();
    assert!(message.contains("not in the cache"), "{message}");
}

#[test]
fn a_cache_only_probe_agrees_with_probe_wdl_position_by_position() {
    let tables = tablebase(&VARIANT, built(&VARIANT));
    let mut tiny = tablebase(&VARIANT, built(&VARIANT));
    // 8 pages: most positions' blocks are evicted by the probes after them.
    tiny.set_cache_size(0);
    let all = positions(4, 97);
    let earlier = all[all.len() / 2];
    let earlier_wdl = tiny.probe_wdl(&earlier).unwrap();
    let (mut hits, mut misses) = (0, 0);
    for position in all {
        let wdl = tables.probe_wdl(&position).unwrap();
        // Just probed: every block it needed is in memory.
        assert_eq!(tables.probe_wdl_cached(&position).unwrap(), wdl);
        tiny.probe_wdl(&position).unwrap();
        // Its block was stored last, so it is there, though thousands were evicted before it
        // (a miss here would mean the cache's count of the table's pages went wrong).
        if !has_capture(&position.board(), &VARIANT.moves) {
            assert_eq!(tiny.probe_wdl_cached(&position).unwrap(), wdl);
        }
        // A position probed a while ago may have been evicted since.
        match tiny.probe_wdl_cached(&earlier) {
            Ok(wdl) => {
                assert_eq!(wdl, earlier_wdl);
                hits += 1;
            }
            Err(ProbeError::NotInCache) => misses += 1,
            Err(e) => panic!("{e}"),
        }
    }
    assert!(hits > 0 && misses > 0, "{hits} hits, {misses} misses");
}

#[test]
fn preload_lets_cache_only_probes_answer_every_position() {
    let tables = tablebase(&VARIANT, built(&VARIANT));
    let all = positions(4, 13);
    // Only up to 3 pieces: a 4-piece position without a capture is not in memory.
    assert_eq!(tables.preload(3).unwrap(), wdl_blocks(3));
    let four = all
        .iter()
        .find(|p| {
            p.board().occupied().count_ones() == 4 && !has_capture(&p.board(), &VARIANT.moves)
        })
        .unwrap();
    assert!(not_in_cache(tables.probe_wdl_cached(four)));
    // Up to 4: every position answers, as probe_wdl does; again, nothing more to load.
    assert_eq!(tables.preload(4).unwrap(), wdl_blocks(4));
    assert_eq!(tables.preload(4).unwrap(), wdl_blocks(4));
    let fresh = tablebase(&VARIANT, built(&VARIANT));
    for position in &all {
        assert_eq!(
            tables.probe_wdl_cached(position).unwrap(),
            fresh.probe_wdl(position).unwrap(),
            "{}",
            position.to_fen(&VARIANT)
        );
    }
}

#[test]
fn preload_stops_at_the_budget_and_says_how_much_it_loaded() {
    let mut tables = tablebase(&VARIANT, built(&VARIANT));
    tables.set_cache_size(16 * (8 << 10));
    let loaded = tables.preload(4).unwrap();
    assert!(loaded > 0 && loaded <= 16, "{loaded}");
    let fresh = tablebase(&VARIANT, built(&VARIANT));
    let mut answered = 0;
    for position in positions(4, 29) {
        match tables.probe_wdl_cached(&position) {
            Ok(wdl) => {
                assert_eq!(wdl, fresh.probe_wdl(&position).unwrap());
                answered += 1;
            }
            Err(ProbeError::NotInCache) => {}
            Err(e) => panic!("{e}"),
        }
    }
    assert!(answered > 0);
}

/// Eight threads probe `positions` at once, each from its own starting point, with both probes,
/// and must find what one thread found.
fn threads_agree(tables: &Tablebase, positions: &[Position], same: bool) {
    let alone: Vec<Wdl> = positions
        .iter()
        .map(|p| tables.probe_wdl(p).unwrap())
        .collect();
    std::thread::scope(|scope| {
        for t in 0..8 {
            let alone = &alone;
            scope.spawn(move || {
                let n = positions.len();
                for round in 0..3 {
                    for k in 0..n {
                        // The same order in every thread, or each its own.
                        let i = if same { k } else { (k * 31 + t * n / 8) % n };
                        let p = &positions[i];
                        if (k + round) % 2 == 0 {
                            assert_eq!(tables.probe_wdl(p).unwrap(), alone[i]);
                        } else {
                            match tables.probe_wdl_cached(p) {
                                Ok(wdl) => assert_eq!(wdl, alone[i]),
                                Err(ProbeError::NotInCache) => {}
                                Err(e) => panic!("{e}"),
                            }
                        }
                    }
                }
            });
        }
    });
}

#[test]
fn eight_threads_agree_with_one_on_the_same_and_different_positions() {
    let tables = tablebase(&VARIANT, built(&VARIANT));
    let positions = positions(4, 53);
    threads_agree(&tables, &positions, true);
    threads_agree(&tables, &positions, false);
    // Everything was probed: every cache-only probe now answers.
    for p in &positions {
        assert!(tables.probe_wdl_cached(p).is_ok());
    }
}

#[test]
fn eight_threads_agree_with_one_under_eviction_in_a_tiny_cache() {
    let mut tables = tablebase(&VARIANT, built(&VARIANT));
    // Eight pages for blocks of tens of tables: every probe evicts another thread's page.
    tables.set_cache_size(0);
    let many: Vec<Signature> = ["KKMvK", "KMvKM", "MMvKK", "KKvKM", "MMvMM", "KvK"]
        .iter()
        .map(|name| name.parse().unwrap())
        .collect();
    let positions: Vec<Position> = many
        .into_iter()
        .flat_map(|signature| {
            let index = TableIndex::new(signature);
            (0..index.size())
                .step_by(41)
                .map(move |i| Position::from_board(&index.board(i), Color::White))
        })
        .collect();
    threads_agree(&tables, &positions, false);
    threads_agree(&tables, &positions, true);
}
