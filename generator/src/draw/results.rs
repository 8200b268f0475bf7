//! The fresh results of the materials solved before, which the draw-rule solver reads for the
//! exits (captures and crownings) of a pair: held in memory by signature, or overlaid.

use bitvec::field::BitField;
use bitvec::vec::BitVec;
use dprobe::format::draw::{alone_result, alone_symbol, fresh_symbol};
use dprobe::format::{raw_table_path, TableKind};
use dprobe::index::{Signature, TableIndex};
use dprobe::rules::{has_capture, legal_moves, Board};
use dprobe::{DrawWdl, Wdl};
use rayon::prelude::*;

use crate::pure::build::pair_of;
use crate::pure::solve::bits_from_words;
use crate::pure::tableset::TableSet;
use crate::pure::unpack::{is_published, open};
use crate::Error;

/// The longest distance of a decided position of the pair of `signature` in the pure game
/// ([`Table::longest_distance`](crate::pure::store::Table::longest_distance)), where its raw
/// files are there to read it from; `None` otherwise, or if one cannot be read.
pub fn longest_pure_distance(pure: &TableSet, signature: Signature) -> Option<u16> {
    let (dir, rules) = (pure.dir(), pure.rules());
    pair_of(signature)
        .into_iter()
        .map(|s| {
            raw_table_path(dir, rules.id, s)
                .exists()
                .then(|| pure.table(s).ok()?.longest_distance())
                .flatten()
        })
        .try_fold(0, |longest, side| side.map(|d| longest.max(d)))
}

/// The pure result of every position of `signature`, in index order: from its raw file where a
/// build left one (it holds every value, those of capture positions too); else from its `.wdl`
/// file, a capture position's (don't-care there) the best of its captures' results, taken from
/// `smaller`'s fresh results, which carry the pure result.
///
/// A rule build reads nothing else of a pure table. Rebuilding the raw table from the published
/// files instead decodes its `.dtw` file too and, for its captures, every smaller table the same
/// way, again for each pair. Valuing the capture positions is what the raw file saves: about a
/// seventh of the CPU of a rule build (docs/DRAW_RULES.md §9.11).
///
/// # Errors
///
/// A missing or damaged pure table, or a capture into a material `smaller` does not hold.
pub fn pure_wdl(
    pure: &TableSet,
    smaller: &dyn FreshResults,
    signature: Signature,
) -> Result<Vec<Wdl>, Error> {
    let (dir, rules) = (pure.dir(), pure.rules());
    let published = is_published(dir, rules, signature);
    if !published || raw_table_path(dir, rules.id, signature).exists() {
        match crate::draw::tables::pure_results(pure, signature) {
            // A damaged raw file is only a shortcut missed where the published files are there.
            Err(_) if published => {}
            read => return read,
        }
    }
    let wdl = open(dir, rules, signature, TableKind::Wdl)?;
    let index = TableIndex::new(signature);
    let per_block = wdl.header().positions_per_block as usize;
    let mut results = vec![Wdl::Draw; index.size() as usize];
    results
        .par_chunks_mut(per_block)
        .enumerate()
        .try_for_each_init(
            || (Vec::new(), Vec::new()),
            |(symbols, moves), (block, out)| -> Result<(), Error> {
                let first = wdl.block_symbols(block as u32, symbols)?;
                let range = first..first + out.len() as u64;
                for ((board, slot), &symbol) in index.boards(range).zip(out).zip(symbols.iter()) {
                    *slot = if has_capture(&board, rules) {
                        moves.clear();
                        legal_moves(&board, rules, moves);
                        let mut best = Wdl::Loss;
                        for mv in moves.iter() {
                            let child = board.play(mv);
                            let theirs = if child.own() == 0 {
                                Wdl::Loss
                            } else {
                                let (signature, at) = smaller.locate(&child);
                                smaller.fresh_at(signature, at)?.pure()
                            };
                            best = best.max(-theirs);
                        }
                        best
                    } else {
                        TableKind::Wdl
                            .wdl_of(symbol)
                            .ok_or_else(|| Error::Corrupt {
                                path: wdl.path().to_path_buf(),
                                reason: format!("an invalid value in block {block}"),
                            })?
                    };
                }
                Ok(())
            },
        )?;
    Ok(results)
}

