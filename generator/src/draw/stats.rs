//! Statistics of a rule table file (`dtb stats`): its results with fresh counts, what each
//! counter alone changes, and the longest win the rules allow.

use crate::draw::stairs::Stairs;
use crate::Error;
use dprobe::{
    draw::{MaterialShape, PlaneKind, NEVER},
    format::DrawFile,
    index::TableIndex,
    rules::{has_capture, MoveRules},
    DrawRules, DrawWdl, Wdl,
};
use rayon::prelude::*;

/// A rule table's statistics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrawStats {
    /// Results with fresh counts, counted by [`DrawWdl`] code (loss, blessed loss, draw, cursed
    /// win, win).
    pub all: [u64; 5],
    /// The same under each counter alone, by the counter's id (empty if the file predates
    /// them).
    pub alone: Vec<(&'static str, [u64; 5])>,
    /// Among the positions won under the rules with fresh counts whose requirement is counted in
    /// plies: the most plies the winner needs (the loser resisting) to reach the capture or
    /// crowning that keeps the win, or the end of the game; and the index of one position that
    /// needs them. `None` if there is no such position, or none is counted: in a material the
    /// rules leave as the pure game has it ([`DrawStats::leaves_pure`]) no count runs, and its
    /// wins are the pure game's.
    pub longest_win: Option<(u16, u64)>,
    /// The file says the rules leave the material as the pure game has it: no count runs there
    /// and no capture or crowning leads to a result they turn, so it stores no family.
    pub leaves_pure: bool,
}

impl DrawStats {
    /// Reads the statistics of `file`, built under `rules` and `draw`; `pure` is the pure
    /// result of every position of its table ([`crate::draw::tables::pure_results`]).
    ///
    /// # Errors
    ///
    /// A damaged section or a file whose planes do not fit its draw rules, as text.
    pub fn of(
        file: &DrawFile,
        rules: &MoveRules,
        draw: &DrawRules,
        pure: &[Wdl],
    ) -> Result<DrawStats, Error> {
        let count = |fresh: &[u8]| {
            let mut counts = [0u64; 5];
            for &code in fresh {
                counts[usize::from(code)] += 1;
            }
            counts
        };
        let fresh = file.fresh_results(pure)?;
        let all = count(&fresh);
        let alone = if draw.counters.len() == 1 {
            // A single counter: what it changes alone is everything the rules change.
            vec![(draw.counters[0].id, all)]
        } else if file.counters_alone() != draw.counters.len() {
            Vec::new()
        } else {
            let mut alone = Vec::with_capacity(draw.counters.len());
            for (k, counter) in draw.counters.iter().enumerate() {
                let results = file.fresh_results_alone(k, &fresh).ok_or_else(|| {
                    Error::Invariant(format!(
                        "{}: no results alone for {}",
                        file.signature, counter.id
                    ))
                })??;
                alone.push((counter.id, count(&results)));
            }
            alone
        };
        Ok(DrawStats {
            all,
            alone,
            longest_win: longest_win(file, rules, draw, &fresh)?,
            leaves_pure: file.family(false).is_none(),
        })
    }
}

/// One position whose result the counted rules change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleChange {
    /// Its index in the table.
    pub index: u64,
    /// Its result under the rules with fresh counts: a cursed win or a blessed loss.
    pub result: DrawWdl,
    /// The counters that change it on their own (none: only several together do).
    pub by: Vec<&'static str>,
}

/// The positions of a rule table whose result the rules change, with fresh counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleChanges {
    /// Won in the pure game, drawn under the rules.
    pub cursed_wins: u64,
    /// Lost in the pure game, drawn under the rules.
    pub blessed_losses: u64,
    /// The first ones in index order.
    pub first: Vec<RuleChange>,
}

