//! A build cut into units for a scheduler (Slurm, or any other): each unit is one pair of
//! tables (or a part of a pair too large for one process, [`crate::pure::parts`]), built by a
//! process of its own (`dtb generate --unit ID`) from the tables already in a shared folder,
//! after the units whose tables it reads.

use dprobe::index::{Signature, TableIndex};

use crate::pure::build::{pair_of, plan};
#[cfg(test)]
use crate::pure::parts::DEFAULT_PART_POSITIONS;
use crate::pure::parts::{cut, part_id, Levels, Part};
use crate::pure::tableset::move_targets;

/// CPU seconds per position of a pair: a build's CPU time (both cores) over its positions,
/// measured for every table up to 5 and up to 6 pieces (Russian, 2026-12-02, perft 110–119 M
/// leaves/s: 0.195 and 0.226 µs), and beyond 6 pieces grown by the same ratio per piece, times
/// the pair's [`men_factor`]. A figure to size jobs with, not a promise: docs/CLUSTER.md.
pub(crate) fn cpu_seconds_per_position(pair: Signature) -> f64 {
    const AT_6: f64 = 0.226e-6;
    const GROWTH: f64 = 0.226 / 0.195;
    let pieces = pair.pieces();
    AT_6 * GROWTH.powi(pieces as i32 - 6) * men_factor(pieces, pair.mover_men + pair.opp_men)
}

/// How a pair's cost per position compares with its piece count's average, by its number of
/// men: from 7 pieces on, pairs with no man or one cost one and a half to two times the average
/// (their kings-only slices outgrow the caches), those with three to six men four fifths to
/// nineteen twentieths of it. The factors are the idle 7-piece build's (Iberian, wall time per
/// position of each group of pairs over the build's, docs/PERFORMANCE.md "Seven pieces"); below
/// 7 pieces the groups differ by less than the noise of the measurement, and count alike.
fn men_factor(pieces: u32, men: u8) -> f64 {
    const AT_7: [f64; 8] = [1.88, 1.54, 1.10, 0.95, 0.87, 0.81, 0.90, 2.02];
    if pieces < 7 {
        1.0
    } else {
        AT_7[usize::from(men).min(AT_7.len() - 1)]
    }
}

/// Bytes a unit needs per position of its own pair while solving (a 2-byte slot, a capture
/// flag, and the decided positions of the slices being solved).
const SOLVER_BYTES_PER_POSITION: u64 = 4;
/// Bytes per position of each table a unit reads (its raw file mapped, or the table rebuilt in
/// memory from its published files): one where its distances fit a byte, as every table's up
/// to 6 pieces do.
const READ_BYTES_PER_POSITION: u64 = 1;

/// One unit of a build.
#[derive(Clone, Debug, PartialEq)]
pub struct Unit {
    /// Its name: the pair's first table.
    pub id: String,
    /// The tables it writes: a table and its colour flip (one table if it is its own flip);
    /// none for a part of a pair built in parts but the last.
    pub tables: Vec<Signature>,
    /// For a part of a pair built in parts, the levels of slices it solves.
    pub levels: Option<Levels>,
    /// The units whose tables it reads, each built before it.
    pub after: Vec<String>,
    /// Positions of its tables.
    pub positions: u64,
    /// Memory it needs, estimated: its own pair while solving and the tables it reads.
    pub memory_bytes: u64,
    /// CPU seconds it takes, estimated from measured builds.
    pub cpu_seconds_estimate: f64,
}

/// The id of the unit that builds the rule tables (after every pair).
pub const RULE_TABLES_UNIT: &str = "rule-tables";

/// CPU seconds per position of the set for its rule tables, and bytes per position of its
/// largest pair: the Russian (FMJD-64) rule tables up to 6 pieces took 3 232 CPU-seconds
/// (1.0·10⁻⁶ a position up to 5 pieces) and peaked at 7.46 GB with a largest pair of 2.18·10⁸
/// positions (2026-12-03, docs/DRAW_RULES.md §9.2).
const RULES_CPU_SECONDS_PER_POSITION: f64 = 1.3e-6;
const RULES_BYTES_PER_LARGEST_PAIR_POSITION: u64 = 35;

