//! `dtb info`: shows the header of one compressed table file (`.wdl`, `.dtw` or a rule table's
//! `.rules`) and checks its checksums, to inspect a file without the rest of its set (a
//! download, a file a check reported).

use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

use dprobe::draw::{Interpretation, PlaneKind};
use dprobe::format::draw::MAGIC as RULES_MAGIC;
use dprobe::format::{AloneImplied, DrawFile, SectionRole, TableFile};
use dprobe::{DrawRules, ProbeError};

use crate::error::CliError;

/// A file whose checksums fail is still described, then the command fails.
pub fn info(file: &Path) -> Result<ExitCode, CliError> {
    if starts_with(file, RULES_MAGIC) {
        return rules_info(file);
    }
    let table = TableFile::open(file)?;
    let h = table.header();
    out!("file               {}", file.display());
    out!("format version     {}", h.version);
    out!("kind               {}", h.kind);
    out!("rule set           {}", h.rules.name());
    out!(
        "signature          {} ({} pieces)",
        h.signature,
        h.signature.pieces()
    );
    out!("positions          {}", h.positions);
    out!("positions/block    {}", h.positions_per_block);
    out!("blocks             {}", h.blocks);
    out!("codec              zstd");
    out!(
        "encoding           {}",
        match h.dtw_width {
            0 => "2 bits per position (0 loss, 1 draw, 2 win)".to_string(),
            _ if h.symbol_table > 0 => format!(
                "1 byte per position, a place in a symbol table of {}",
                h.symbol_table
            ),
            w if h.version == 1 => format!("{w} byte(s) per position (0 draw, else distance + 1)"),
            w => format!(
                "{w} byte(s) per position (distance + 1; draws are read from the .wdl file)"
            ),
        }
    );
    out!("largest symbol     {}", h.max_symbol);
    out!("file size          {} bytes", h.file_len);
    out!(
        "bits per position  {:.4}",
        h.file_len as f64 * 8.0 / h.positions.max(1) as f64
    );
    checksums(table.verify())
}

/// Describes a rule table file: its rules, its families and the size of each section.
fn rules_info(file: &Path) -> Result<ExitCode, CliError> {
    let rules = DrawFile::open(file)?;
    let positions = rules.sections()[0].1.header().positions;
    let file_len = std::fs::metadata(file)
        .map_err(|source| ProbeError::Io {
            path: file.to_path_buf(),
            source: source.into(),
        })?
        .len();
    // The counters' names, where the file was built under the rules as RULES.md reads them.
    let default = DrawRules::new(rules.preset, Interpretation::default());
    let reading_known = default.fingerprint() == rules.fingerprint;
    let bits = |bytes: u64| bytes as f64 * 8.0 / positions.max(1) as f64;
    let alone_name = |k: u16| match default.counters.get(usize::from(k)) {
        Some(counter) if reading_known => format!("{} alone", counter.id),
        _ => format!("counter {k} alone"),
    };
    out!("file               {}", file.display());
    out!("format version     {}", rules.version);
    out!("kind               draw-rule table");
    out!("rule set           {}", rules.rules.name());
    out!(
        "draw rules         {} ({}; fingerprint {:016x})",
        rules.preset.name(),
        if reading_known {
            "as RULES.md reads them"
        } else {
            "under another reading (--rule-setting)"
        },
        rules.fingerprint
    );
    out!(
        "signature          {} ({} pieces)",
        rules.signature,
        rules.signature.pieces()
    );
    out!("positions          {positions}");
    if rules.family(false).is_none() {
        out!("family             none: the rules leave the material as the pure game has it");
    }
    for post in [false, true] {
        if let Some((kind, layers)) = rules.family(post) {
            out!(
                "{:<19}{}{}",
                if post { "family post" } else { "family pre" },
                kind_name(kind),
                if kind == PlaneKind::LayersAz {
                    format!(", {layers} layers of A")
                } else {
                    String::new()
                }
            );
        }
    }
    out!("sections           bytes, bits per position");
    for (role, section) in rules.sections() {
        let what = match role {
            SectionRole::Fresh => "fresh results".to_string(),
            SectionRole::Pre(f) | SectionRole::Post(f) => {
                let family = if matches!(role, SectionRole::Post(_)) {
                    "post"
                } else {
                    "pre"
                };
                if f.kind == PlaneKind::LayersAz {
                    format!("{family}, corner {}", f.rank + 1)
                } else {
                    format!("{family}, {}", kind_name(f.kind))
                }
            }
            SectionRole::Alone(k) | SectionRole::AloneImplied(k, _) => alone_name(k),
        };
        let header = section.header();
        let what = match header.symbol_table {
            0 => what,
            n => format!("{what} ({n} in table)"),
        };
        let bytes = header.file_len;
        out!("  {what:<30} {bytes:>12} {:>8.4}", bits(bytes));
    }
    for (k, implied) in rules.alone_implied() {
        let what = match implied {
            AloneImplied::NoneTurned => "turns nothing",
            AloneImplied::AsUnderAll => "turns what all turn",
        };
        out!("  {:<30} {:>12}", alone_name(k), what);
    }
    out!("file size          {file_len} bytes");
    out!("bits per position  {:.4}", bits(file_len));
    checksums(rules.verify())
}

fn kind_name(kind: PlaneKind) -> &'static str {
    match kind {
        PlaneKind::LayersAz => "least Z per layer of A",
        PlaneKind::ThresholdA => "least A",
        PlaneKind::ThresholdZ => "least Z",
        PlaneKind::Distance => "distance",
    }
}

/// Whether `file` starts with `magic`; `false` for a file that cannot be read or is shorter
/// (opening it as a table then reports what is wrong, with its path).
fn starts_with(file: &Path, magic: &[u8]) -> bool {
    let mut start = vec![0u8; magic.len()];
    std::fs::File::open(file)
        .and_then(|mut f| f.read_exact(&mut start))
        .is_ok_and(|()| start == magic)
}

fn checksums(result: Result<(), dprobe::CorruptedTable>) -> Result<ExitCode, CliError> {
    match result {
        Ok(()) => {
            out!("checksums          ok");
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            out!("checksums          FAILED: {}", e.reason);
            Ok(ExitCode::FAILURE)
        }
    }
}
