//! The cache of decompressed blocks shared by every thread probing a [`crate::Tablebase`].
//!
//! It holds pages of [`PAGE_BYTES`] bytes (a block of the default layout is one page, a larger
//! block several), keyed by a `u64` the tablebase makes of the file and the page's place in it.
//!
//! **Reads take no lock and write nothing shared.** The cache is set-associative: a key may live
//! in either of two sets (two hashes of the key, "two choices", so that the cache fills evenly)
//! of [`WAYS`] slots each. A slot is guarded by a sequence lock made of atomics only: its writer
//! makes the sequence number odd, writes the key, the length and the page's words, and makes it
//! even again; a reader reads the sequence number, the key and the one word it needs, and then
//! the sequence number again, and uses the word only if the key is its own and the number did not
//! change (and is even). Every shared byte is an atomic (the words are `AtomicU64`, read and
//! written with relaxed loads and stores, which compile to plain moves), so a read that overlaps a
//! write is not a data race: it reads a stale or mixed word, sees that the sequence number
//! changed, and counts as a miss. There is no `unsafe` code. The ordering is the seqlock pattern
//! of H.-J. Boehm, "Can seqlocks get along with programming language memory models?" (2012):
//!
//! - writer: `seq = s + 1` (relaxed); release fence; data stores (relaxed); `seq = s + 2`
//!   (release);
//! - reader: `s1 = seq` (acquire); data loads (relaxed); acquire fence; `s2 = seq` (relaxed); the
//!   data is whole if `s1 == s2` and `s1` is even.
//!
//! If a data load read a value stored in a write section, the writer's release fence
//! synchronizes with the reader's acquire fence, so the store `seq = s + 1` happens before the
//! load of `s2`, which then differs from `s1`. If `s1` read the `seq = s + 2` that ended a write,
//! the acquire load makes every store of that write visible to the data loads. The sequence
//! numbers are 64 bits wide: they never wrap.
//!
//! A counting filter beside the sets (four one-byte counts per page, each slot within one first
//! set) tells most misses apart before the sets are read: a key whose count is zero is not
//! cached. Writers raise a count before they store a page and lower it after they evict one, so
//! it is never below the pages held.
//!
//! A reader also sets the slot's "recently used" bit, but only when it is clear, so a warm
//! probe writes no shared cache line. Writers (a miss, after decompressing the block outside any
//! lock into a per-thread buffer) take the mutex of the set they write, never a global one; the
//! victim is an empty slot of either set, else the first slot not recently used after the set's
//! clock hand (CLOCK, second chance). A page's memory is allocated the first time its slot is
//! filled and reused afterwards, so an idle cache costs little and a warm one allocates nothing.