/// The unit that builds the rule tables of every table up to `pieces` pieces once the pure
/// tables are built (after every unit that writes tables, pairs above `part_positions` being
/// built in parts): one process, since each pair's rule tables read the results of the pairs
/// before it.
pub fn rule_tables_unit(pieces: u32, part_positions: u64) -> Unit {
    let planned = plan(pieces);
    let positions: u64 = planned.iter().map(|p| p.positions).sum();
    let largest = planned.iter().map(|p| p.positions).max().unwrap_or(0);
    Unit {
        id: RULE_TABLES_UNIT.to_string(),
        tables: planned.iter().flat_map(|p| pair_of(p.signature)).collect(),
        levels: None,
        after: units(pieces, part_positions)
            .into_iter()
            .filter(|u| !u.tables.is_empty())
            .map(|u| u.id)
            .collect(),
        positions,
        memory_bytes: RULES_BYTES_PER_LARGEST_PAIR_POSITION * largest,
        cpu_seconds_estimate: positions as f64 * RULES_CPU_SECONDS_PER_POSITION,
    }
}

/// Bytes a pair built in parts needs per position of the larger of its tables to assemble
/// that table from the part files: its values and capture flags ([`crate::pure::parts`]).
const ASSEMBLY_BYTES_PER_POSITION: u64 = 3;
/// Bytes a part needs per position of the level above it, whose values it loads.
const ABOVE_BYTES_PER_POSITION: u64 = 2;
/// The time a pair's tables take to write as a share of its solving time (the first 7-piece
/// build: 496 s against 5 036 s): what the part that assembles a pair's tables adds to its own.
const WRITING_SHARE: f64 = 0.1;

