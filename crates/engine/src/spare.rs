//! Giving back a container's spare capacity, so that memory follows the data held now rather than the
//! most ever held (issue 13: a run ten times longer must peak at the same RSS within 10 %).
//!
//! A `VecDeque` keeps the capacity of the largest burst it ever held. With 1000 flows, each of the 4000
//! access links' propagation lines and each flow's scoreboard and reassembly queue meets, sooner or
//! later, a burst far above its usual length (a slow start after a timeout, a window that grew while
//! others backed off); a longer run meets larger ones, and the sum of those high-water marks grew with
//! simulated time (docs/benchmarks.md, run 17: 21.6 -> 24.2 MB for 30 -> 300 s; the lines held 9.5 MB of
//! capacity for 0.6 MB of packets at the end of the 30-s run, 11.2 MB at the end of the 300-s one).
//!
//! The rule has hysteresis, so that a container whose length swings (a window halving and growing
//! back) never reallocates: capacity is given back only once the length has fallen below an eighth of
//! it, and then down to twice the length (rounded up to a power of two, the sizes a doubling growth
//! asks for, so that the allocator can reuse freed blocks), so that the length must double again
//! before the next growth and fall eightfold again before the next shrink. Each reallocation copies at
//! most the elements held, and between two of them at least as many pushes or pops happen, so the cost
//! stays O(1) amortised per element. Below `floor` elements nothing is given back: small queues that
//! fill and empty all the time would otherwise reallocate on every burst. A length that swings by more
//! than eightfold (a line carrying its flow's window as trains) still reallocates at every swing, so the
//! owners of large containers limit how often they ask (`net::link`: once per 10 simulated seconds).
//!
//! Capacity never changes what a container holds or in which order, so results are bit-identical.

use std::collections::{BinaryHeap, VecDeque};

/// Containers whose spare capacity can be given back.
pub trait GiveBack {
    fn len(&self) -> usize;
    fn capacity(&self) -> usize;
    /// Reallocate to hold at least `capacity` elements (and at least the length).
    fn shrink_to(&mut self, capacity: usize);
}

impl<T> GiveBack for VecDeque<T> {
    fn len(&self) -> usize {
        VecDeque::len(self)
    }
    fn capacity(&self) -> usize {
        VecDeque::capacity(self)
    }
    fn shrink_to(&mut self, capacity: usize) {
        VecDeque::shrink_to(self, capacity)
    }
}

impl<T: Ord> GiveBack for BinaryHeap<T> {
    fn len(&self) -> usize {
        BinaryHeap::len(self)
    }
    fn capacity(&self) -> usize {
        BinaryHeap::capacity(self)
    }
    fn shrink_to(&mut self, capacity: usize) {
        BinaryHeap::shrink_to(self, capacity)
    }
}

/// Give back `c`'s spare capacity if its length has fallen below an eighth of it and it holds more
/// than `floor` elements' room: down to twice its length rounded up to a power of two, never below
/// `floor`. Call after removing
/// elements; the test is a load, a shift and a compare, and the reallocation is out of line.
#[inline(always)]
pub fn give_back_spare<C: GiveBack>(c: &mut C, floor: usize) {
    if has_spare(c, floor) {
        shrink(c, floor);
    }
}

/// Whether `give_back_spare` would give anything back now.
#[inline(always)]
pub fn has_spare<C: GiveBack>(c: &C, floor: usize) -> bool {
    spare_room(c.len(), c.capacity(), floor)
}

/// The rule on a container's length and capacity alone (for containers that reallocate themselves,
/// `net::line`): whether it holds more than `floor` elements' room and its length has fallen below an
/// eighth of it.
#[inline(always)]
pub fn spare_room(len: usize, capacity: usize, floor: usize) -> bool {
    capacity > floor && len < capacity / 8
}

/// The capacity a container of `len` elements with spare room keeps: twice its length rounded up to a
/// power of two, never below `floor`.
pub fn kept_capacity(len: usize, floor: usize) -> usize {
    (2 * len).next_power_of_two().max(floor)
}

#[cold]
#[inline(never)]
fn shrink<C: GiveBack>(c: &mut C, floor: usize) {
    let target = kept_capacity(c.len(), floor);
    c.shrink_to(target);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gives_back_below_an_eighth_down_to_twice_the_length() {
        // Room for 1024, 1000 held. Popping to 128 (= 1024 / 8) keeps it; one more pop (127 < 128)
        // shrinks to 2 x 127 = 254, rounded up to 256.
        let mut d: VecDeque<u64> = VecDeque::with_capacity(1024);
        d.extend(0..1000);
        assert_eq!(d.capacity(), 1024);
        while d.len() > 128 {
            d.pop_front();
            give_back_spare(&mut d, 16);
        }
        assert_eq!(d.capacity(), 1024);
        d.pop_front();
        give_back_spare(&mut d, 16);
        assert_eq!(d.capacity(), 256);
        assert_eq!(d.front(), Some(&873));
        assert_eq!(d.len(), 127);
    }

    #[test]
    fn never_below_the_floor() {
        // Capacity 64, one element left (1 < 64 / 8): shrinks to the floor of 16, not to 2.
        let mut d: VecDeque<u64> = VecDeque::with_capacity(64);
        d.extend(0..64);
        assert_eq!(d.capacity(), 64);
        d.truncate(1);
        give_back_spare(&mut d, 16);
        assert_eq!(d.capacity(), 16);
        // At the floor nothing more is given back, even when empty.
        d.clear();
        give_back_spare(&mut d, 16);
        assert_eq!(d.capacity(), 16);
    }

    #[test]
    fn a_length_swinging_by_less_than_eightfold_never_reallocates() {
        // A window halving and growing back between 400 and 100 (a quarter): capacity stays at 512.
        let mut d: VecDeque<u64> = VecDeque::with_capacity(512);
        for round in 0..10 {
            while d.len() < 400 {
                d.push_back(round);
            }
            while d.len() > 100 {
                d.pop_front();
                give_back_spare(&mut d, 16);
            }
            assert_eq!(d.capacity(), 512);
        }
    }

    #[test]
    fn a_heap_gives_back_too() {
        // Room for 256, 200 pushed, 31 left (31 < 256 / 8 = 32): shrinks to 62, rounded up to 64; still
        // a heap.
        let mut h: BinaryHeap<u32> = BinaryHeap::with_capacity(256);
        h.extend(0..200);
        assert_eq!(h.capacity(), 256);
        while h.len() > 31 {
            h.pop();
        }
        give_back_spare(&mut h, 16);
        assert_eq!(h.capacity(), 64);
        assert_eq!(h.pop(), Some(30));
    }
}
