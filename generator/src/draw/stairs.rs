//! Staircases (`docs/DRAW_RULES.md` §3.2): what a family of a rule table knows about each
//! position, as the corners where the least winning `Z` falls while `A` grows, built layer by
//! layer without keeping the layers. A family of one budget (or none) is one layer: each
//! position's threshold or distance is its only corner, at layer 0.

use bitvec::prelude::*;
use dprobe::draw::NEVER;
use dprobe::format::draw::{corner_code, corner_parts, NO_CORNER};
use dprobe::format::FamilyCorners;
use rayon::prelude::*;

/// One task's share of staircases: first corners of its positions, and their further corners.
type Part = (Vec<u16>, Vec<(u32, u16)>);

/// Positions per task of the parallel passes over every position.
const CHUNK: usize = 1 << 14;

/// The first position of every task of a parallel pass over `len` positions.
fn chunk_starts(len: usize) -> impl IndexedParallelIterator<Item = usize> {
    (0..len.div_ceil(CHUNK)).into_par_iter().map(|c| c * CHUNK)
}

/// Per position, the corners `(layer, value)` of its staircase: from layer `layer` on, the
/// winner wins with `value` (the least `Z`, or the threshold); layers rise and values fall from
/// one corner to the next. No corner: the winner never wins in the family.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stairs {
    /// Layers of `A` the family distinguishes; layers past the last repeat it.
    layers: usize,
    /// Per position its first corner ([`corner_code`], with the flag of a further corner), or
    /// [`NO_CORNER`].
    first: Vec<u16>,
    /// The corners after the first, sorted by position and then layer: (position, code).
    further: Vec<(u32, u16)>,
}

/// A layer whose value rose above the one before at a position, which a staircase cannot hold:
/// budgets only help the winner (`docs/DRAW_RULES.md` §3.1, fact 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotAStaircase {
    /// The position.
    pub index: usize,
    /// The layer where its value rose.
    pub layer: usize,
}

impl Stairs {
    /// One layer: a threshold or distance per position ([`NEVER`]: none).
    pub fn single(values: &[u8]) -> Stairs {
        Stairs {
            layers: 1,
            first: values.par_iter().map(|&v| u16::from(v)).collect(),
            further: Vec::new(),
        }
    }

    /// The staircases of `layers` (each one value per position, the first at layer 0).
    ///
    /// # Errors
    ///
    /// [`NotAStaircase`] where a value rises from one layer to the next.
    pub fn from_layers(layers: &[Vec<u8>]) -> Result<Stairs, NotAStaircase> {
        let mut builder = StairsBuilder::new(layers[0].clone());
        for layer in &layers[1..] {
            builder.push(layer)?;
        }
        Ok(builder.finish())
    }

    /// The staircases a rule table file holds ([`DrawFile::corners`](dprobe::format::DrawFile::corners), which checks them).
    pub fn from_corners(corners: FamilyCorners) -> Stairs {
        Stairs {
            layers: usize::from(corners.layers),
            first: corners.first,
            further: corners.further,
        }
    }

    /// Positions.
    pub fn len(&self) -> usize {
        self.first.len()
    }

    /// Whether it holds no position.
    pub fn is_empty(&self) -> bool {
        self.first.is_empty()
    }

    /// Layers of `A` the family distinguishes.
    pub fn layers(&self) -> usize {
        self.layers
    }

    /// The value of position `index` at `layer` (layers past the last repeat it): the value of
    /// its last corner at or below the layer, [`NEVER`] if none.
    #[inline]
    pub fn entry(&self, index: usize, layer: usize) -> u8 {
        let layer = layer.min(self.layers - 1) as u16;
        let (from, value, more) = corner_parts(self.first[index]);
        if value == NEVER || from > layer {
            return NEVER;
        }
        if !more {
            return value;
        }
        let mut value = value;
        for &(_, code) in self.further_of(index) {
            let (from, next, _) = corner_parts(code);
            if from > layer {
                break;
            }
            value = next;
        }
        value
    }