/// The units of the build of every table up to `pieces` pieces, in an order in which each comes
/// after every unit it reads. A pair above `part_positions` positions is cut into parts of at
/// most that many (a level of slices at least, [`crate::pure::parts::cut`]), each a unit after
/// the one before it; the units that read the pair wait for its last part, which writes its
/// tables.
pub fn units(pieces: u32, part_positions: u64) -> Vec<Unit> {
    let planned = plan(pieces);
    let parts: Vec<Vec<Part>> = planned
        .iter()
        .map(|p| {
            if p.positions > part_positions {
                cut(p.signature, part_positions)
            } else {
                Vec::new()
            }
        })
        .collect();
    // The unit that finishes each pair: the pair itself, or its part of level 0.
    let finishing: Vec<String> = planned
        .iter()
        .zip(&parts)
        .map(|(p, parts)| match parts.last() {
            Some(last) if parts.len() > 1 => part_id(p.signature, last.levels),
            _ => p.signature.to_string(),
        })
        .collect();
    let unit_of = |signature: Signature| {
        let pair = signature.min(signature.flipped());
        planned
            .iter()
            .position(|p| p.signature.min(p.signature.flipped()) == pair)
    };
    let mut units = Vec::new();
    for (at, p) in planned.iter().enumerate() {
        let tables = pair_of(p.signature);
        let mut after: Vec<usize> = Vec::new();
        let mut read = 0;
        for target in tables.iter().flat_map(|&s| move_targets(s)) {
            let Some(unit) = unit_of(target) else {
                continue;
            };
            if unit != at && !after.contains(&unit) {
                after.push(unit);
            }
            if !tables.contains(&target) {
                read += TableIndex::new(target).size();
            }
        }
        after.sort_unstable();
        let after: Vec<String> = after.into_iter().map(|u| finishing[u].clone()).collect();
        let read_memory = READ_BYTES_PER_POSITION * read;
        let per_position = cpu_seconds_per_position(p.signature);
        if parts[at].len() <= 1 {
            units.push(Unit {
                id: p.signature.to_string(),
                tables,
                levels: None,
                after,
                positions: p.positions,
                memory_bytes: SOLVER_BYTES_PER_POSITION * p.positions + read_memory,
                cpu_seconds_estimate: p.estimated_cpu_seconds(),
            });
            continue;
        }
        let largest = tables.iter().map(|&s| TableIndex::new(s).size()).max();
        let assembly = ASSEMBLY_BYTES_PER_POSITION * largest.unwrap_or(0);
        let mut previous: Option<String> = None;
        for (number, part) in parts[at].iter().enumerate() {
            let last = number + 1 == parts[at].len();
            let solving = SOLVER_BYTES_PER_POSITION * part.positions
                + ABOVE_BYTES_PER_POSITION * part.above
                + read_memory;
            let id = part_id(p.signature, part.levels);
            units.push(Unit {
                id: id.clone(),
                // The last part writes the pair's tables.
                tables: if last { tables.clone() } else { Vec::new() },
                levels: Some(part.levels),
                after: after.iter().cloned().chain(previous.take()).collect(),
                positions: part.positions,
                memory_bytes: if last { solving.max(assembly) } else { solving },
                cpu_seconds_estimate: part.positions as f64 * per_position
                    + if last {
                        WRITING_SHARE * p.estimated_cpu_seconds()
                    } else {
                        0.0
                    },
            });
            previous = Some(id);
        }
    }
    units
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_is_in_one_unit_after_every_unit_it_reads() {
        // Whole pairs, and pairs above 30 000 positions in parts.
        for (pieces, limit) in [
            (2, DEFAULT_PART_POSITIONS),
            (6, DEFAULT_PART_POSITIONS),
            (5, 30_000),
        ]
        .into_iter()
        .chain((3..=4).map(|pieces| (pieces, DEFAULT_PART_POSITIONS)))
        {
            let units = units(pieces, limit);
            let mut tables: Vec<Signature> = units.iter().flat_map(|u| u.tables.clone()).collect();
            let mut expected: Vec<Signature> =
                (2..=pieces).flat_map(Signature::with_pieces).collect();
            tables.sort();
            expected.sort();
            assert_eq!(tables, expected, "{pieces} pieces: each table exactly once");
            for (at, unit) in units.iter().enumerate() {
                let earlier: Vec<&str> = units[..at].iter().map(|u| u.id.as_str()).collect();
                for id in &unit.after {
                    assert!(
                        earlier.contains(&id.as_str()),
                        "{}: {id} not before it",
                        unit.id
                    );
                }
                // Every table a move reaches is the unit's own or in a unit it waits for.
                for target in unit.tables.iter().flat_map(|&s| move_targets(s)) {
                    let owner = units.iter().find(|u| u.tables.contains(&target)).unwrap();
                    assert!(
                        owner.id == unit.id || unit.after.contains(&owner.id),
                        "{} reads {target} of {} without waiting for it",
                        unit.id,
                        owner.id
                    );
                }
                if unit.levels.is_none() {
                    let positions: u64 =
                        unit.tables.iter().map(|&s| TableIndex::new(s).size()).sum();
                    assert_eq!(unit.positions, positions);
                }
                assert!(unit.memory_bytes >= SOLVER_BYTES_PER_POSITION * unit.positions);
            }
            // A pair's parts: above the limit only, each after the one before, the last
            // writing the tables, their positions the pair's.
            let planned = plan(pieces);
            for p in &planned {
                let name = p.signature.to_string();
                let parts: Vec<&Unit> = units
                    .iter()
                    .filter(|u| u.id.split('.').next() == Some(name.as_str()))
                    .collect();
                assert_eq!(
                    parts.len() > 1,
                    p.positions > limit && parts[0].levels.is_some()
                );
                for pair in parts.windows(2) {
                    assert!(pair[1].after.contains(&pair[0].id), "{}", pair[1].id);
                    assert!(pair[0].tables.is_empty());
                }
                let positions: u64 = parts.iter().map(|u| u.positions).sum();
                assert_eq!(positions, p.positions, "{name}");
            }
        }
        assert!(units(5, 30_000).len() > units(5, DEFAULT_PART_POSITIONS).len() + 20);
    }

    #[test]
    fn the_estimates_grow_with_the_pieces_and_weigh_the_men_from_7() {
        let per_position = |name: &str| cpu_seconds_per_position(name.parse().unwrap());
        assert!(per_position("KKKMvKM") > per_position("KKMvKM"));
        assert!(per_position("KKMvKM") > per_position("KMvKM"));
        // Kings-heavy pairs cost more than pairs with men from 7 pieces on, alike below.
        assert_eq!(per_position("KKKvKK"), per_position("MMMvMM"));
        assert!(per_position("KKKKvKKK") > 2.0 * per_position("KKMMvKMM"));
        // The weights by men share out the 7-piece tables' time, not add to it: weighed by their
        // positions they average one.
        let seven: Vec<_> = plan(7)
            .into_iter()
            .filter(|p| p.signature.pieces() == 7)
            .collect();
        let positions: f64 = seven.iter().map(|p| p.positions as f64).sum();
        let weighed: f64 = seven
            .iter()
            .map(|p| {
                p.positions as f64 * men_factor(7, p.signature.mover_men + p.signature.opp_men)
            })
            .sum();
        assert!(
            (weighed / positions - 1.0).abs() < 0.01,
            "{}",
            weighed / positions
        );
        let six = units(6, DEFAULT_PART_POSITIONS);
        let largest = six.iter().max_by_key(|u| u.positions).unwrap();
        // The largest 6-piece pair: about a minute of CPU.
        assert!(
            (20.0..200.0).contains(&largest.cpu_seconds_estimate),
            "{largest:?}"
        );
    }
}
