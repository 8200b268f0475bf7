//! Checks every checksum of every table file of the handle's folder.

use std::ffi::c_int;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use dprobe::format::{
    draw_dir, parse_draw_table_name, parse_table_name, rule_set_dir, DrawFile, TableFile,
};
use dprobe::{CorruptedTable, Corruption, ProbeError};

use crate::error::{guard, set_last_error, Failure, DPROBE_ERR_MISSING_TABLE};
use crate::{handle, Handle};

/// Checks every table file of the variant's rule set in the folder given to
/// [`crate::dprobe_open`] (`.wdl`, `.dtw`, and the rule tables of its draw rules): the header,
/// the whole-file checksum, every block's checksum and every stored value. Returns the number
/// of damaged files (0: all intact; otherwise this thread's message names the first), or a
/// negative code. Reads every file whole: minutes for large tables.
///
/// # Safety
///
/// `tb` is NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn dprobe_verify(tb: *const Handle) -> c_int {
    guard(|| {
        // SAFETY: as the caller promises.
        let tb = unsafe { handle(tb) }?;
        verify(tb)
    })
}

fn verify(tb: &Handle) -> Result<c_int, Failure> {
    let variant = tb.tables.variant();
    let rules = variant.moves.id;
    let mut checked = 0usize;
    let mut problems = Vec::new();
    for dir in [rule_set_dir(&tb.dir, rules), tb.dir.clone()] {
        if !dir.is_dir() {
            continue;
        }
        for path in files(&dir)? {
            let Some((signature, kind)) = parse_table_name(&path) else {
                continue;
            };
            checked += 1;
            let check = TableFile::open(&path).and_then(|file| {
                let header = file.header();
                let foreign = if header.kind != kind {
                    Some(Corruption::ForeignKind {
                        found: header.kind,
                        expected: kind,
                    })
                } else if header.rules != rules {
                    Some(Corruption::ForeignRuleSet {
                        found: header.rules.name(),
                        expected: rules.name(),
                    })
                } else if header.signature != signature {
                    Some(Corruption::ForeignSignature {
                        found: header.signature,
                        expected: signature,
                    })
                } else {
                    None
                };
                match foreign {
                    Some(reason) => Err(corrupt(&path, reason)),
                    None => Ok(file.verify()?),
                }
            });
            if let Err(problem) = check {
                problems.push(problem);
            }
        }
    }
    let rule_dir = draw_dir(&tb.dir, rules, tb.tables.draw_rules());
    if rule_dir.is_dir() {
        for path in files(&rule_dir)? {
            let Some(signature) = parse_draw_table_name(&path) else {
                continue;
            };
            checked += 1;
            let check = DrawFile::open(&path).and_then(|file| {
                if file.signature != signature {
                    return Err(corrupt(
                        &path,
                        Corruption::ForeignSignature {
                            found: file.signature,
                            expected: signature,
                        },
                    ));
                }
                if file.rules != rules {
                    return Err(corrupt(
                        &path,
                        Corruption::ForeignRuleSet {
                            found: file.rules.name(),
                            expected: rules.name(),
                        },
                    ));
                }
                Ok(file.verify()?)
            });
            if let Err(problem) = check {
                problems.push(problem);
            }
        }
    }
    if checked == 0 {
        return Err(Failure::new(
            DPROBE_ERR_MISSING_TABLE,
            format!(
                "no {} table files left in {}",
                rules.name(),
                tb.dir.display()
            ),
        ));
    }
    if let Some(first) = problems.first() {
        set_last_error(&format!(
            "{} of {checked} table files damaged; the first: {first}",
            problems.len()
        ));
    }
    Ok(problems.len() as c_int)
}

fn corrupt(path: &Path, reason: Corruption) -> ProbeError {
    ProbeError::Corrupted(CorruptedTable {
        path: path.to_path_buf(),
        reason,
    })
}

/// The files of a folder, sorted.
fn files(dir: &Path) -> Result<Vec<PathBuf>, Failure> {
    let entries = fs::read_dir(dir).map_err(|source| ProbeError::Io {
        path: dir.to_path_buf(),
        source: Arc::new(source),
    })?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.is_file())
        .collect();
    paths.sort();
    Ok(paths)
}