    /// The corners of position `index`, as `(layer, value)`.
    pub fn corners(&self, index: usize) -> Vec<(u16, u8)> {
        self.corner_iter(index).collect()
    }

    /// The corners of position `index`, as `(layer, value)`, without gathering them.
    pub fn corner_iter(&self, index: usize) -> impl Iterator<Item = (u16, u8)> + '_ {
        let (layer, value, more) = corner_parts(self.first[index]);
        let further = if more { self.further_of(index) } else { &[] };
        (value != NEVER)
            .then_some((layer, value))
            .into_iter()
            .chain(further.iter().map(|&(_, code)| {
                let (layer, value, _) = corner_parts(code);
                (layer, value)
            }))
    }

    /// Whether position `index` has the same corners here and in `other`: the same value in
    /// every layer, since corners are where the value falls.
    pub fn same_at(&self, other: &Stairs, index: usize) -> bool {
        self.corner_iter(index).eq(other.corner_iter(index))
    }

    /// Every layer, one value per position: what the staircases stand for.
    pub fn to_layers(&self) -> Vec<Vec<u8>> {
        (0..self.layers)
            .map(|layer| {
                (0..self.len())
                    .into_par_iter()
                    .map(|i| self.entry(i, layer))
                    .collect()
            })
            .collect()
    }

    /// Staircases over `layers` layers whose position `i` has the corners of position `i` in
    /// `choose(i)`, or none where that is `None`; every staircase chosen has `len` positions.
    pub fn select<'a>(
        layers: usize,
        len: usize,
        choose: impl Fn(usize) -> Option<&'a Stairs> + Sync,
    ) -> Stairs {
        let parts: Vec<Part> = chunk_starts(len)
            .map(|start| {
                let end = (start + CHUNK).min(len);
                let mut first = Vec::with_capacity(end - start);
                let mut further = Vec::new();
                for i in start..end {
                    let mut corners = choose(i).into_iter().flat_map(|s| s.corner_iter(i));
                    first.push(match corners.next() {
                        None => NO_CORNER,
                        Some((layer, value)) => corner_code(layer, value, false),
                    });
                    further.extend(
                        corners.map(|(layer, value)| (i as u32, corner_code(layer, value, false))),
                    );
                }
                (first, further)
            })
            .collect();
        let mut stairs = Stairs {
            layers,
            first: Vec::with_capacity(len),
            further: Vec::new(),
        };
        for (first, further) in parts {
            stairs.first.extend(first);
            stairs.further.extend(further);
        }
        stairs.with_flags()
    }

    /// The first position, if any, where `test` holds.
    pub fn first_where(len: usize, test: impl Fn(usize) -> bool + Sync) -> Option<usize> {
        chunk_starts(len)
            .find_map_first(|start| (start..(start + CHUNK).min(len)).find(|&i| test(i)))
    }

    /// The value of every position, for a family of one layer (its only corners).
    pub fn single_values(&self) -> Vec<u8> {
        debug_assert!(self.layers == 1 && self.further.is_empty());
        self.first.par_iter().map(|&code| code as u8).collect()
    }

    /// How many sections the family of layers needs: the most corners of a position.
    pub fn ranks(&self) -> usize {
        let mut most = 1;
        let mut run = 0;
        let mut previous = None;
        for &(index, _) in &self.further {
            run = if previous == Some(index) { run + 1 } else { 1 };
            previous = Some(index);
            most = most.max(run + 1);
        }
        most
    }

    /// Section `rank` of a rule table's family of layers (`rank < ranks()`): every position's
    /// corner `rank + 1` (codes of [`corner_code`]), with the positions that have fewer corners
    /// marked don't-care. Built one at a time, so that a writer holds one section in memory.
    pub fn section(&self, rank: usize) -> (Vec<u16>, BitVec<u64>) {
        if rank == 0 {
            return (self.first.clone(), bitvec![u64, Lsb0; 0; self.len()]);
        }
        let mut symbols = vec![NO_CORNER; self.len()];
        let mut dont_care = bitvec![u64, Lsb0; 1; self.len()];
        let mut run = 0;
        let mut previous = None;
        for &(index, code) in &self.further {
            run = if previous == Some(index) { run + 1 } else { 1 };
            previous = Some(index);
            if run == rank {
                symbols[index as usize] = code;
                dont_care.set(index as usize, false);
            }
        }
        (symbols, dont_care)
    }

    /// The further corners of position `index`.
    fn further_of(&self, index: usize) -> &[(u32, u16)] {
        let index = index as u32;
        let start = self.further.partition_point(|&(i, _)| i < index);
        let end = start + self.further[start..].partition_point(|&(i, _)| i == index);
        &self.further[start..end]
    }

    /// Sets the flag of every corner that a further corner follows.
    fn with_flags(mut self) -> Stairs {
        const MORE: u16 = 1 << 15;
        for k in 0..self.further.len() {
            let index = self.further[k].0;
            let last_of_position = self.further.get(k + 1).is_none_or(|&(i, _)| i != index);
            if !last_of_position {
                self.further[k].1 |= MORE;
            }
            if k == 0 || self.further[k - 1].0 != index {
                self.first[index as usize] |= MORE;
            }
        }
        self
    }
}

