//! Builds every missing draw-rule table of a rule set up to a number of pieces, after the pure
//! tables, in the pure build's order of pairs.

use std::path::Path;

use dprobe::draw::MaterialShape;
use dprobe::format::{draw_dir, draw_table_path, DrawFile, SectionRole};
use dprobe::index::Signature;
use dprobe::rules::MoveRules;
use dprobe::{DrawRules, DrawWdl};
use std::time::Instant;

use bitvec::slice::BitSlice;
use bitvec::vec::BitVec;

use crate::draw::results::{
    longest_pure_distance, pure_wdl, rules_change, turned_bits, AloneResults, DrawResults,
    FreshResults, Overlay,
};
use crate::draw::solve::{solve_draw_pair, DrawTable, PairGraph};
use crate::draw::write::{
    counters_alone, encode_sections, existing_fresh, finish_draw_table, rule_file_in_place,
    Sections,
};
use crate::error::{io_error, Error};
use crate::pure::build::{pair_of, plan, remove_raw_files, BuildObserver, PairTimes, Planned};
use crate::pure::tableset::TableSet;
use crate::pure::write::{remove_partial_files, write_atomically};

/// Whether a game in `from` (either side to move) may reach `to` (either side to move): no
/// side ever gains a piece or a man.
fn may_reach(from: Signature, to: Signature) -> bool {
    let within = |t: Signature| {
        t.mover_men <= from.mover_men
            && t.mover_men + t.mover_kings <= from.mover_men + from.mover_kings
            && t.opp_men <= from.opp_men
            && t.opp_men + t.opp_kings <= from.opp_men + from.opp_kings
    };
    within(to) || within(to.flipped())
}

/// Whether a move of the side to move in `from` may leave the material for `to` (the child as
/// its side to move sees it): a capture, a crowning, or both. The opponent's pieces can only be
/// taken, and at most one of the mover's men is crowned.
fn leaves_to(from: Signature, to: Signature) -> bool {
    let crowned = from.mover_men.checked_sub(to.opp_men);
    matches!(crowned, Some(0 | 1))
        && crowned.is_some_and(|c| to.opp_kings == from.mover_kings + c)
        && to.mover_men <= from.opp_men
        && to.mover_kings <= from.opp_kings
        && to != from.flipped()
}

/// Whether some pair of `pairs` (either side to move) has an exit to `to`.
fn exits_of_reach(pairs: &[Planned], to: Signature) -> bool {
    pairs
        .iter()
        .any(|p| leaves_to(p.signature, to) || leaves_to(p.signature.flipped(), to))
}

/// Whether a pair of `ahead` that is to be built (`to_build`) may reach a material of the pair
/// of `signature`, and so read its results at an exit, or ask whether a counter alone changes
/// something there.
fn read_by_a_pair_to_build(ahead: &[Planned], to_build: &[bool], signature: Signature) -> bool {
    ahead
        .iter()
        .zip(to_build)
        .any(|(p, &build)| build && may_reach(p.signature, signature))
}

/// Per pair of `pairs`, whether it is to be built: its rule tables are not both in place
/// ([`rule_file_in_place`]), or they are but the results of one cannot be read and a pair to be
/// built reads them. Decided from the last pair to the first, so that a pair found unreadable
/// makes the pairs before it that it reads be read in turn; only those are read here (the
/// others are kept unread: a rerun of a finished build reads no table).
fn pairs_to_build(dir: &Path, rules: &MoveRules, draw: &DrawRules, pairs: &[Planned]) -> Vec<bool> {
    let mut to_build = vec![false; pairs.len()];
    for k in (0..pairs.len()).rev() {
        let files: Option<Vec<DrawFile>> = pair_of(pairs[k].signature)
            .into_iter()
            .map(|s| rule_file_in_place(dir, rules, draw, s))
            .collect();
        to_build[k] = match files {
            None => true,
            Some(files) => {
                read_by_a_pair_to_build(&pairs[k + 1..], &to_build[k + 1..], pairs[k].signature)
                    && files.iter().any(|file| !results_readable(file))
            }
        };
    }
    to_build
}

/// Whether the sections a later build reads of `file` (its fresh results and its results
/// alone) are intact, block by block.
fn results_readable(file: &DrawFile) -> bool {
    file.sections().iter().all(|(role, section)| {
        !matches!(role, SectionRole::Fresh | SectionRole::Alone(_)) || section.verify().is_ok()
    })
}