/// The rule results of positions in materials solved earlier.
pub trait FreshResults: Sync {
    /// The result of the position at `index` of `signature` with fresh counts.
    fn fresh_at(&self, signature: Signature, index: u64) -> Result<DrawWdl, Error>;

    /// Whether the rules may turn the pure result of some position of `signature`: true where
    /// one is a cursed win or a blessed loss, and where `signature`'s results are not held.
    fn turns_any(&self, signature: Signature) -> bool;

    /// The signature of `board` and its index there, to read its result with.
    fn locate(&self, board: &Board) -> (Signature, u64);
}

/// Values kept by signature, in an array of every signature's slot (looked up at every exit).
struct BySignature<T> {
    slots: Vec<Option<T>>,
    held: Vec<Signature>,
}

impl<T> Default for BySignature<T> {
    fn default() -> Self {
        BySignature {
            slots: (0..Signature::SLOTS).map(|_| None).collect(),
            held: Vec::new(),
        }
    }
}

impl<T> BySignature<T> {
    fn insert(&mut self, signature: Signature, value: T) {
        if self.slots[signature.slot()].replace(value).is_none() {
            self.held.push(signature);
        }
    }

    fn get(&self, signature: Signature) -> Option<&T> {
        self.slots[signature.slot()].as_ref()
    }

    /// Forgets the values of every signature but those `keep` accepts.
    fn retain(&mut self, keep: impl Fn(Signature) -> bool) {
        let slots = &mut self.slots;
        self.held.retain(|&signature| {
            let kept = keep(signature);
            if !kept {
                slots[signature.slot()] = None;
            }
            kept
        });
    }
}

/// Fresh rule results held in memory, by signature: what a build of rule tables reads its exits
/// from. Two positions a byte (a [`DrawWdl`] code in each half): at 6 pieces they are the
/// largest thing a build holds besides the pair being solved.
#[derive(Default)]
pub struct DrawResults {
    tables: BySignature<HeldResults>,
}

/// One material's fresh results, with its index, which every exit into it reads.
struct HeldResults {
    index: TableIndex,
    /// Two [`DrawWdl`] codes a byte.
    codes: Vec<u8>,
    /// Some result is a cursed win or a blessed loss ([`rules_change`]).
    turns_any: bool,
}

/// Whether fresh results ([`DrawWdl`] codes) hold a cursed win or a blessed loss: some rule
/// changed a value.
pub fn rules_change(fresh: &[u8]) -> bool {
    fresh.iter().any(|&c| {
        matches!(
            DrawWdl::from_code(c),
            Some(DrawWdl::CursedWin | DrawWdl::BlessedLoss)
        )
    })
}

impl DrawResults {
    /// Keeps the fresh results of `signature` ([`DrawWdl`] codes).
    pub fn insert(&mut self, signature: Signature, fresh: &[u8]) {
        let packed = fresh
            .chunks(2)
            .map(|two| two[0] | two.get(1).map_or(0, |&high| high << 4))
            .collect();
        let held = HeldResults {
            index: TableIndex::new(signature),
            codes: packed,
            turns_any: rules_change(fresh),
        };
        self.tables.insert(signature, held);
    }

    /// Forgets the results of every signature but those `keep` accepts.
    pub fn retain(&mut self, keep: impl Fn(Signature) -> bool) {
        self.tables.retain(keep);
    }

    /// The code of the position at `index` of `signature`.
    fn code(&self, signature: Signature, index: u64) -> Result<u8, Error> {
        let table = self
            .tables
            .get(signature)
            .ok_or_else(|| Error::Invariant(format!("rule table {signature} is not held")))?;
        table
            .codes
            .get((index / 2) as usize)
            .map(|&two| (two >> (4 * (index % 2))) & 0xf)
            .ok_or_else(|| Error::Invariant(format!("rule table {signature}: no position {index}")))
    }
}

fn bad_result(signature: Signature, index: u64) -> Error {
    Error::Invariant(format!("rule table {signature}: bad result at {index}"))
}

