//! The positions queued for the solver's passes: found by distance, queue and side as tasks run,
//! then kept in segments per pass and cut into tasks of similar size.

use super::solve::CHUNK;

/// A queued position's index in its side's table: `u32` where the pair's tables have at most
/// 2³² positions (every table up to 7 pieces), `u64` above (8 pieces). A pair of kings only is
/// one slice, whose queues may hold most of its positions: 4 bytes each rather than 8 wherever
/// they suffice.
pub(super) trait Queued: Copy + Send + Sync + 'static {
    /// `index`, which the caller has checked fits.
    fn from_index(index: u64) -> Self;
    /// The index it holds.
    fn index(self) -> u64;
}

impl Queued for u32 {
    #[inline(always)]
    fn from_index(index: u64) -> u32 {
        debug_assert!(index <= u64::from(u32::MAX));
        index as u32
    }

    #[inline(always)]
    fn index(self) -> u64 {
        u64::from(self)
    }
}

impl Queued for u64 {
    #[inline(always)]
    fn from_index(index: u64) -> u64 {
        index
    }

    #[inline(always)]
    fn index(self) -> u64 {
        self
    }
}

/// The two queues of a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Queue {
    /// Positions decided (or given a better provisional win) at the pass's distance, whose
    /// value goes on to their predecessors.
    Decided = 0,
    /// Undecided positions whose best move out of their slice loses at the pass's distance
    /// (the opponent wins in it): counted down as a king move to a win would be.
    Exit = 1,
}

/// Positions of one queue at one distance for one side, in the order they were found.
pub(super) struct Segment<Q> {
    pub(super) queue: Queue,
    pub(super) side: usize,
    pub(super) distance: u16,
    pub(super) indices: Vec<Q>,
}

/// Positions a task queues, grouped by distance, queue and side as they come, to be handled in
/// the pass for their distance. Handed over a segment at a time, not one position at a time on
/// a single thread.
pub(super) struct Found<Q> {
    pub(super) by_distance: Vec<[[Vec<Q>; 2]; 2]>,
}

impl<Q> Default for Found<Q> {
    fn default() -> Self {
        Found {
            by_distance: Vec::new(),
        }
    }
}

/// The entry at `at` of a list by level or distance, the list grown as needed.
pub(super) fn grown<T: Default>(list: &mut Vec<T>, at: usize) -> &mut T {
    if list.len() <= at {
        list.resize_with(at + 1, Default::default);
    }
    &mut list[at]
}

impl<Q: Queued> Found<Q> {
    /// A position decided at `distance`.
    pub(super) fn push(&mut self, side: usize, distance: u16, index: u64) {
        grown(&mut self.by_distance, distance as usize)[Queue::Decided as usize][side]
            .push(Q::from_index(index));
    }

    /// A position to count down in the pass of `distance` (see [`Queue::Exit`]).
    pub(super) fn push_exit(&mut self, side: usize, distance: u16, index: u64) {
        grown(&mut self.by_distance, distance as usize)[Queue::Exit as usize][side]
            .push(Q::from_index(index));
    }

    /// Everything found so far, as segments; leaves `self` empty.
    pub(super) fn take(&mut self) -> Vec<Segment<Q>> {
        let mut segments = Vec::new();
        for (distance, queues) in self.by_distance.iter_mut().enumerate() {
            for (queue, sides) in [Queue::Decided, Queue::Exit].into_iter().zip(queues) {
                for (side, indices) in sides.iter_mut().enumerate() {
                    if !indices.is_empty() {
                        segments.push(Segment {
                            queue,
                            side,
                            distance: distance as u16,
                            indices: std::mem::take(indices),
                        });
                    }
                }
            }
        }
        segments
    }
}

/// A pass's segments cut into tasks of [`CHUNK`] to 2·[`CHUNK`] positions (for each side, long
/// segments split, short ones grouped; each side's last task may be smaller), so that a
/// frontier of many short segments does not become as many tiny tasks.
pub(super) fn tasks<Q>(frontier: &[Vec<Vec<Q>>; 2]) -> Vec<(usize, Vec<&[Q]>)> {
    let mut tasks = Vec::new();
    for (side, segments) in frontier.iter().enumerate() {
        let mut pieces: Vec<&[Q]> = Vec::new();
        let mut len = 0;
        for piece in segments.iter().flat_map(|segment| segment.chunks(CHUNK)) {
            pieces.push(piece);
            len += piece.len();
            if len >= CHUNK {
                tasks.push((side, std::mem::take(&mut pieces)));
                len = 0;
            }
        }
        if !pieces.is_empty() {
            tasks.push((side, pieces));
        }
    }
    tasks
}

/// The positions queued for each pass, by distance, queue and side, in segments.
pub(super) struct Buckets<Q> {
    pub(super) by_distance: Vec<[[Vec<Vec<Q>>; 2]; 2]>,
}

impl<Q> Default for Buckets<Q> {
    fn default() -> Self {
        Buckets {
            by_distance: Vec::new(),
        }
    }
}

impl<Q> Buckets<Q> {
    pub(super) fn add(&mut self, segments: Vec<Segment<Q>>) {
        for segment in segments {
            grown(&mut self.by_distance, segment.distance as usize)[segment.queue as usize]
                [segment.side]
                .push(segment.indices);
        }
    }

    /// The segments of each queue and side at `distance`, or `None` once no bucket at or
    /// beyond it holds any.
    pub(super) fn take(&mut self, distance: u16) -> Option<[[Vec<Vec<Q>>; 2]; 2]> {
        let d = distance as usize;
        if self.by_distance[d.min(self.by_distance.len())..]
            .iter()
            .flatten()
            .all(|sides| sides.iter().all(Vec::is_empty))
        {
            return None;
        }
        Some(
            self.by_distance
                .get_mut(d)
                .map(std::mem::take)
                .unwrap_or_default(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_above_two_to_the_32_come_back_whole_in_their_pass() {
        // Positions of a table of 8 pieces (KKMMvKKMM has 1.54·10¹⁰ a side).
        let far = [u64::from(u32::MAX) + 1, 15_000_000_007, 7];
        let mut found = Found::<u64>::default();
        for (n, &index) in far.iter().enumerate() {
            found.push(n % 2, 3, index);
        }
        found.push_exit(1, 5, far[1]);
        let mut buckets = Buckets::default();
        buckets.add(found.take());
        assert!(buckets
            .take(0)
            .is_some_and(|d| d.iter().flatten().all(Vec::is_empty)));
        let [decided, exits] = buckets.take(3).unwrap();
        let mut queued: Vec<(usize, u64)> = tasks(&decided)
            .into_iter()
            .flat_map(|(side, pieces)| {
                pieces
                    .into_iter()
                    .flatten()
                    .map(move |&index| (side, index))
            })
            .collect();
        queued.sort_unstable();
        assert_eq!(queued, [(0, 7), (0, far[0]), (1, far[1])]);
        assert!(exits.iter().all(Vec::is_empty));
        let [_, exits] = buckets.take(5).unwrap();
        assert_eq!(exits[1], [vec![far[1]]]);
        assert!(buckets.take(6).is_none());
    }
}
