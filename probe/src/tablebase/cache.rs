//! The cache of decompressed blocks shared by every thread probing a [`crate::Tablebase`].
//!
//! It is cut into many shards, each a small set-associative bucket behind its own mutex, chosen
//! by a hash of the key: threads probing different blocks rarely meet on one lock, and there is
//! no global one. Replacement within a shard is CLOCK (second chance). A hit copies nothing and
//! allocates nothing; a miss decompresses outside the lock into a per-thread buffer and then
//! copies into the victim slot, reusing its allocation.

use std::cell::RefCell;
use std::sync::Mutex;

const SHARDS: usize = 128;
/// Key of an empty slot (no table has that many files).
const EMPTY: u64 = u64::MAX;

/// A shard on its own cache lines, so that threads locking neighbouring shards do not slow each
/// other down by sharing a line.
#[repr(align(128))]
struct Padded(Mutex<Shard>);

struct Shard {
    keys: Vec<u64>,
    blocks: Vec<Vec<u8>>,
    referenced: Vec<bool>,
    hand: usize,
}

impl Shard {
    fn find(&mut self, key: u64) -> Option<usize> {
        let slot = self.keys.iter().position(|&k| k == key)?;
        self.referenced[slot] = true;
        Some(slot)
    }

    /// The slot to overwrite: the first not recently used one after the clock hand.
    fn victim(&mut self) -> usize {
        loop {
            let slot = self.hand;
            self.hand = (self.hand + 1) % self.keys.len();
            if self.keys[slot] == EMPTY || !self.referenced[slot] {
                return slot;
            }
            self.referenced[slot] = false;
        }
    }
}

thread_local! {
    /// Where a block is decompressed before it enters the cache.
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Decompressed blocks keyed by (file, block).
pub(crate) struct BlockCache {
    shards: Box<[Padded]>,
}

impl BlockCache {
    /// A cache of about `bytes` bytes of blocks of about `block_bytes` bytes each (at least one
    /// block per shard).
    pub(crate) fn new(bytes: usize, block_bytes: usize) -> BlockCache {
        let ways = (bytes / block_bytes.max(1) / SHARDS).max(1);
        let shards = (0..SHARDS)
            .map(|_| {
                Padded(Mutex::new(Shard {
                    keys: vec![EMPTY; ways],
                    blocks: vec![Vec::new(); ways],
                    referenced: vec![false; ways],
                    hand: 0,
                }))
            })
            .collect();
        BlockCache { shards }
    }

    /// The key of block `block` of file `file`.
    #[inline]
    pub(crate) fn key(file: u32, block: u32) -> u64 {
        u64::from(file) << 32 | u64::from(block)
    }

    #[inline]
    fn shard(&self, key: u64) -> &Mutex<Shard> {
        // Fibonacci hashing spreads consecutive blocks over shards.
        let hash = key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        &self.shards[hash as usize % self.shards.len()].0
    }

    /// Reads from the block `key` with `read`, loading it with `load` first if it is not cached.
    #[inline]
    pub(crate) fn with_block<R, E>(
        &self,
        key: u64,
        load: impl FnOnce(&mut Vec<u8>) -> Result<(), E>,
        read: impl Fn(&[u8]) -> R,
    ) -> Result<R, E> {
        let shard = self.shard(key);
        {
            let mut guard = shard.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(slot) = guard.find(key) {
                return Ok(read(&guard.blocks[slot]));
            }
        }
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            load(&mut scratch)?;
            let mut guard = shard.lock().unwrap_or_else(|e| e.into_inner());
            // Another thread may have loaded it meanwhile: keep one copy.
            let slot = match guard.find(key) {
                Some(slot) => slot,
                None => {
                    let slot = guard.victim();
                    guard.keys[slot] = key;
                    guard.referenced[slot] = true;
                    let block = &mut guard.blocks[slot];
                    block.clear();
                    block.extend_from_slice(&scratch);
                    slot
                }
            };
            Ok(read(&guard.blocks[slot]))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_once_and_evicts_when_full() {
        let cache = BlockCache::new(0, 1);
        let loads = std::cell::Cell::new(0);
        let load = |out: &mut Vec<u8>| -> Result<(), ()> {
            loads.set(loads.get() + 1);
            out.clear();
            out.extend_from_slice(&[7, 8, 9]);
            Ok(())
        };
        let key = BlockCache::key(1, 2);
        assert_eq!(cache.with_block(key, load, |b| b[1]), Ok(8));
        assert_eq!(cache.with_block(key, load, |b| b[2]), Ok(9));
        assert_eq!(loads.get(), 1);
        // One slot per shard: a key that lands in the same shard evicts it.
        let same_shard = (0..100_000u32)
            .map(|b| BlockCache::key(9, b))
            .find(|&k| std::ptr::eq(cache.shard(k), cache.shard(key)))
            .unwrap();
        cache.with_block(same_shard, load, |_| ()).unwrap();
        cache.with_block(key, load, |_| ()).unwrap();
        assert_eq!(loads.get(), 3);
        assert_eq!(
            cache.with_block(BlockCache::key(3, 3), |_| Err("bad"), |_| ()),
            Err("bad")
        );
    }
}