impl FreshResults for DrawResults {
    fn fresh_at(&self, signature: Signature, index: u64) -> Result<DrawWdl, Error> {
        DrawWdl::from_code(self.code(signature, index)?).ok_or_else(|| bad_result(signature, index))
    }

    fn locate(&self, board: &Board) -> (Signature, u64) {
        let signature = Signature::of(board);
        let index = match self.tables.get(signature) {
            Some(held) => held.index.index(board),
            None => TableIndex::new(signature).index(board),
        };
        (signature, index)
    }

    fn turns_any(&self, signature: Signature) -> bool {
        self.tables.get(signature).is_none_or(|held| held.turns_any)
    }
}

/// The fresh results under one counter alone of the signatures where they differ from those under
/// all the rules, as the bits of the files' sections alone ([`alone_symbol`]: that counter turns
/// the pure result into a draw): an eighth of a byte a position.
#[derive(Default)]
pub struct AloneResults {
    tables: BySignature<BitVec<u64>>,
}

impl AloneResults {
    /// Keeps the results alone of `signature` (its bits, [`turned_bits`]) if they differ from
    /// `all`, those under all the rules; returns whether they do.
    pub fn insert(&mut self, signature: Signature, turned: BitVec<u64>, all: &[u8]) -> bool {
        let len = all.len().min(turned.len());
        // 64 positions at a time: the bits that all the rules turn against those turned alone.
        let turned_under_all = |codes: &[u8]| {
            codes.iter().enumerate().fold(0u64, |word, (j, &code)| {
                let turned = DrawWdl::from_code(code).is_some_and(|r| fresh_symbol(r) == 1);
                word | u64::from(turned) << j
            })
        };
        let differ = all[..len]
            .chunks(64)
            .zip(turned[..len].chunks(64))
            .any(|(codes, bits)| turned_under_all(codes) != bits.load_le::<u64>());
        if differ {
            self.tables.insert(signature, turned);
        }
        differ
    }

    /// Forgets the results of every signature but those `keep` accepts.
    pub fn retain(&mut self, keep: impl Fn(Signature) -> bool) {
        self.tables.retain(keep);
    }

    /// Whether results alone of `signature` are held: they differ from those under all the
    /// rules.
    pub fn holds(&self, signature: Signature) -> bool {
        self.tables.get(signature).is_some()
    }
}

/// Per position, whether one counter alone turns the pure result into a draw, from its results
/// alone (`alone`) and those under all the rules (`all`, both [`DrawWdl`] codes).
///
/// # Errors
///
/// A result alone that is neither the pure game's nor a draw: a broken invariant.
pub fn turned_bits(signature: Signature, all: &[u8], alone: &[u8]) -> Result<BitVec<u64>, Error> {
    let turned_at = |i: usize, all: u8, alone: u8| {
        DrawWdl::from_code(all)
            .zip(DrawWdl::from_code(alone))
            .and_then(|(all, alone)| alone_symbol(all, alone))
            .map(|symbol| symbol == 1)
            .ok_or_else(|| {
                Error::Invariant(format!(
                    "{signature}: the result at {i} under one counter alone is not the pure \
                     game's or a draw"
                ))
            })
    };
    let len = all.len().min(alone.len());
    // A word of bits at a time, on every core (a table of 10⁸ positions is read at every resume).
    let words = all[..len]
        .par_chunks(64)
        .zip(alone[..len].par_chunks(64))
        .enumerate()
        .map(|(w, (all, alone))| {
            let mut word = 0u64;
            for (j, (&all, &alone)) in all.iter().zip(alone).enumerate() {
                word |= u64::from(turned_at(w * 64 + j, all, alone)?) << j;
            }
            Ok(word)
        })
        .collect::<Result<Vec<u64>, Error>>()?;
    Ok(bits_from_words(words, len))
}

/// The results under one counter alone: those of the signatures it holds (`top`), the others'
/// those under all the rules (`base`).
pub struct Overlay<'a> {
    /// Read first.
    pub top: &'a AloneResults,
    /// The results under all the rules.
    pub base: &'a DrawResults,
}