use std::cell::RefCell;
use std::sync::atomic::{fence, AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::{Mutex, OnceLock};

/// Bytes of one page, the unit the cache stores (a block of the writer's default layout: 32 768
/// WDL or 8 192 one-byte DTW positions).
pub(crate) const PAGE_BYTES: usize = 8 << 10;
/// Words of one page.
const PAGE_WORDS: usize = PAGE_BYTES / 8;
/// Slots per set: their keys fill one cache line.
const WAYS: usize = 8;
/// Key of an empty slot (the tablebase never makes it).
pub(crate) const EMPTY: u64 = u64::MAX;

/// The keys of a set's slots, on one cache line (what a lookup scans).
#[repr(align(64))]
struct Keys([AtomicU64; WAYS]);

/// The sequence numbers of a set's slots, on one cache line.
#[repr(align(64))]
struct Seqs([AtomicU64; WAYS]);

/// The rest of what a reader reads, and what only writers write.
#[repr(align(64))]
struct Meta {
    /// Bytes held by each slot's page (written in the slot's write section).
    lens: [AtomicU32; WAYS],
    /// Bit `way`: the slot was read since the clock hand last passed it.
    referenced: AtomicU8,
    /// Held by a writer of this set; holds the clock hand.
    writer: Mutex<usize>,
}

struct Set {
    keys: Keys,
    seqs: Seqs,
    meta: Meta,
    pages: [OnceLock<Box<[AtomicU64]>>; WAYS],
}

impl Set {
    fn new() -> Set {
        Set {
            keys: Keys(std::array::from_fn(|_| AtomicU64::new(EMPTY))),
            seqs: Seqs(std::array::from_fn(|_| AtomicU64::new(0))),
            meta: Meta {
                lens: std::array::from_fn(|_| AtomicU32::new(0)),
                referenced: AtomicU8::new(0),
                writer: Mutex::new(0),
            },
            pages: std::array::from_fn(|_| OnceLock::new()),
        }
    }

    /// Word `word` of the page `key` and the page's length in bytes, if this set holds it.
    #[inline(always)]
    fn read(&self, key: u64, word: usize) -> Option<(u64, u32)> {
        let way = self
            .keys
            .0
            .iter()
            .position(|k| k.load(Ordering::Relaxed) == key)?;
        let seq = &self.seqs.0[way];
        let before = seq.load(Ordering::Acquire);
        if before & 1 == 1 {
            // Being written: the caller loads the block itself.
            return None;
        }
        let value = self.pages[way].get()?.get(word)?.load(Ordering::Relaxed);
        let len = self.meta.lens[way].load(Ordering::Relaxed);
        let still = self.keys.0[way].load(Ordering::Relaxed);
        fence(Ordering::Acquire);
        if seq.load(Ordering::Relaxed) != before || still != key {
            return None;
        }
        let bit = 1u8 << way;
        if self.meta.referenced.load(Ordering::Relaxed) & bit == 0 {
            self.meta.referenced.fetch_or(bit, Ordering::Relaxed);
        }
        Some((value, len))
    }

    /// Whether the set holds `key` (exact only under the set's writer lock).
    fn holds(&self, key: u64) -> bool {
        self.keys.0.iter().any(|k| k.load(Ordering::Relaxed) == key)
    }

    /// Empty slots (under the set's writer lock).
    fn empty_ways(&self) -> usize {
        self.keys
            .0
            .iter()
            .filter(|k| k.load(Ordering::Relaxed) == EMPTY)
            .count()
    }

    /// An empty slot (under the set's writer lock).
    fn empty_way(&self) -> Option<usize> {
        self.keys
            .0
            .iter()
            .position(|k| k.load(Ordering::Relaxed) == EMPTY)
    }

    /// The slot to overwrite: the first not recently used one after the clock hand (under the
    /// set's writer lock, which holds the hand).
    fn victim(&self, hand: &mut usize) -> usize {
        // Two turns at most: readers setting bits again meanwhile cannot hold the writer up.
        for _ in 0..2 * WAYS {
            let way = *hand;
            *hand = (*hand + 1) % WAYS;
            let bit = 1u8 << way;
            if self.meta.referenced.fetch_and(!bit, Ordering::Relaxed) & bit == 0 {
                return way;
            }
        }
        *hand
    }

    /// Writes `bytes` (at most a page) as the page `key` into slot `way` (under the set's writer
    /// lock: one writer per slot at a time).
    fn write(&self, way: usize, key: u64, bytes: &[u8]) {
        debug_assert!(bytes.len() <= PAGE_BYTES);
        let mut fresh = false;
        let page = self.pages[way].get_or_init(|| {
            // The slot's first page is built from the bytes (no reader can match its key yet,
            // which is still the empty one): no second pass over the words.
            fresh = true;
            let mut page = Vec::with_capacity(PAGE_WORDS);
            page.extend(words(bytes).map(AtomicU64::new));
            page.resize_with(PAGE_WORDS, || AtomicU64::new(0));
            page.into_boxed_slice()
        });
        let seq = &self.seqs.0[way];
        let s = seq.load(Ordering::Relaxed);
        seq.store(s + 1, Ordering::Relaxed);
        fence(Ordering::Release);
        self.keys.0[way].store(key, Ordering::Relaxed);
        self.meta.lens[way].store(bytes.len() as u32, Ordering::Relaxed);
        if !fresh {
            for (slot, word) in page.iter().zip(words(bytes)) {
                slot.store(word, Ordering::Relaxed);
            }
        }
        seq.store(s + 2, Ordering::Release);
        self.meta.referenced.fetch_or(1u8 << way, Ordering::Relaxed);
    }
}

/// The little-endian words of `bytes`, the last one padded with zeros.
#[inline]
fn words(bytes: &[u8]) -> impl Iterator<Item = u64> + '_ {
    let whole = bytes.chunks_exact(8);
    let tail = whole.remainder();
    let last = (!tail.is_empty()).then(|| {
        let mut word = [0u8; 8];
        word[..tail.len()].copy_from_slice(tail);
        u64::from_le_bytes(word)
    });
    whole
        .map(|chunk| u64::from_le_bytes(chunk.try_into().unwrap_or_default()))
        .chain(last)
}

