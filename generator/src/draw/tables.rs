//! The draw-rule tables of a set as the verifier reads them: fresh results kept once read (every
//! larger table's exits read them), and a signature's families as their staircases.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use dprobe::{
    draw::{DrawState, MaterialShape, PlaneKind, NEVER},
    format::{draw_table_path, DrawFile},
    index::{Signature, TableIndex},
    rules::{Board, MoveRules},
    CorruptedTable, DrawRules, DrawWdl, ProbeError, Wdl,
};

use crate::draw::stairs::Stairs;
use crate::pure::tableset::TableSet;
use crate::Error;

/// A family's name in reports: before the condition counter starts (`pre`) or after (`post`).
pub(super) fn family_name(post: bool) -> &'static str {
    if post {
        "post"
    } else {
        "pre"
    }
}

/// The fresh results of one rule table.
pub(super) struct FreshTable {
    pub(super) index: TableIndex,
    pub(super) codes: Vec<u8>,
}

/// The rule tables of one rule set under one set of draw rules in a directory; their fresh
/// results are read once and kept, since every larger table's exits read them.
pub struct DrawTables {
    pub(super) dir: PathBuf,
    pub(super) rules: MoveRules,
    pub(super) draw: DrawRules,
    pub(super) fresh: Vec<OnceLock<FreshTable>>,
}