/// The corner that layer `layer` adds at position `index`, where the value goes from `before`
/// to `now`: one where it falls, none where it repeats.
///
/// # Errors
///
/// [`NotAStaircase`] where it rises.
#[inline]
fn corner_at(index: usize, layer: u16, before: u8, now: u8) -> Result<Option<u16>, NotAStaircase> {
    if now > before {
        return Err(NotAStaircase {
            index,
            layer: usize::from(layer),
        });
    }
    Ok((now < before).then(|| corner_code(layer, now, false)))
}

/// Builds staircases from layers `0, 1, …` given one at a time, keeping only the last.
pub struct StairsBuilder {
    last: Vec<u8>,
    layers: usize,
    first: Vec<u16>,
    further: Vec<(u32, u16)>,
}

impl StairsBuilder {
    /// Starts from layer 0.
    pub fn new(layer0: Vec<u8>) -> StairsBuilder {
        let first = layer0
            .par_iter()
            .map(|&v| {
                if v == NEVER {
                    NO_CORNER
                } else {
                    corner_code(0, v, false)
                }
            })
            .collect();
        StairsBuilder {
            last: layer0,
            layers: 1,
            first,
            further: Vec::new(),
        }
    }

    /// The last layer given.
    pub fn last(&self) -> &[u8] {
        &self.last
    }

    /// Layers given so far.
    pub fn layers(&self) -> usize {
        self.layers
    }

    /// Adds the next layer: a corner wherever its value falls below the last layer's. The layer
    /// is applied in place, chunk by chunk: a first layer past 0 gives most positions their first
    /// corner, which as a list of corners would take 8 bytes a position beside the builder.
    ///
    /// # Errors
    ///
    /// [`NotAStaircase`] where a value rises (the builder is then of no further use).
    pub fn push(&mut self, layer: &[u8]) -> Result<(), NotAStaircase> {
        let k = self.layers as u16;
        let found: Vec<Result<Vec<(u32, u16)>, NotAStaircase>> = self
            .last
            .par_chunks_mut(CHUNK)
            .zip(self.first.par_chunks_mut(CHUNK))
            .zip(layer.par_chunks(CHUNK))
            .enumerate()
            .map(|(c, ((last, first), values))| {
                let mut further = Vec::new();
                for (j, ((before, first), &now)) in
                    last.iter_mut().zip(first).zip(values).enumerate()
                {
                    let i = c * CHUNK + j;
                    if let Some(code) = corner_at(i, k, *before, now)? {
                        *before = now;
                        if *first == NO_CORNER {
                            *first = code;
                        } else {
                            further.push((i as u32, code));
                        }
                    }
                }
                Ok(further)
            })
            .collect();
        for further in found {
            self.further.extend(further?);
        }
        self.layers += 1;
        Ok(())
    }