thread_local! {
    /// Where a block is decompressed before it enters the cache.
    static SCRATCH: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with this thread's decompression buffer (not to be called again from `f`).
pub(crate) fn with_scratch<R>(f: impl FnOnce(&mut Vec<u8>) -> R) -> R {
    SCRATCH.with(|scratch| f(&mut scratch.borrow_mut()))
}

/// What [`BlockCache::insert`] did.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Insertion {
    /// The page was there already (another thread stored it meanwhile).
    AlreadyHeld,
    /// Stored in an empty slot.
    Added,
    /// Stored in place of the page with this key.
    Replaced(u64),
}

/// Decompressed pages keyed by `u64` (see the module's documentation).
pub(crate) struct BlockCache {
    sets: Box<[Set]>,
    /// A counting filter: per slot, at least the number of cached pages whose key hashes to it
    /// (raised before a page is stored, lowered after one is evicted; stuck at `u8::MAX` once
    /// it gets there). A reader finding zero knows the page is absent without scanning its two
    /// sets: a miss costs one byte's load.
    present: Box<[AtomicU8]>,
}

/// Filter slots per page of the cache: few pages share a slot, so a zero is the rule for a
/// page that is not cached.
const FILTER_SLOTS_PER_PAGE: usize = 4;

impl BlockCache {
    /// A cache of `bytes / PAGE_BYTES` pages (at least one set of [`WAYS`]).
    pub(crate) fn new(bytes: usize) -> BlockCache {
        let sets = (bytes / PAGE_BYTES / WAYS).max(1);
        BlockCache {
            sets: (0..sets).map(|_| Set::new()).collect(),
            present: (0..sets * WAYS * FILTER_SLOTS_PER_PAGE)
                .map(|_| AtomicU8::new(0))
                .collect(),
        }
    }

    /// The pages it can hold.
    pub(crate) fn capacity(&self) -> usize {
        self.sets.len() * WAYS
    }

