//! Ring buffers of the propagation lines (`net::line`) that a line gave up when it grew or gave room
//! back, kept for the next line that needs one of the same size.
//!
//! With 1000 flows the 4000 access lines' rings grow as bursts arrive and give room back as they drain
//! (`spare`), about 70 000 times per simulated second between them at 10 Gbit/s. Each time, a new
//! buffer was allocated and every slot filled, the entries copied, and the old buffer freed: about 8 %
//! of the instructions per data packet and nearly a third of the modelled L2 misses (callgrind,
//! docs/benchmarks.md run 20a). A buffer taken from here is one a line gave up moments ago (last in,
//! first out), so it is likely still in the cache, and needs no filling: its stale entries are never
//! read, only overwritten.
//!
//! The pool must not hoard: memory has to follow the packets on the wire (issue 13). Each size class
//! keeps at most `CLASS_BYTES` of buffers; what a line gives up beyond that is freed as before. So the
//! pool holds at most `CLASS_BYTES` per class however long the run, 2.25 MB in all. A buffer larger
//! than `CLASS_BYTES` (a line over 4096 entries: one flow's window at gigabits per second) is never
//! kept: such lines reallocate rarely (at most once per 10 simulated seconds when giving back; doubling
//! when growing), and keeping one would hold megabytes that may never be asked for again. Nor is one
//! below the line's floor (`line::FLOOR`): only a line's first growths ask for those, never a give-back.
//!
//! Which buffer a line gets never changes what it holds or in which order, so results are bit-identical.

use crate::net::line::{OnLine, FLOOR};

/// Bytes of buffers kept per size class: 256 KB, e.g. 256 rings of 16 entries or 4 of 1024; at most
/// 9 classes (16 to 4096 entries, the ones the line's floor and this bound allow), so 2.25 MB in all
/// (1000 flows at 1 Gbit/s peak at about 19 MB).
const CLASS_BYTES: usize = 256 * 1024;
/// Bytes of ring that lines may keep with spare room in them (`Line::keep_or_give_back_spare`): 256 KB,
/// one flow's four access lines of 1024 entries. Within it, a line that carries trains keeps its room
/// between them; beyond it (many lines, as with 1000 flows), room is given back at once as before, so
/// that the rings stay compact and their writes land in memory a recent arrival touched (run 18b).
const KEEP_BYTES: usize = 256 * 1024;

/// Buffers by size class: `classes[k]` holds buffers of 2^k entries, most recently given last.
#[derive(Default)]
pub struct LinePool {
    classes: Vec<Vec<Vec<OnLine>>>,
    /// Bytes of the rings that lines keep with spare room (`keep`), at most `KEEP_BYTES`.
    kept: usize,
    /// Whether a push asks for the slot the next push writes (`Line::push`).
    hint_pushes: bool,
}

impl LinePool {
    /// A buffer of `capacity` entries (a power of two), the one given back last, if any.
    #[inline]
    pub fn take(&mut self, capacity: usize) -> Option<Vec<OnLine>> {
        debug_assert!(capacity.is_power_of_two());
        self.classes.get_mut(capacity.trailing_zeros() as usize)?.pop()
    }

    /// Keep `slots` (a buffer of a power-of-two length) for reuse, or free it if its class is full.
    #[inline]
    pub fn give(&mut self, slots: Vec<OnLine>) {
        let size = slots.len();
        if size < FLOOR || size * std::mem::size_of::<OnLine>() > CLASS_BYTES {
            return;
        }
        debug_assert!(size.is_power_of_two());
        let class = size.trailing_zeros() as usize;
        if self.classes.len() <= class {
            self.classes.resize_with(class + 1, Vec::new);
        }
        let kept = &mut self.classes[class];
        if (kept.len() + 1) * size * std::mem::size_of::<OnLine>() <= CLASS_BYTES {
            kept.push(slots);
        }
    }

    /// Whether a line may keep its ring of `capacity` entries with spare room in it: yes while the rings
    /// kept so far and this one fit in `KEEP_BYTES`; then it counts until the line `release`s it.
    pub fn keep(&mut self, capacity: usize) -> bool {
        let bytes = capacity * std::mem::size_of::<OnLine>();
        let fits = self.kept + bytes <= KEEP_BYTES;
        if fits {
            self.kept += bytes;
        }
        fits
    }