/// The positions of a rule table whose result the rules change (with fresh counts): how many of
/// each kind, and the first `limit` in index order with the counters that change each alone;
/// `pure` is the pure result of every position of its table.
///
/// # Errors
///
/// A damaged section, or a file without the results of each counter alone.
pub fn rule_changes(
    file: &DrawFile,
    draw: &DrawRules,
    pure: &[Wdl],
    limit: usize,
) -> Result<RuleChanges, Error> {
    let fresh = file.fresh_results(pure)?;
    let alone: Vec<Vec<u8>> = if draw.counters.len() == 1 {
        vec![fresh.clone()]
    } else {
        (0..draw.counters.len())
            .map(|k| {
                file.fresh_results_alone(k, &fresh)
                    .ok_or_else(|| {
                        Error::Invariant(format!(
                            "{}: no results of each counter alone; build the rule tables again",
                            file.signature
                        ))
                    })?
                    .map_err(Error::from)
            })
            .collect::<Result<_, Error>>()?
    };
    let mut changes = RuleChanges::default();
    for (index, &code) in fresh.iter().enumerate() {
        let result = DrawWdl::from_code(code);
        match result {
            Some(DrawWdl::CursedWin) => changes.cursed_wins += 1,
            Some(DrawWdl::BlessedLoss) => changes.blessed_losses += 1,
            _ => continue,
        }
        if changes.first.len() < limit {
            let by = draw
                .counters
                .iter()
                .zip(&alone)
                .filter(|(_, results)| results[index] == code)
                .map(|(counter, _)| counter.id)
                .collect();
            changes.first.push(RuleChange {
                index: index as u64,
                result: result.unwrap_or(DrawWdl::Draw),
                by,
            });
        }
    }
    Ok(changes)
}

/// The longest requirement in plies among the positions won with fresh counts (see
/// [`DrawStats::longest_win`]). The entry of a threshold-of-`A` plane and of a distance plane
/// is that requirement; in `A × Z` layers it is the least layer `k` whose entry the fresh `Z`
/// meets. A threshold of `Z` alone counts plies since the last man move, not to the exit: such
/// positions are left out. A capture position, whose entries the file leaves unspecified, needs
/// one ply: the capture, to a child won with fresh counts.
fn longest_win(
    file: &DrawFile,
    rules: &MoveRules,
    draw: &DrawRules,
    fresh: &[u8],
) -> Result<Option<(u16, u64)>, Error> {
    // Every position counted is won by its mover: a count that this sets aside is left out of
    // its state.
    let deciding = match draw.set_aside(&file.signature, Wdl::Win) {
        Some(_) => draw.without_pure_value_limits(),
        None => draw.clone(),
    };
    let shape = MaterialShape::of(&deciding, file.signature)?;
    let index = TableIndex::new(file.signature);
    let mut best: Option<(u16, u64)> = None;
    for post in [false, true] {
        let Some((kind, _)) = file.family(post) else {
            continue;
        };
        if kind == PlaneKind::ThresholdZ {
            continue;
        }
        let stairs = Stairs::from_corners(file.corners(post)?);
        // Per position won under the rules whose fresh state is in this family, its
        // requirement: in `A × Z` layers the layer of the first corner whose `Z` the fresh `Z`
        // meets (values fall as layers rise), else the entry. `Err`: a won position no entry
        // wins.
        let requirement = |i: usize| -> Result<Option<(u16, u64)>, usize> {
            if fresh[i] != DrawWdl::Win.code() {
                return Ok(None);
            }
            let board = index.board(i as u64);
            let state = shape.fresh(&board);
            if state.post != post {
                return Ok(None);
            }
            if has_capture(&board, rules) {
                return Ok(Some((1, i as u64)));
            }
            let need = if kind == PlaneKind::LayersAz {
                state.z.and_then(|z| {
                    stairs
                        .corner_iter(i)
                        .find(|&(_, value)| u16::from(value) <= z)
                        .map(|(layer, _)| layer)
                })
            } else {
                Some(stairs.entry(i, 0))
                    .filter(|&entry| entry != NEVER)
                    .map(u16::from)
            };
            need.map(|need| Some((need, i as u64))).ok_or(i)
        };
        // The longest, and the first position in index order among those that need it.
        let longest = |a: Option<(u16, u64)>, b: Option<(u16, u64)>| match (a, b) {
            (Some(a), Some(b)) => Some(if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) {
                b
            } else {
                a
            }),
            (a, b) => a.or(b),
        };
        let family_best = (0..fresh.len())
            .into_par_iter()
            .map(requirement)
            .try_reduce(|| None, |a, b| Ok(longest(a, b)))
            .map_err(|i| {
                Error::Invariant(format!(
                    "{}: position {i} is won but its {} family never wins it",
                    file.signature,
                    if post { "post" } else { "pre" }
                ))
            })?;
        // A later family replaces the longest only if it needs more.
        if let Some((need, i)) = family_best {
            if best.is_none_or(|(b, _)| need > b) {
                best = Some((need, i));
            }
        }
    }
    Ok(best)
}