/// The materials a move of the pair of `signature` may leave to (either side to move).
fn exit_targets(signature: Signature) -> Vec<Signature> {
    let sides = pair_of(signature);
    (1..=signature.pieces())
        .flat_map(Signature::with_pieces)
        .filter(|&to| sides.iter().any(|&from| leaves_to(from, to)))
        .collect()
}

/// Whether no capture of the pair of `signature` leads to a material where some reading turns
/// a pure result: then a capture position keeps its pure result, and the move graph need not
/// read its captures ([`PairGraph::build`]). A capture takes a piece; a crowning alone keeps
/// their number, so the materials with fewer pieces are those the captures lead to.
fn captures_as_pure(signature: Signature, readings: &[&dyn FreshResults]) -> bool {
    exit_targets(signature)
        .into_iter()
        .filter(|target| target.pieces() < signature.pieces())
        .all(|target| readings.iter().all(|reading| !reading.turns_any(target)))
}

/// Whether the rules leave the pair of `signature` as the pure game has it: no count runs
/// there, and no capture or crowning leads to a material where some reading turns a result.
/// Every value of the pair is then its pure value, in every state and under every counter
/// alone (removing counters turns nothing more), and its files hold no family.
fn rules_leave_pure(
    draw: &DrawRules,
    signature: Signature,
    readings: &[&dyn FreshResults],
) -> Result<bool, Error> {
    Ok(!a_count_runs(draw, signature)?
        && exit_targets(signature)
            .into_iter()
            .all(|target| readings.iter().all(|reading| !reading.turns_any(target))))
}

/// The rule tables of a pair the rules leave pure ([`rules_leave_pure`]): each position's pure
/// result, and no family; `smaller` values capture positions where the pair's pure results are
/// read from its published files.
fn pure_tables(
    pure: &TableSet,
    smaller: &dyn FreshResults,
    signature: Signature,
) -> Result<Vec<DrawTable>, Error> {
    pair_of(signature)
        .into_iter()
        .map(|s| {
            let fresh: Vec<u8> = pure_wdl(pure, smaller, s)?
                .into_iter()
                .map(|wdl| DrawWdl::unturned(wdl).code())
                .collect();
            Ok(DrawTable {
                signature: s,
                unread: BitVec::repeat(true, fresh.len()),
                fresh,
                families: Vec::new(),
            })
        })
        .collect()
}