    /// The corners the next layer adds at the positions flagged in `moving` (a bit a position,
    /// 64 a word), where `value` gives it; every other position repeats the last layer's value.
    ///
    /// # Errors
    ///
    /// [`NotAStaircase`] where a value rises.
    pub fn corners_at(
        &self,
        moving: &[u64],
        value: impl Fn(usize) -> u8 + Sync,
    ) -> Result<Vec<(u32, u16)>, NotAStaircase> {
        let k = self.layers as u16;
        let found: Vec<Result<Vec<(u32, u16)>, NotAStaircase>> = moving
            .par_chunks(CHUNK / 64)
            .enumerate()
            .map(|(c, words)| {
                let mut found = Vec::new();
                for (w, &word) in words.iter().enumerate() {
                    let mut bits = word;
                    while bits != 0 {
                        let i = c * CHUNK + w * 64 + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        if let Some(code) = corner_at(i, k, self.last[i], value(i))? {
                            found.push((i as u32, code));
                        }
                    }
                }
                Ok(found)
            })
            .collect();
        let mut corners = Vec::new();
        for chunk in found {
            corners.extend(chunk?);
        }
        Ok(corners)
    }

    /// Adds the next layer from its corners ([`StairsBuilder::corners_at`]).
    pub fn add_layer(&mut self, corners: Vec<(u32, u16)>) {
        for (index, code) in corners {
            self.last[index as usize] = corner_parts(code).1;
            let first = &mut self.first[index as usize];
            if *first == NO_CORNER {
                *first = code;
            } else {
                self.further.push((index, code));
            }
        }
        self.layers += 1;
    }