    /// A line that kept its ring of `capacity` entries (`keep`) reallocates it.
    pub fn release(&mut self, capacity: usize) {
        self.kept -= capacity * std::mem::size_of::<OnLine>();
    }

    /// Bytes of the rings lines keep with spare room now (`keep`).
    #[cfg(test)]
    pub fn kept_bytes(&self) -> usize {
        self.kept
    }

    /// A pool whose bound on kept room is used up, so that a line gives its spare room back at once
    /// (as with many lines), for tests of the give-back.
    #[cfg(test)]
    pub fn kept_in_full() -> LinePool {
        LinePool { kept: KEEP_BYTES, ..LinePool::default() }
    }

    /// A pool whose lines hint their pushes (`Line::push`): for a run of several flows. One flow's few
    /// lines are streams the hardware prefetcher follows by itself, and there the hint cost a line of
    /// 333,000 packets 11-12 % (40 Gbit/s x 100 ms x 0.1 BDP; docs/benchmarks.md, run 28); with ten flows
    /// and more, leaving it out cost 5-6 %.
    pub fn hinting_pushes(hint: bool) -> LinePool {
        LinePool { hint_pushes: hint, ..LinePool::default() }
    }

    /// Whether pushes hint the slot the next push writes (`hinting_pushes`).
    #[inline(always)]
    pub fn hints_pushes(&self) -> bool {
        self.hint_pushes
    }

    /// Bytes of buffers held now.
    pub fn bytes(&self) -> usize {
        self.classes.iter().flatten().map(|b| b.len() * std::mem::size_of::<OnLine>()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::line::Line;
    use crate::net::packet::test_packets::data_packet;
    use crate::time::SimTime;

    /// A buffer of `size` entries, as a line leaves it (pushed to its size and drained).
    fn buffer(size: usize) -> Vec<OnLine> {
        let mut line = Line::default();
        let mut scratch = LinePool::default();
        for seq in 0..size as u64 {
            line.push(SimTime(seq), data_packet(seq, 1500), &mut scratch);
        }
        line.into_slots()
    }

    #[test]
    fn the_last_buffer_given_of_a_size_is_taken_first() {
        // Two 16-entry buffers and one of 32 given: a 16 takes the second 16 (its first entry's time
        // tells them apart: 100 against 0), then the first; a 64 finds none.
        let mut pool = LinePool::default();
        let first = buffer(16);
        let mut second = buffer(16);
        second[0] = OnLine { arrival: SimTime(100), pkt: second[0].pkt };
        pool.give(first);
        pool.give(second);
        pool.give(buffer(32));
        assert_eq!(pool.take(16).map(|b| b[0].arrival), Some(SimTime(100)));
        assert_eq!(pool.take(16).map(|b| b[0].arrival), Some(SimTime(0)));
        assert!(pool.take(16).is_none());
        assert!(pool.take(64).is_none());
        assert_eq!(pool.take(32).map(|b| b.len()), Some(32));
    }

    #[test]
    fn lines_keep_room_up_to_the_bound() {
        // 256 KB: three rings of 1024 entries (64 KB each) fit, then one of 512 (32 KB), another 512
        // too (256 KB in all), and nothing more until a ring is released.
        let mut pool = LinePool::default();
        assert!((0..3).all(|_| pool.keep(1024)));
        assert!(pool.keep(512) && pool.keep(512));
        assert!(!pool.keep(16));
        pool.release(1024);
        assert!(pool.keep(1024) && !pool.keep(16));
        assert_eq!(pool.kept_bytes(), 256 * 1024);
    }

    #[test]
    fn a_class_keeps_at_most_its_bytes() {
        // 16 entries x 64 bytes = 1 KB a buffer: of 300 given, 256 (256 KB) are kept. A buffer of 8192
        // entries (512 KB) is over the class bound alone and never kept; one of 4096 (256 KB) is. One
        // of 8 entries, below the line's floor of 16, is not.
        let mut pool = LinePool::default();
        pool.give(buffer(8));
        assert_eq!(pool.bytes(), 0);
        for _ in 0..300 {
            pool.give(buffer(16));
        }
        assert_eq!(pool.bytes(), 256 * 1024);
        pool.give(buffer(8192));
        assert_eq!(pool.bytes(), 256 * 1024);
        pool.give(buffer(4096));
        assert_eq!(pool.bytes(), 512 * 1024);
        pool.give(buffer(4096));
        assert_eq!(pool.bytes(), 512 * 1024);
    }
}
