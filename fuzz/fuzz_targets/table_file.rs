//! Feeds arbitrary bytes to the table file reader: opening, reading every block and verifying
//! must return a typed error or succeed, never panic or read out of bounds.
//!
//! Each input is tried twice: as it is (exercising the checks up to the first checksum), and
//! "resealed" with its header, block table and block checksums recomputed, so that mutations
//! also reach the header fields, the offsets and the decompressor behind the checksums.
#![no_main]

use dprobe::format::TableFile;
use libfuzzer_sys::fuzz_target;
use xxhash_rust::xxh3::xxh3_64;

/// Recomputes the checksums (blocks, block table, header, whole file) of a (possibly damaged) table file in place, as far as its block
/// count and offsets allow.
fn reseal(bytes: &mut [u8]) {
    if bytes.len() < 64 {
        return;
    }
    let blocks = u32::from_le_bytes(bytes[28..32].try_into().unwrap()) as usize;
    let Some(table_end) = blocks.checked_mul(16).and_then(|n| n.checked_add(64)) else {
        return;
    };
    if table_end <= bytes.len() {
        let mut start = 0u64;
        for block in 0..blocks {
            let entry = 64 + 16 * block;
            let end = u64::from_le_bytes(bytes[entry..entry + 8].try_into().unwrap());
            let range = start.checked_add(table_end as u64).zip(end.checked_add(table_end as u64));
            if let Some((from, to)) = range {
                if from <= to && to <= bytes.len() as u64 {
                    let sum = xxh3_64(&bytes[from as usize..to as usize]);
                    bytes[entry + 8..entry + 16].copy_from_slice(&sum.to_le_bytes());
                }
            }
            start = end;
        }
        let sum = xxh3_64(&bytes[64..table_end]);
        bytes[48..56].copy_from_slice(&sum.to_le_bytes());
    }
    let sum = xxh3_64(&bytes[..56]);
    bytes[56..64].copy_from_slice(&sum.to_le_bytes());
    let body = bytes.len() - 8;
    if body >= 64 {
        let sum = xxh3_64(&bytes[..body]);
        bytes[body..].copy_from_slice(&sum.to_le_bytes());
    }
}

fn exercise(bytes: Vec<u8>) {
    if let Ok(file) = TableFile::from_bytes("fuzz.wdl", bytes) {
        let _ = file.header();
        let _ = file.verify();
    }
}

fuzz_target!(|data: &[u8]| {
    exercise(data.to_vec());
    let mut resealed = data.to_vec();
    reseal(&mut resealed);
    exercise(resealed);
});