    /// The staircases of the layers given.
    pub fn finish(mut self) -> Stairs {
        // Corners were added layer by layer; a stable sort by position keeps each one's layers
        // rising.
        self.further.par_sort_by_key(|&(index, _)| index);
        Stairs {
            layers: self.layers,
            first: self.first,
            further: self.further,
        }
        .with_flags()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staircases_give_back_their_layers_and_sections() {
        let layers = vec![
            vec![NEVER, 5, NEVER, 0],
            vec![NEVER, 5, 9, 0],
            vec![7, 3, 9, 0],
            vec![7, 1, 4, 0],
        ];
        let stairs = Stairs::from_layers(&layers).unwrap();
        assert_eq!(stairs.to_layers(), layers);
        assert_eq!(stairs.corners(1), vec![(0, 5), (2, 3), (3, 1)]);
        assert_eq!(stairs.corners(2), vec![(1, 9), (3, 4)]);
        assert_eq!(stairs.entry(1, 40), 1, "layers past the last repeat it");
        assert_eq!(stairs.ranks(), 3);
        let sections: Vec<_> = (0..3).map(|rank| stairs.section(rank)).collect();
        assert_eq!(
            corner_parts(sections[0].0[1]),
            (0, 5, true),
            "the first corner says a further one follows"
        );
        assert_eq!(corner_parts(sections[2].0[1]), (3, 1, false));
        assert!(sections[2].1[2], "position 2 has no third corner");
        assert!(!sections[1].1[2]);
        assert_eq!(Stairs::select(4, 4, |_| Some(&stairs)), stairs);
        let none_for_2 = Stairs::select(4, 4, |i| (i != 2).then_some(&stairs));
        assert_eq!(none_for_2.corners(2), vec![]);
        assert_eq!(none_for_2.corners(1), stairs.corners(1));
        assert!(stairs.same_at(&none_for_2, 1) && !stairs.same_at(&none_for_2, 2));
        assert_eq!(Stairs::first_where(4, |i| stairs.entry(i, 0) == 0), Some(3));
    }

    #[test]
    fn a_rising_value_is_refused() {
        let layers = vec![vec![3, 4], vec![3, 5]];
        assert_eq!(
            Stairs::from_layers(&layers),
            Err(NotAStaircase { index: 1, layer: 1 })
        );
        assert_eq!(
            Stairs::from_layers(&[vec![4], vec![NEVER]]),
            Err(NotAStaircase { index: 0, layer: 1 })
        );
    }

    #[test]
    fn layers_given_at_some_positions_build_the_staircases_of_whole_layers() {
        let layers = vec![
            vec![NEVER, 5, NEVER, 0, 7],
            vec![NEVER, 5, 9, 0, 7],
            vec![6, 3, 9, 0, 7],
            vec![6, 1, 4, 0, 7],
        ];
        // Past layer 1, positions 3 and 4 keep their values: only the others are given.
        let moving = 0b111;
        let mut sparse = StairsBuilder::new(layers[0].clone());
        let mut whole = StairsBuilder::new(layers[0].clone());
        for (k, layer) in layers.iter().enumerate().skip(1) {
            if k == 1 {
                sparse.push(layer).unwrap();
            } else {
                sparse.add_layer(sparse.corners_at(&[moving], |i| layer[i]).unwrap());
            }
            whole.push(layer).unwrap();
            assert_eq!(sparse.last(), layer.as_slice(), "layer {k}");
        }
        assert_eq!(sparse.layers(), 4);
        let stairs = sparse.finish();
        assert_eq!(stairs, whole.finish());
        assert_eq!(stairs.to_layers(), layers);

        let builder = StairsBuilder::new(vec![3, 4, 5]);
        assert_eq!(
            builder.corners_at(&[0b101], |i| [2, 0, 6][i]),
            Err(NotAStaircase { index: 2, layer: 1 })
        );
        assert_eq!(builder.corners_at(&[0b10], |_| 4), Ok(vec![]));
    }

    /// Writes a file of signature KvK whose only family holds `stairs` (the fresh results all
    /// draws: the reader of corners does not look at them) and opens it.
    fn file_holding(stairs: Stairs, dir: &std::path::Path) -> dprobe::format::DrawFile {
        use crate::draw::solve::{DrawTable, Family};
        use dprobe::draw::Interpretation;
        use dprobe::draw::PlaneKind;
        use dprobe::{DrawRules, DrawWdl, Variant};
        let signature = dprobe::index::Signature {
            mover_men: 0,
            mover_kings: 1,
            opp_men: 0,
            opp_kings: 1,
        };
        let table = DrawTable {
            signature,
            fresh: vec![DrawWdl::Draw.code(); stairs.len()],
            unread: bitvec::bitvec![u64, bitvec::order::Lsb0; 0; stairs.len()],
            families: vec![Family {
                post: false,
                kind: PlaneKind::LayersAz,
                stairs,
            }],
        };
        let rules = Variant::RUSSIAN.moves;
        let draw = DrawRules::new(Variant::RUSSIAN.draw_preset, Interpretation::default());
        let bytes = crate::draw::write::encode_draw_table(&rules, &draw, &table, &[], 3).unwrap();
        let path = dir.join("KvK.rules");
        std::fs::write(&path, bytes).unwrap();
        dprobe::format::DrawFile::open(&path).unwrap()
    }

    #[test]
    fn a_file_gives_back_the_corners_written_and_refuses_a_rising_value() {
        let dir = tempfile::tempdir().unwrap();
        let size = dprobe::index::TableIndex::new(dprobe::index::Signature {
            mover_men: 0,
            mover_kings: 1,
            opp_men: 0,
            opp_kings: 1,
        })
        .size() as usize;
        let mut layers = vec![vec![NEVER; size]; 4];
        for (i, values) in [
            (0, [9, 9, 5, 5]),
            (7, [NEVER, 6, 6, 2]),
            (size - 1, [3, 2, 1, 0]),
        ] {
            for (layer, value) in values.into_iter().enumerate() {
                layers[layer][i] = value;
            }
        }
        let stairs = Stairs::from_layers(&layers).unwrap();
        let file = file_holding(stairs.clone(), dir.path());
        assert_eq!(Stairs::from_corners(file.corners(false).unwrap()), stairs);
        assert_eq!(file.layers(false).unwrap(), layers);

        // Position 7's second corner raised above its first: not a staircase.
        let mut rising = stairs;
        let at = rising.further.iter().position(|&(i, _)| i == 7).unwrap();
        rising.further[at].1 = corner_code(3, 8, false);
        let file = file_holding(rising, dir.path());
        let error = file.corners(false).unwrap_err();
        assert!(error.to_string().contains('7'), "{error}");
    }
}
