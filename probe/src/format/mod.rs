//! The table file formats (`docs/FORMAT.md`), owned here for reader and writer alike: magic
//! numbers, versions, header layouts, the symbols stored per position, and file names.
//!
//! - [`table`]: the compressed `.wdl` and `.dtw` files of the pure game values.
//! - [`draw`]: the `.rules` files of values under counted draw rules, whose sections are
//!   compressed tables of [`table`]'s format.
//!
//! A build keeps its files in one folder per move-rule set (`<dir>/russian/KKMvK.wdl`) and the
//! draw-rule tables in a folder per set of draw rules inside it
//! (`<dir>/russian/fmjd64/KKMvK.rules`); [`table_path`] and [`draw_table_path`] name them.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::draw::DrawRules;
use crate::index::Signature;
use crate::rules::RuleSetId;
use crate::value::{Value, Wdl};

pub mod draw;
pub mod table;

pub use draw::{AloneImplied, DrawFile, FamilyCorners, SectionRole};
pub use table::{TableFile, TableHeader};

/// The most pieces a table file may claim: beyond it the index arithmetic is not needed and
/// not checked for overflow.
pub const MAX_TABLE_PIECES: u32 = 10;

/// The two kinds of table file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TableKind {
    /// Win, draw or loss of every position (`.wdl`): small, probed during search.
    Wdl,
    /// Distance to the end of the game of every position (`.dtw`): larger, used at the root.
    Dtw,
}

impl TableKind {
    /// The file name extension (`wdl` or `dtw`).
    pub const fn extension(self) -> &'static str {
        match self {
            TableKind::Wdl => "wdl",
            TableKind::Dtw => "dtw",
        }
    }

    /// The kind's code in a file header.
    pub const fn code(self) -> u8 {
        match self {
            TableKind::Wdl => 1,
            TableKind::Dtw => 2,
        }
    }

    /// The kind of a header code.
    pub const fn from_code(code: u8) -> Option<TableKind> {
        match code {
            1 => Some(TableKind::Wdl),
            2 => Some(TableKind::Dtw),
            _ => None,
        }
    }

    /// The symbol stored for `value` in a file of this kind: the WDL code (0 loss, 1 draw,
    /// 2 win) or the DTW code (distance + 1, whose parity tells a win from a loss; 0 for a
    /// draw). `None` if the distance does not fit.
    pub fn symbol(self, value: Value) -> Option<u16> {
        Some(match (self, value) {
            (TableKind::Wdl, Value::Loss(_)) => 0,
            (TableKind::Wdl, Value::Draw) => 1,
            (TableKind::Wdl, Value::Win(_)) => 2,
            (TableKind::Dtw, Value::Draw) => 0,
            (TableKind::Dtw, Value::Win(d) | Value::Loss(d)) => d.checked_add(1)?,
        })
    }

    /// The win/draw/loss a symbol of this kind stands for; `None` for an invalid WDL symbol.
    #[inline]
    pub fn wdl_of(self, symbol: u16) -> Option<Wdl> {
        match self {
            TableKind::Wdl => match symbol {
                0 => Some(Wdl::Loss),
                1 => Some(Wdl::Draw),
                2 => Some(Wdl::Win),
                _ => None,
            },
            TableKind::Dtw => Some(dtw_value(symbol).wdl()),
        }
    }
}

/// The value a DTW symbol stands for: 0 a draw, else the distance + 1, a win when odd.
#[inline]
pub fn dtw_value(symbol: u16) -> Value {
    match symbol {
        0 => Value::Draw,
        s if (s - 1) % 2 == 1 => Value::Win(s - 1),
        s => Value::Loss(s - 1),
    }
}

impl fmt::Display for TableKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.extension())
    }
}

/// The extension of draw-rule table files.
pub const DRAW_EXTENSION: &str = "rules";

/// The folder of a move-rule set's tables in a build folder `dir`.
pub fn rule_set_dir(dir: &Path, rules: RuleSetId) -> PathBuf {
    dir.join(rules.name())
}

/// The folder of the draw-rule tables under `draw` in a build folder `dir`.
pub fn draw_dir(dir: &Path, rules: RuleSetId, draw: &DrawRules) -> PathBuf {
    rule_set_dir(dir, rules).join(draw.directory_name())
}

/// The `.wdl` or `.dtw` file of one table in a build folder `dir`.
pub fn table_path(dir: &Path, rules: RuleSetId, signature: Signature, kind: TableKind) -> PathBuf {
    rule_set_dir(dir, rules).join(format!("{signature}.{}", kind.extension()))
}

/// The draw-rule table file of one signature under `draw` in a build folder `dir`.
pub fn draw_table_path(
    dir: &Path,
    rules: RuleSetId,
    draw: &DrawRules,
    signature: Signature,
) -> PathBuf {
    draw_dir(dir, rules, draw).join(format!("{signature}.{DRAW_EXTENSION}"))
}

/// The extension of the generator's raw working files: one packed value per position, the
/// input of the writer and of the solver's later pairs (not read by the probe).
pub const RAW_EXTENSION: &str = "dtr";

/// The raw working file of one table in a build folder `dir` (see [`RAW_EXTENSION`]).
pub fn raw_table_path(dir: &Path, rules: RuleSetId, signature: Signature) -> PathBuf {
    rule_set_dir(dir, rules).join(format!("{signature}.{RAW_EXTENSION}"))
}

/// The signature and kind a file name such as `KKMvK.wdl` stands for.
pub fn parse_table_name(path: &Path) -> Option<(Signature, TableKind)> {
    let kind = match path.extension()?.to_str()? {
        "wdl" => TableKind::Wdl,
        "dtw" => TableKind::Dtw,
        _ => return None,
    };
    Some((signature_of_stem(path)?, kind))
}

/// The signature a draw-rule table file name such as `KKKvK.rules` stands for.
pub fn parse_draw_table_name(path: &Path) -> Option<Signature> {
    if path.extension()?.to_str()? != DRAW_EXTENSION {
        return None;
    }
    signature_of_stem(path)
}

fn signature_of_stem(path: &Path) -> Option<Signature> {
    let signature: Signature = path.file_stem()?.to_str()?.parse().ok()?;
    (signature.pieces() <= MAX_TABLE_PIECES).then_some(signature)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtw_symbols_keep_parity() {
        assert_eq!(dtw_value(0), Value::Draw);
        assert_eq!(dtw_value(1), Value::Loss(0));
        assert_eq!(dtw_value(2), Value::Win(1));
        assert_eq!(dtw_value(u16::MAX), Value::Loss(u16::MAX - 1));
    }
}