/// Whether some counter of `draw` runs in the pair of `signature`: one side or the other has a
/// count that can decide (an `A` or `Z` budget, or a condition counter).
fn a_count_runs(draw: &DrawRules, signature: Signature) -> Result<bool, Error> {
    for side in pair_of(signature) {
        let shape = MaterialShape::of(draw, side).map_err(Error::from)?;
        if shape.a_full.is_some() || shape.z_full.is_some() || shape.condition.is_some() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// How the results of a pair under one counter alone follow from its exits, without a solve
/// ([`Alone::following_exits`]).
enum FromExits {
    /// No count runs in the pair (under all the rules, so under that counter alone either):
    /// both solves are the pure game's with the exits' values, and at no exit do the results
    /// alone differ from those under all the rules, so neither do the pair's.
    AsUnderAll,
    /// At no exit does the counter alone turn anything, and in the pair it never runs out: it
    /// runs in neither side, or the pair's longest pure game ends before its smallest budget
    /// (the winner's quickest win reaches a won exit, or the end, in fewer plies than any
    /// count of it can reach). It turns nothing in the pair.
    NoneTurned,
}

/// The results under one counter alone, built beside those under all the rules.
struct Alone {
    draw: DrawRules,
    /// The results alone of the signatures where they differ from those under all the rules
    /// (read through an [`Overlay`] over those).
    results: AloneResults,
    /// The signatures where this counter alone changes some value.
    changed: Vec<Signature>,
}

impl Alone {
    /// Whether the results of the pair of `signature` under this counter alone are the pure
    /// game's: it applies to neither side, and no material it changes can be reached.
    fn is_pure(&self, signature: Signature) -> bool {
        let applies = |s: Signature| self.draw.active(&s).next().is_some();
        !applies(signature)
            && !applies(signature.flipped())
            && !self.changed.iter().any(|&t| may_reach(signature, t))
    }

    /// How the results alone of the pair of `signature` follow from those at `exits` (the
    /// materials its moves leave to), if they do: `counts_run`, whether some count runs in the
    /// pair under all the rules; `longest`, the pair's longest pure distance if known.
    fn following_exits(
        &self,
        signature: Signature,
        exits: &[Signature],
        counts_run: bool,
        longest: Option<u16>,
    ) -> Result<Option<FromExits>, Error> {
        if !counts_run && !exits.iter().any(|&t| self.results.holds(t)) {
            return Ok(Some(FromExits::AsUnderAll));
        }
        if exits.iter().any(|t| self.changed.contains(t)) {
            return Ok(None);
        }
        let outlasted = match longest {
            Some(longest) => longest < self.smallest_budget(signature)?,
            None => false,
        };
        Ok((!counts_run || outlasted).then_some(FromExits::NoneTurned))
    }

    /// The smallest budget, in plies, this counter alone starts with on either side of the pair
    /// of `signature` (`u16::MAX` where it runs in neither).
    fn smallest_budget(&self, signature: Signature) -> Result<u16, Error> {
        let mut smallest = u16::MAX;
        for side in pair_of(signature) {
            let shape = MaterialShape::of(&self.draw, side).map_err(Error::from)?;
            let condition = shape.condition.map(|c| c.budget);
            for budget in [shape.a_full, shape.z_full, condition]
                .into_iter()
                .flatten()
            {
                smallest = smallest.min(budget);
            }
        }
        Ok(smallest)
    }

    /// Keeps the results alone of `signature` (where the counter turns the pure result into a
    /// draw), whose results under all the rules are `all`.
    fn insert(&mut self, signature: Signature, turned: BitVec<u64>, all: &[u8]) {
        if turned.any() {
            self.changed.push(signature);
        }
        self.results.insert(signature, turned, all);
    }
}

/// Builds every missing rule table under `draw` up to `pieces` pieces in `dir`, whose pure
/// tables must be built. Tables in place (intact checksums) are kept, and read only where a
/// table still to be built may reach them: a rerun of a finished build reads nothing.
///
/// Each file also holds the fresh results under each counter alone (what `dtb stats` reports per
/// rule). Removing counters only brings results closer to the pure game's: a strategy that wins
/// in time under every counter wins under some of them, and one that holds a draw under some
/// holds it under all. So where no value changes under all the rules, none changes under one
/// counter, and a pair is solved again under a counter only if it changes some value under all
/// the rules and the counter applies to it or to a material it may reach that the counter
/// changes; otherwise its results alone are the pure game's. Where they follow from those at
/// its exits ([`FromExits`]), it is not solved again either; where the counter runs in neither
/// side of the pair, only the positions the rules together turn are worked out again
/// ([`PairGraph::turned_without_counts`]).
///
/// A pair's pure results are read from its raw files where a build left them
/// ([`BuildOptions::raw_for_rules`](crate::pure::build::BuildOptions::raw_for_rules)); without
/// `keep_raw`, those are deleted once the pair's rule tables are written, where its published
/// files are in place.
pub fn generate_draw_tables(
    dir: &Path,
    rules: &MoveRules,
    draw: &DrawRules,
    pieces: u32,
    zstd_level: i32,
    keep_raw: bool,
    observer: &dyn BuildObserver,
) -> Result<(), Error> {
    // This build owns the folder: what a killed run was writing is of no use.
    remove_partial_files(&draw_dir(dir, rules.id, draw), None)?;
    let mut pure = TableSet::new(dir, *rules);
    let mut results = DrawResults::default();
    let mut alone: Vec<Alone> = (0..counters_alone(draw))
        .map(|k| Alone {
            draw: draw.only_counter(k),
            results: AloneResults::default(),
            changed: Vec::new(),
        })
        .collect();
    let pairs = plan(pieces);
    let to_build = pairs_to_build(dir, rules, draw, &pairs);
    for (k, planned) in pairs.iter().enumerate() {
        // The results of a material are read only by the exits of later pairs: at 6 pieces,
        // forgetting those no pair still to come leaves to frees over a third of them before
        // the largest pair.
        let still_read = |s: Signature| exits_of_reach(&pairs[k..], s);
        results.retain(still_read);
        for counter in &mut alone {
            counter.results.retain(still_read);
        }
        let signatures = pair_of(planned.signature);
        if !to_build[k] {
            // Kept: its results are read only if a pair built after it may reach it.
            if read_by_a_pair_to_build(&pairs[k + 1..], &to_build[k + 1..], planned.signature) {
                for &s in &signatures {
                    let file = rule_file_in_place(dir, rules, draw, s).ok_or_else(|| {
                        Error::Invariant(format!("rule table {s} is no longer in place"))
                    })?;
                    let (fresh, fresh_alone) = existing_fresh(&file, &pure, &results)?;
                    for (counter, fresh_alone) in alone.iter_mut().zip(fresh_alone) {
                        counter.insert(s, turned_bits(s, &fresh, &fresh_alone)?, &fresh);
                    }
                    if still_read(s) {
                        results.insert(s, &fresh);
                    }
                }
            }
            if !keep_raw {
                pure.close_all_but([], []);
                remove_raw_files(dir, rules, std::slice::from_ref(planned), &[])?;
            }
            observer.pair_skipped(planned);
            continue;
        }
        observer.pair_started(planned);
        let started = Instant::now();
        // One graph serves every solve of the pair: under all the rules, and under each
        // counter alone that may change a value here (with that counter's results of the
        // materials before, overlaid on those under all the rules).
        let overlays: Vec<Option<Overlay>> = alone
            .iter()
            .map(|counter| {
                (!counter.is_pure(planned.signature)).then_some(Overlay {
                    top: &counter.results,
                    base: &results,
                })
            })
            .collect();
        let mut readings: Vec<&dyn FreshResults> = vec![&results];
        let mut reading_of = Vec::with_capacity(overlays.len());
        for overlay in &overlays {
            reading_of.push(overlay.as_ref().map(|overlay| {
                readings.push(overlay);
                readings.len() - 1
            }));
        }
        // Where the rules leave the pair as the pure game has it, its moves are not listed
        // (debug builds list and solve them, to check that).
        let as_pure = rules_leave_pure(draw, planned.signature, &readings)?;
        let graph = if as_pure && !cfg!(debug_assertions) {
            None
        } else {
            let captures_as_pure = captures_as_pure(planned.signature, &readings);
            let graph = PairGraph::build(
                rules,
                draw,
                &pure,
                &readings,
                planned.signature,
                captures_as_pure,
            )?;
            Some(graph)
        };
        let graph_of = || {
            graph
                .as_ref()
                .ok_or_else(|| Error::Invariant(format!("{}: no move graph", planned.signature)))
        };
        let longest = longest_pure_distance(&pure, planned.signature);
        let tables = if as_pure {
            let tables = pure_tables(&pure, &results, planned.signature)?;
            if let Some(graph) = &graph {
                let solved = solve_draw_pair(draw, graph, 0)?;
                debug_assert!(
                    solved.iter().zip(&tables).all(|(s, t)| s.fresh == t.fresh),
                    "{}: the rules change a result of a material they leave pure",
                    planned.signature
                );
            }
            tables
        } else {
            solve_draw_pair(draw, graph_of()?, 0)?
        };
        // Only the graph reads the pair's pure tables (it keeps their results, and the exits
        // read rule results): unpacked from published files they take a byte a position,
        // 0.22 GB for the largest pair at 6 pieces, so none is kept while the pair is solved.
        pure.close_all_but([], []);
        let changed = tables.iter().any(|t| rules_change(&t.fresh));
        if let Some(graph) = graph
            .as_ref()
            .filter(|_| cfg!(debug_assertions) && !as_pure)
            .filter(|_| !a_count_runs(draw, planned.signature).unwrap_or(true))
        {
            // With no count in the pair, the solve is the pure game's with the exits read under
            // the rules: the rounds the results alone take there, given every decisive position
            // as a candidate, must find the same draws (checked by every test that builds).
            let decisive: Vec<BitVec<u64>> = tables
                .iter()
                .map(|t| t.fresh.iter().map(|&c| c != DrawWdl::Draw.code()).collect())
                .collect();
            let turned = tables
                .iter()
                .map(|t| turned_bits(t.signature, &t.fresh, &t.fresh))
                .collect::<Result<Vec<_>, _>>()?;
            debug_assert!(
                graph.turned_without_counts(0, &decisive) == turned,
                "{}: the rounds over the candidates alone differ from the solve",
                planned.signature
            );
        }
        // The results under all the rules are compressed at once, so that their staircases are
        // not held while the pair is solved under each counter alone (0.5 GB at 6 pieces);
        // their fresh results are kept for the results alone and the exits of later pairs.
        let encoding = Instant::now();
        let mut solved: Vec<(Signature, Vec<u8>, Sections)> = Vec::with_capacity(tables.len());
        for table in tables {
            let path = draw_table_path(dir, rules.id, draw, table.signature);
            let sections = encode_sections(rules, &table, zstd_level).map_err(io_error(&path))?;
            solved.push((table.signature, table.fresh, sections));
        }
        let encoding = encoding.elapsed().as_secs_f64();
        // Per counter, the pair's results alone in the order of `solved`, as bits: this
        // counter alone turns the pure result into a draw.
        let mut pair_alone: Vec<Vec<BitVec<u64>>> = Vec::with_capacity(alone.len());
        let exits = changed.then(|| exit_targets(planned.signature));
        let counts_run = changed && a_count_runs(draw, planned.signature)?;
        for (counter, reading) in alone.iter().zip(reading_of) {
            let from_exits = match &exits {
                Some(exits) => {
                    counter.following_exits(planned.signature, exits, counts_run, longest)?
                }
                None => None,
            };
            let turned_under_all = || -> Result<Vec<BitVec<u64>>, Error> {
                solved
                    .iter()
                    .map(|(signature, fresh, _)| turned_bits(*signature, fresh, fresh))
                    .collect()
            };
            let solve_alone = |reading: usize| -> Result<Vec<BitVec<u64>>, Error> {
                solve_draw_pair(&counter.draw, graph_of()?, reading)?
                    .iter()
                    .zip(&solved)
                    .map(|(alone, (signature, fresh, _))| {
                        turned_bits(*signature, fresh, &alone.fresh)
                    })
                    .collect()
            };
            pair_alone.push(match (reading.filter(|_| changed), from_exits) {
                (Some(_), Some(FromExits::AsUnderAll)) => turned_under_all()?,
                (None, _) | (_, Some(FromExits::NoneTurned)) => solved
                    .iter()
                    .map(|(_, fresh, _)| BitVec::repeat(false, fresh.len()))
                    .collect(),
                (Some(reading), None) if !a_count_runs(&counter.draw, planned.signature)? => {
                    // Removing counters never turns more: only the positions the rules
                    // together turn can be turned by this one, and with no count of it in
                    // the pair they are worked out from their moves alone.
                    let turned = graph_of()?.turned_without_counts(reading, &turned_under_all()?);
                    debug_assert!(
                        turned == solve_alone(reading)?,
                        "{}: results alone from the positions turned under all the rules",
                        planned.signature
                    );
                    turned
                }
                (Some(reading), None) => solve_alone(reading)?,
            });
        }
        drop(graph);
        drop(readings);
        drop(overlays);
        let solving = started.elapsed().as_secs_f64() - encoding;
        let solved_at = Instant::now();
        observer.pair_solved(planned);
        for (side, (signature, fresh, sections)) in solved.into_iter().enumerate() {
            let path = draw_table_path(dir, rules.id, draw, signature);
            let table_alone: Vec<&BitSlice<u64>> =
                pair_alone.iter().map(|a| a[side].as_bitslice()).collect();
            let bytes = finish_draw_table(rules, draw, sections, &fresh, &table_alone, zstd_level)
                .map_err(io_error(&path))?;
            write_atomically(&path, &bytes)?;
            for (counter, turned) in alone.iter_mut().zip(&mut pair_alone) {
                counter.insert(signature, std::mem::take(&mut turned[side]), &fresh);
            }
            results.insert(signature, &fresh);
        }
        if !keep_raw {
            remove_raw_files(dir, rules, std::slice::from_ref(planned), &[])?;
        }
        let times = PairTimes {
            solving,
            writing: solved_at.elapsed().as_secs_f64() + encoding,
        };
        observer.pair_finished(planned, &[], times);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use dprobe::index::TableIndex;
    use dprobe::rules::legal_moves;
    use dprobe::{DrawWdl, Variant};

    /// A capture position is valued from its pure result only where no material a capture leads
    /// to turns a result in any reading; a crowning's material does not count.
    #[test]
    fn captures_are_pure_unless_a_material_they_lead_to_turns_a_result() {
        let sig = |name: &str| name.parse::<Signature>().unwrap();
        let pair = sig("KKMvK");
        let mut all = DrawResults::default();
        let fresh = |turned: bool| {
            let results = [DrawWdl::Win, DrawWdl::Loss];
            let mut codes: Vec<u8> = results.iter().map(|r| r.code()).collect();
            if turned {
                codes.push(DrawWdl::CursedWin.code());
            }
            codes
        };
        // Every material up to 4 pieces held, none turned.
        for target in (2..=4).flat_map(Signature::with_pieces) {
            all.insert(target, &fresh(false));
        }
        assert!(captures_as_pure(pair, &[&all]));
        // KKvK, where the lone king's capture of the man leads: turned, so not pure.
        all.insert(sig("KKvK"), &fresh(true));
        assert!(!captures_as_pure(pair, &[&all]));
        all.insert(sig("KKvK"), &fresh(false));
        // Turned in one counter's reading alone.
        let mut alone = AloneResults::default();
        let mut turned = BitVec::repeat(false, 2);
        turned.set(0, true);
        assert!(alone.insert(sig("KKvK"), turned, &fresh(false)));
        let overlay = Overlay {
            top: &alone,
            base: &all,
        };
        assert!(captures_as_pure(pair, &[&all]));
        assert!(!captures_as_pure(pair, &[&all, &overlay]));
        // A material that only a crowning leads to (KvKKK, KKMvK's man crowned) does not count.
        all.insert(sig("KvKKK"), &fresh(true));
        assert!(exit_targets(pair).contains(&sig("KvKKK")));
        assert!(captures_as_pure(pair, &[&all]));
    }

    /// Every capture and crowning of every position up to 4 pieces, under each move-rule set,
    /// leads where `leaves_to` says it may: the build never forgets results a later exit reads.
    #[test]
    fn every_exit_of_a_material_is_one_leaves_to_allows() {
        for variant in [Variant::RUSSIAN, Variant::BRAZILIAN, Variant::PORTUGUESE] {
            let mut moves = Vec::new();
            let mut exits = 0u64;
            for signature in (2..=4).flat_map(Signature::with_pieces) {
                let index = TableIndex::new(signature);
                for board in index.boards(0..index.size()) {
                    moves.clear();
                    legal_moves(&board, &variant.moves, &mut moves);
                    for mv in moves.iter().filter(|mv| mv.is_capture() || mv.crowned) {
                        let child = board.play(mv);
                        let to = Signature::of(&child);
                        assert!(
                            leaves_to(signature, to),
                            "{}: {signature} leaves to {to}",
                            variant.name
                        );
                        exits += 1;
                    }
                }
            }
            assert!(exits > 1_000_000, "{}: only {exits} exits", variant.name);
        }
    }

    #[test]
    fn a_pair_leaves_by_either_side_but_never_to_itself() {
        let name = |s: &str| {
            let (mover, opp) = s.split_once('v').unwrap();
            let count = |side: &str, c| side.matches(c).count() as u8;
            Signature {
                mover_men: count(mover, 'M'),
                mover_kings: count(mover, 'K'),
                opp_men: count(opp, 'M'),
                opp_kings: count(opp, 'K'),
            }
        };
        let pair = [Planned {
            signature: name("KvKKM"),
            positions: 0,
        }];
        assert!(
            !exits_of_reach(&pair, name("KKMvK")),
            "a move inside the pair"
        );
        assert!(exits_of_reach(&pair, name("KvKKK")), "KKM crowns its man");
        assert!(
            exits_of_reach(&pair, name("KMvK")),
            "the lone king takes a king"
        );
        assert!(
            exits_of_reach(&pair, name("KKvK")),
            "the lone king takes the man"
        );
        assert!(
            !exits_of_reach(&pair, name("KvKK")),
            "a mover never loses a piece"
        );
        assert!(
            !exits_of_reach(&pair, name("KvKKKK")),
            "no piece is ever gained"
        );
    }
}
