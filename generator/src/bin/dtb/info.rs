//! `dtb info`: shows the header of one compressed table file and checks its checksums, to
//! inspect a file without the rest of its set (a download, a file a check reported).

use std::path::Path;
use std::process::ExitCode;

use dprobe::format::TableFile;

use crate::error::CliError;

/// A file whose checksums fail is still described, then the command fails.
pub fn info(file: &Path) -> Result<ExitCode, CliError> {
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
    match table.verify() {
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
