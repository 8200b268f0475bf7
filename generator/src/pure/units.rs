//! A build cut into units for a scheduler (Slurm, or any other): each unit is one pair of
//! tables, built by a process of its own (`dtb generate --unit ID`) from the tables already in
//! a shared folder, after the units whose tables it reads.

use dprobe::index::{Signature, TableIndex};

use crate::pure::build::{pair_of, plan};
use crate::pure::tableset::move_targets;

/// CPU seconds per position of a pair, by its piece count: a build's CPU time (both cores) over
/// its positions, measured for every table up to 5 and up to 6 pieces (Russian, 2026-12-02, perft
/// 110–119 M leaves/s: 0.195 and 0.226 µs), and beyond 6 pieces grown by the same ratio per
/// piece. A figure to size jobs with, not a promise: docs/CLUSTER.md.
pub(crate) fn cpu_seconds_per_position(pieces: u32) -> f64 {
    const AT_6: f64 = 0.226e-6;
    const GROWTH: f64 = 0.226 / 0.195;
    AT_6 * GROWTH.powi(pieces as i32 - 6)
}

/// Bytes a unit needs per position of its own pair while solving (2 bytes of value, 1 of
/// counter, a capture flag, and the decided positions of the slices being solved).
const SOLVER_BYTES_PER_POSITION: u64 = 5;
/// Bytes per position of each table a unit reads (its raw file mapped, or the table rebuilt in
/// memory from its published files): one where its distances fit a byte, as every table's up
/// to 6 pieces do.
const READ_BYTES_PER_POSITION: u64 = 1;

/// One unit of a build.
#[derive(Clone, Debug, PartialEq)]
pub struct Unit {
    /// Its name: the pair's first table.
    pub id: String,
    /// The tables it builds: a table and its colour flip (one table if it is its own flip).
    pub tables: Vec<Signature>,
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
/// tables are built: one process, since each pair's rule tables read the results of the pairs
/// before it.
pub fn rule_tables_unit(pieces: u32) -> Unit {
    let planned = plan(pieces);
    let positions: u64 = planned.iter().map(|p| p.positions).sum();
    let largest = planned.iter().map(|p| p.positions).max().unwrap_or(0);
    Unit {
        id: RULE_TABLES_UNIT.to_string(),
        tables: planned.iter().flat_map(|p| pair_of(p.signature)).collect(),
        after: planned.iter().map(|p| p.signature.to_string()).collect(),
        positions,
        memory_bytes: RULES_BYTES_PER_LARGEST_PAIR_POSITION * largest,
        cpu_seconds_estimate: positions as f64 * RULES_CPU_SECONDS_PER_POSITION,
    }
}

/// The units of the build of every table up to `pieces` pieces, in an order in which each comes
/// after every unit it reads.
pub fn units(pieces: u32) -> Vec<Unit> {
    let planned = plan(pieces);
    let unit_of = |signature: Signature| {
        let pair = signature.min(signature.flipped());
        planned
            .iter()
            .position(|p| p.signature.min(p.signature.flipped()) == pair)
    };
    planned
        .iter()
        .enumerate()
        .map(|(at, p)| {
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
            Unit {
                id: p.signature.to_string(),
                tables,
                after: after
                    .into_iter()
                    .map(|u| planned[u].signature.to_string())
                    .collect(),
                positions: p.positions,
                memory_bytes: SOLVER_BYTES_PER_POSITION * p.positions
                    + READ_BYTES_PER_POSITION * read,
                cpu_seconds_estimate: p.estimated_cpu_seconds(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_is_in_one_unit_after_every_unit_it_reads() {
        for pieces in 2..=6 {
            let units = units(pieces);
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
                let positions: u64 = unit.tables.iter().map(|&s| TableIndex::new(s).size()).sum();
                assert_eq!(unit.positions, positions);
                assert!(unit.memory_bytes >= SOLVER_BYTES_PER_POSITION * positions);
            }
        }
    }

    #[test]
    fn the_estimates_grow_with_the_pieces() {
        let per_position = |pieces| cpu_seconds_per_position(pieces);
        assert!(per_position(7) > per_position(6) && per_position(6) > per_position(5));
        let six = units(6);
        let largest = six.iter().max_by_key(|u| u.positions).unwrap();
        // The largest 6-piece pair: about a minute of CPU.
        assert!(
            (20.0..200.0).contains(&largest.cpu_seconds_estimate),
            "{largest:?}"
        );
    }
}