impl DrawTables {
    /// The rule tables of `rules` under `draw` in `dir` (nothing is read yet).
    pub fn new(dir: &Path, rules: MoveRules, draw: DrawRules) -> DrawTables {
        DrawTables {
            dir: dir.to_path_buf(),
            rules,
            draw,
            fresh: (0..Signature::SLOTS).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The rule table file of `signature`.
    pub fn path(&self, signature: Signature) -> PathBuf {
        draw_table_path(&self.dir, self.rules.id, &self.draw, signature)
    }

    /// Opens the rule table of `signature` and checks that it is the one expected: this rule
    /// set, these draw rules, this signature.
    ///
    /// # Errors
    ///
    /// [`Error::Missing`] without the file, [`Error::Corrupt`] naming it if it cannot be read
    /// or is another table.
    pub fn open(&self, signature: Signature) -> Result<DrawFile, Error> {
        let path = self.path(signature);
        let file = DrawFile::open(&path).map_err(|e| match e {
            ProbeError::Io { .. } if !path.exists() => Error::Missing {
                signature,
                path: path.clone(),
            },
            ProbeError::Corrupted(c) => corrupt(c),
            e => Error::Corrupt {
                path: path.clone(),
                reason: e.to_string(),
            },
        })?;
        let wrong = |reason: String| Error::Corrupt {
            path: path.clone(),
            reason,
        };
        if file.rules != self.rules.id {
            return Err(wrong(format!(
                "rule table of the {} rules, expected {}",
                file.rules.name(),
                self.rules.id.name()
            )));
        }
        if file.fingerprint != self.draw.fingerprint() || file.preset != self.draw.preset {
            return Err(wrong(format!(
                "built under other draw rules (fingerprint {:016x}, expected {:016x} for {})",
                file.fingerprint,
                self.draw.fingerprint(),
                self.draw.directory_name()
            )));
        }
        if file.signature != signature {
            return Err(wrong(format!(
                "holds the rule table of {}, expected {signature}",
                file.signature
            )));
        }
        Ok(file)
    }

    /// The fresh results of `signature`, read on first use (against its pure results, from
    /// `pure`).
    pub(super) fn fresh(
        &self,
        pure: &TableSet,
        signature: Signature,
    ) -> Result<&FreshTable, Error> {
        let cell = &self.fresh[signature.slot()];
        if let Some(table) = cell.get() {
            return Ok(table);
        }
        let index = TableIndex::new(signature);
        let file = self.open(signature)?;
        let codes = file
            .fresh_results(&pure_results(pure, signature)?)
            .map_err(corrupt)?;
        if codes.len() as u64 != index.size() {
            return Err(Error::Corrupt {
                path: self.path(signature),
                reason: format!("{} fresh results, expected {}", codes.len(), index.size()),
            });
        }
        Ok(cell.get_or_init(|| FreshTable { index, codes }))
    }

    /// The fresh result of `board` for its mover, if its table has been read.
    #[inline]
    pub(super) fn fresh_of(&self, board: &Board) -> Option<Wdl> {
        self.fresh_result_of(board).map(DrawWdl::wdl)
    }

    /// As [`DrawTables::fresh_of`], with the pure result beside it.
    #[inline]
    pub(super) fn fresh_result_of(&self, board: &Board) -> Option<DrawWdl> {
        if board.own() == 0 {
            return Some(DrawWdl::Loss);
        }
        let table = self.fresh[Signature::of(board).slot()].get()?;
        let code = *table.codes.get(table.index.index(board) as usize)?;
        DrawWdl::from_code(code)
    }
}

/// The pure result of every position of `signature`, from the tables of `pure`.
pub fn pure_results(pure: &TableSet, signature: Signature) -> Result<Vec<Wdl>, Error> {
    pure.table(signature)?
        .results()
        .ok_or_else(|| Error::Corrupt {
            path: dprobe::format::raw_table_path(pure.dir(), pure.rules().id, signature),
            reason: "an invalid value".into(),
        })
}

pub(super) fn corrupt(c: CorruptedTable) -> Error {
    Error::Corrupt {
        path: c.path.clone(),
        reason: c.reason.to_string(),
    }
}

/// The planes of one family, as the file's staircases: two bytes a position and six a further
/// corner, where the planes themselves would take a byte a position per layer (up to 61 at 6
/// pieces).
pub(super) struct Rows {
    pub(super) kind: PlaneKind,
    pub(super) planes: usize,
    stairs: Stairs,
}

impl Rows {
    /// The entry of position `index` in plane `plane`.
    #[inline(always)]
    pub(super) fn at(&self, index: usize, plane: usize) -> u8 {
        self.stairs.entry(index, plane)
    }

    /// The corners `(layer, value)` of position `index`: where its value falls.
    #[inline]
    pub(super) fn corners(&self, index: usize) -> impl Iterator<Item = (u16, u8)> + '_ {
        self.stairs.corner_iter(index)
    }

    /// The entry read for budget `a`.
    #[inline(always)]
    pub(super) fn entry(&self, index: usize, a: Option<u16>) -> u8 {
        self.at(index, self.kind.plane_for(a, self.planes))
    }

    /// Whether the pure winner wins in `state`, by the stored entry of position `index`. A
    /// distance family with a budget (the check's virtual one) wins if the distance fits it.
    #[inline(always)]
    pub(super) fn wins(&self, index: usize, state: &DrawState) -> bool {
        let entry = self.entry(index, state.a);
        match (self.kind, state.a) {
            (PlaneKind::Distance, Some(within)) => entry != NEVER && u16::from(entry) <= within,
            (kind, _) => kind.wins(entry, state),
        }
    }
}

/// One signature's pure results and rule planes.
pub(super) struct Side {
    pub(super) signature: Signature,
    pub(super) index: TableIndex,
    pub(super) pure: Vec<Wdl>,
    /// Before the condition counter starts (or the only family), and after.
    pub(super) families: [Option<Rows>; 2],
    /// The file holds no family: it says the rules leave the material as the pure game has it
    /// (no count runs there; the check makes sure no exit is turned).
    pub(super) as_pure: bool,
}

impl Side {
    /// Reads the pure results and rule planes of `signature`; `a_caps`: the largest `A` of
    /// each family on either side of the pair, which bounds the number of layers;
    /// `check_sums`: also check every checksum of the file (blocks read are checked anyway).
    pub(super) fn load(
        pure: &TableSet,
        tables: &DrawTables,
        signature: Signature,
        shape: MaterialShape,
        a_caps: [u16; 2],
        check_sums: bool,
    ) -> Result<Side, Error> {
        let index = TableIndex::new(signature);
        let size = index.size();
        let pure_values = pure_results(pure, signature)?;
        let file = tables.open(signature)?;
        if check_sums {
            file.verify().map_err(corrupt)?;
        }
        let bad = |reason: String| Error::Corrupt {
            path: tables.path(signature),
            reason,
        };
        let mut families = [None, None];
        let as_pure = file.family(false).is_none();
        for (post, slot) in [false, true].into_iter().zip(&mut families) {
            let expected = match (post, shape.condition) {
                (false, _) => Some(PlaneKind::for_budgets(
                    shape.a_full.is_some(),
                    shape.z_full.is_some(),
                )),
                (true, Some(_)) => Some(PlaneKind::for_budgets(true, shape.z_full.is_some())),
                (true, None) => None,
            };
            let found = file.family(post);
            let (kind, planes) = match (found, expected) {
                (None, None) => continue,
                (None, Some(PlaneKind::Distance)) if as_pure => continue,
                (Some((kind, planes)), Some(expected)) if kind == expected => (kind, planes),
                _ => {
                    return Err(bad(format!(
                        "{} family holds {:?}, the material needs {:?}",
                        family_name(post),
                        found.map(|f| f.0),
                        expected
                    )))
                }
            };
            let most = match kind {
                PlaneKind::LayersAz => usize::from(a_caps[usize::from(post)]) + 1,
                _ => 1,
            };
            if planes == 0 || planes > most {
                return Err(bad(format!(
                    "{} family has {planes} planes, expected 1 to {most}",
                    family_name(post)
                )));
            }
            let stairs = Stairs::from_corners(file.corners(post).map_err(corrupt)?);
            if stairs.len() as u64 != size || stairs.layers() != planes {
                return Err(bad(format!(
                    "{} family has {} entries in {} planes",
                    family_name(post),
                    stairs.len(),
                    stairs.layers()
                )));
            }
            *slot = Some(Rows {
                kind,
                planes,
                stairs,
            });
        }
        Ok(Side {
            signature,
            index,
            pure: pure_values,
            families,
            as_pure,
        })
    }

    #[inline(always)]
    pub(super) fn family(&self, post: bool) -> Option<&Rows> {
        self.families[usize::from(post)].as_ref()
    }
}

/// The largest `A` a family's states hold on one side: `a_full` before the condition counter
/// starts, its budget after.
pub(super) fn budget_cap(shape: &MaterialShape, post: bool) -> Option<u16> {
    if post {
        shape.condition.map(|c| c.budget)
    } else {
        shape.a_full
    }
}