impl FreshResults for Overlay<'_> {
    fn locate(&self, board: &Board) -> (Signature, u64) {
        self.base.locate(board)
    }

    fn fresh_at(&self, signature: Signature, index: u64) -> Result<DrawWdl, Error> {
        let all = self.base.code(signature, index)?;
        match self.top.tables.get(signature) {
            None => DrawWdl::from_code(all),
            Some(turned) => alone_result(all, u8::from(turned[index as usize])),
        }
        .ok_or_else(|| bad_result(signature, index))
    }

    fn turns_any(&self, signature: Signature) -> bool {
        match self.top.tables.get(signature) {
            None => self.base.turns_any(signature),
            Some(turned) => turned.any(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turned_bits_follow_each_position_across_words_and_refuse_a_changed_pure_result() {
        let codes = |results: &[DrawWdl]| results.iter().map(|r| r.code()).collect::<Vec<u8>>();
        // 150 positions: two whole words of bits and part of a third.
        let all: Vec<DrawWdl> = (0..150)
            .map(|i| match i % 5 {
                0 => DrawWdl::Win,
                1 => DrawWdl::CursedWin,
                2 => DrawWdl::Draw,
                3 => DrawWdl::Loss,
                _ => DrawWdl::BlessedLoss,
            })
            .collect();
        let alone: Vec<DrawWdl> = all
            .iter()
            .enumerate()
            .map(|(i, &r)| match (r, i % 3 == 0) {
                (DrawWdl::CursedWin, true) => DrawWdl::Win,
                (DrawWdl::Win, true) => DrawWdl::CursedWin,
                (DrawWdl::BlessedLoss, true) => DrawWdl::Loss,
                _ => r,
            })
            .collect();
        let bits = turned_bits(
            Signature::from_counts([0, 1, 0, 1]),
            &codes(&all),
            &codes(&alone),
        )
        .unwrap();
        assert_eq!(bits.len(), 150);
        for (i, r) in alone.iter().enumerate() {
            let turned = matches!(r, DrawWdl::CursedWin | DrawWdl::BlessedLoss);
            assert_eq!(bits[i], turned, "position {i}");
        }
        let mut broken = codes(&alone);
        broken[130] = DrawWdl::Loss.code();
        let error =
            turned_bits(Signature::from_counts([0, 1, 0, 1]), &codes(&all), &broken).unwrap_err();
        assert!(error.to_string().contains("at 130"), "{error}");
    }

    #[test]
    fn a_material_turns_results_where_a_value_is_cursed_or_blessed_or_nothing_is_held() {
        let codes = |results: &[DrawWdl]| results.iter().map(|r| r.code()).collect::<Vec<u8>>();
        let [pure, cursed, blessed, unheld] =
            [[0, 1, 0, 1], [0, 2, 0, 1], [0, 1, 0, 2], [1, 1, 0, 1]].map(Signature::from_counts);
        let mut all = DrawResults::default();
        all.insert(pure, &codes(&[DrawWdl::Win, DrawWdl::Draw, DrawWdl::Loss]));
        all.insert(cursed, &codes(&[DrawWdl::Win, DrawWdl::CursedWin]));
        all.insert(blessed, &codes(&[DrawWdl::BlessedLoss, DrawWdl::Loss]));
        assert!(!all.turns_any(pure));
        assert!(all.turns_any(cursed) && all.turns_any(blessed));
        assert!(
            all.turns_any(unheld),
            "a material not held may turn anything"
        );

        // Under one counter alone: what it turns where it differs, else what all the rules turn.
        let mut alone = AloneResults::default();
        let nothing_turned = BitVec::repeat(false, 2);
        let cursed_codes = codes(&[DrawWdl::Win, DrawWdl::CursedWin]);
        assert!(alone.insert(cursed, nothing_turned, &cursed_codes));
        let mut win_turned = BitVec::repeat(false, 3);
        win_turned.set(0, true);
        let pure_codes = codes(&[DrawWdl::Win, DrawWdl::Draw, DrawWdl::Loss]);
        assert!(alone.insert(pure, win_turned, &pure_codes));
        let overlay = Overlay {
            top: &alone,
            base: &all,
        };
        assert!(!overlay.turns_any(cursed));
        assert!(overlay.turns_any(pure));
        assert!(overlay.turns_any(blessed));
        assert!(overlay.turns_any(unheld));
    }
}