    /// The two sets a key may live in (the same one if there is only one), and its slot of
    /// the filter (within the first set's share of it).
    #[inline]
    fn sets_of(&self, key: u64) -> (usize, usize, usize) {
        // A fold and a multiply: the file id (the high half) reaches both halves.
        let h = (key ^ (key >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let n = self.sets.len() as u64;
        let slots = self.present.len() as u64;
        (
            (((h >> 32) * n) >> 32) as usize,
            (((h & 0xFFFF_FFFF) * n) >> 32) as usize,
            (((h >> 32) * slots) >> 32) as usize,
        )
    }

    /// Word `word` (below `PAGE_BYTES / 8`) of the cached page `key` and the page's length in
    /// bytes, or `None` if it is not cached (or being overwritten just now). Takes no lock,
    /// allocates nothing and writes nothing shared, except the "recently used" bit when it is
    /// clear.
    #[inline(always)]
    pub(crate) fn get(&self, key: u64, word: usize) -> Option<(u64, u32)> {
        let (a, b, slot) = self.sets_of(key);
        if self.present[slot].load(Ordering::Relaxed) == 0 {
            return None;
        }
        self.sets[a]
            .read(key, word)
            .or_else(|| self.sets[b].read(key, word))
    }

    /// Whether page `key` is cached.
    pub(crate) fn contains(&self, key: u64) -> bool {
        self.get(key, 0).is_some()
    }

    /// Raises (a page stored) or lowers (one evicted) the filter's count of `slot`, which sticks
    /// at its largest value. Atomic: writers of other sets may share the slot. A page is
    /// counted and uncounted under its sets' writer locks, so its own two changes keep their
    /// order.
    fn count(&self, slot: usize, stored: bool) {
        let _ = self.present[slot].fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| {
            (c != u8::MAX).then(|| if stored { c + 1 } else { c - 1 })
        });
    }

    /// Stores `bytes` (at most [`PAGE_BYTES`]) as page `key`, replacing a page not recently used
    /// if both of its sets are full.
    pub(crate) fn insert(&self, key: u64, bytes: &[u8]) -> Insertion {
        debug_assert_ne!(key, EMPTY);
        let (a, b, slot) = self.sets_of(key);
        let (first, second) = (a.min(b), a.max(b));
        let lock = |set: usize| {
            self.sets[set]
                .meta
                .writer
                .lock()
                .unwrap_or_else(|e| e.into_inner())
        };
        // Both sets locked, in index order (no deadlock): the choice sees both as they are.
        let mut hand_first = lock(first);
        let mut hand_second = (second != first).then(|| lock(second));
        let (set_a, set_b) = (&self.sets[a], &self.sets[b]);
        if set_a.holds(key) || set_b.holds(key) {
            // Another thread loaded it meanwhile: keep one copy.
            return Insertion::AlreadyHeld;
        }
        // Into the emptier set ("two choices": the sets fill evenly); if it has no empty slot,
        // neither has the other.
        let emptier = if set_b.empty_ways() > set_a.empty_ways() {
            set_b
        } else {
            set_a
        };
        self.count(slot, true);
        if let Some(way) = emptier.empty_way() {
            emptier.write(way, key, bytes);
            return Insertion::Added;
        }
        // Both full: evict from the set with fewer pages read lately.
        let used = |set: &Set| set.meta.referenced.load(Ordering::Relaxed).count_ones();
        let target = if used(set_b) < used(set_a) { b } else { a };
        let hand = match &mut hand_second {
            Some(hand) if target == second => &mut **hand,
            _ => &mut *hand_first,
        };
        let set = &self.sets[target];
        let way = set.victim(hand);
        let evicted = set.keys.0[way].load(Ordering::Relaxed);
        set.write(way, key, bytes);
        // Still under the lock of the evicted page's set: no writer stores it again before it
        // is uncounted.
        self.count(self.sets_of(evicted).2, false);
        Insertion::Replaced(evicted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(seed: u8, len: usize) -> Vec<u8> {
        (0..len).map(|i| seed.wrapping_add(i as u8)).collect()
    }

    fn word_of(bytes: &[u8], word: usize) -> u64 {
        let mut out = [0u8; 8];
        let chunk = &bytes[word * 8..(word * 8 + 8).min(bytes.len())];
        out[..chunk.len()].copy_from_slice(chunk);
        u64::from_le_bytes(out)
    }

    #[test]
    fn stores_reads_and_evicts() {
        let cache = BlockCache::new(0);
        assert_eq!(cache.capacity(), WAYS);
        assert_eq!(cache.get(7, 0), None);
        let bytes = page(3, 100);
        assert_eq!(cache.insert(7, &bytes), Insertion::Added);
        assert_eq!(cache.get(7, 1), Some((word_of(&bytes, 1), 100)));
        assert_eq!(cache.get(7, 12), Some((word_of(&bytes, 12), 100)));
        // Past the bytes: the page's zero padding, and its length tells the caller.
        assert_eq!(cache.get(7, 100), Some((0, 100)));
        // A second insertion of the same key changes nothing.
        assert_eq!(cache.insert(7, &page(9, 10)), Insertion::AlreadyHeld);
        assert_eq!(cache.get(7, 0), Some((word_of(&bytes, 0), 100)));
        // One set: the ninth page evicts one, says which, and every page left reads back whole.
        let mut evicted = Vec::new();
        for key in 100..100 + WAYS as u64 {
            match cache.insert(key, &page(key as u8, PAGE_BYTES)) {
                Insertion::Added => {}
                Insertion::Replaced(old) => evicted.push(old),
                Insertion::AlreadyHeld => panic!("page {key} was never stored"),
            }
        }
        assert_eq!(evicted.len(), 1);
        assert!(!cache.contains(evicted[0]));
        let held: Vec<u64> = (100..100 + WAYS as u64)
            .chain([7])
            .filter(|&k| cache.contains(k))
            .collect();
        assert_eq!(held.len(), WAYS);
        for key in held.into_iter().filter(|&k| k != 7) {
            let bytes = page(key as u8, PAGE_BYTES);
            assert_eq!(cache.get(key, 1023), Some((word_of(&bytes, 1023), 8192)));
        }
    }

    #[test]
    fn two_choices_fill_most_of_the_cache_before_evicting() {
        let cache = BlockCache::new(4096 * PAGE_BYTES);
        let mut evicted_at = None;
        for key in 0..cache.capacity() as u64 {
            let replaced = matches!(cache.insert(key << 8, &[1]), Insertion::Replaced(_));
            if replaced && evicted_at.is_none() {
                evicted_at = Some(key);
            }
        }
        let held = (0..cache.capacity() as u64)
            .filter(|&k| cache.contains(k << 8))
            .count();
        // Two-choice hashing: the first eviction comes past three quarters (measured: 80% of
        // 4096 pages), and a full load keeps nearly all (measured: 96%).
        assert!(evicted_at.is_none_or(|k| k as usize > cache.capacity() * 3 / 4));
        assert!(held * 100 > cache.capacity() * 93, "{held}");
    }

    #[test]
    fn the_filter_counts_exactly_the_pages_held() {
        // 4 sets of 8 pages, 3 000 keys of a few files: thousands of evictions.
        let cache = BlockCache::new(4 * WAYS * PAGE_BYTES);
        let keys: Vec<u64> = (0..3_000u64).map(|k| ((k % 7) << 32) | (k * 13)).collect();
        for (n, &key) in keys.iter().enumerate() {
            cache.insert(key, &page(key as u8, 64));
            if n % 97 == 0 {
                // A page stored again is not counted twice.
                cache.insert(key, &page(key as u8, 64));
            }
        }
        let held: Vec<u64> = cache
            .sets
            .iter()
            .flat_map(|set| set.keys.0.iter().map(|k| k.load(Ordering::Relaxed)))
            .filter(|&k| k != EMPTY)
            .collect();
        assert_eq!(held.len(), cache.capacity());
        let mut expected = vec![0u8; cache.present.len()];
        for &key in &held {
            expected[cache.sets_of(key).2] += 1;
        }
        let counts: Vec<u8> = cache
            .present
            .iter()
            .map(|c| c.load(Ordering::Relaxed))
            .collect();
        assert_eq!(counts, expected);
        for &key in &keys {
            assert_eq!(cache.contains(key), held.contains(&key), "{key}");
        }
    }

    #[test]
    fn a_slot_being_written_is_a_miss() {
        let cache = BlockCache::new(0);
        cache.insert(5, &[1, 2, 3]);
        let (a, b, _) = cache.sets_of(5);
        let set = [&cache.sets[a], &cache.sets[b]]
            .into_iter()
            .find(|set| set.holds(5))
            .unwrap();
        let way = set
            .keys
            .0
            .iter()
            .position(|k| k.load(Ordering::Relaxed) == 5);
        let seq = &set.seqs.0[way.unwrap()];
        // As a writer leaves it between its first and last store.
        seq.fetch_add(1, Ordering::Relaxed);
        assert_eq!(cache.get(5, 0), None);
        seq.fetch_add(1, Ordering::Relaxed);
        assert_eq!(cache.get(5, 0), Some((0x03_0201, 3)));
    }

    #[test]
    fn readers_never_see_a_page_being_overwritten() {
        // Two slots rewritten all the time with pages whose words all hold their key: a reader
        // that gets a word must get its own key. The readers read for as long as the writers
        // write (a fixed number of pages each), however the threads are scheduled.
        const PAGES_PER_WRITER: u64 = 20_000;
        let cache = BlockCache::new(0);
        let writers_done = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for w in 0..2u64 {
                let (cache, writers_done) = (&cache, &writers_done);
                scope.spawn(move || {
                    let mut key = w;
                    for _ in 0..PAGES_PER_WRITER {
                        key = (key + 2) % 64;
                        let bytes: Vec<u8> = std::iter::repeat_n(key.to_le_bytes(), PAGE_WORDS)
                            .flatten()
                            .collect();
                        cache.insert(key, &bytes);
                    }
                    writers_done.fetch_add(1, Ordering::Release);
                });
            }
            let readers: Vec<_> = (0..4)
                .map(|r| {
                    let (cache, writers_done) = (&cache, &writers_done);
                    scope.spawn(move || {
                        let mut hits = 0u64;
                        let mut i = 0u64;
                        while writers_done.load(Ordering::Acquire) < 2 {
                            let key = (i * 7 + r) % 64;
                            // The first words: a writer stores them right after the key.
                            if let Some((word, len)) = cache.get(key, (i % 4) as usize) {
                                assert_eq!((word, len as usize), (key, PAGE_BYTES));
                                hits += 1;
                            }
                            i += 1;
                        }
                        hits
                    })
                })
                .collect();
            let hits: u64 = readers.into_iter().map(|r| r.join().unwrap()).sum();
            // Six of the eight slots are still at any moment: reads beside the writers hit (the
            // test would prove nothing otherwise).
            assert!(hits > 0);
        });
    }
}
