//! The receiver's view of the sequence space: the next segment expected in order (`rcv_nxt`) and the
//! segments received above it, in O(1) per segment however many holes there are (issue 13: a slow-start
//! overshoot at 10 Gbit/s x 300 ms leaves ~10^6 of them).
//!
//! Segments above rcv_nxt have one slot each in a deque that starts at rcv_nxt and ends at the highest
//! segment received. A slot is 0 for a hole; for a received segment it is non-zero, and at both ends of a
//! run of received segments it is the run's length ("boundary tags", as in memory allocators). A new
//! segment finds the runs it joins from its two neighbours' slots, and the joined run's ends are
//! rewritten: no search, whatever the number of runs.

use crate::net::packet::SeqRange;
use crate::spare::give_back_spare;
use std::collections::VecDeque;

/// Slots (4 bytes each) kept however few segments are held above rcv_nxt (`spare`).
const ABOVE_FLOOR: usize = 256;

#[derive(Clone, Debug, Default)]
pub struct Reassembly {
    rcv_nxt: u64,
    /// Slot i is segment rcv_nxt + i (see the module comment). Empty, or ends with a received segment;
    /// slot 0 is always a hole.
    above: VecDeque<u32>,
}

/// What a segment did to the sequence space.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// Already received (below rcv_nxt, or held above it).
    Duplicate,
    /// It was rcv_nxt; rcv_nxt moved past it and past the run of segments held behind it.
    InOrder,
    /// It is held above rcv_nxt, in the run `block`, which absorbed the runs just below and just above
    /// it, if there were any.
    OutOfOrder { block: SeqRange, joined_below: Option<SeqRange>, joined_above: Option<SeqRange> },
}

impl Reassembly {
    pub fn new() -> Self {
        Self::default()
    }

    /// Next segment expected in order: every segment below it has been received.
    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// Whether any segment is held above rcv_nxt.
    pub fn has_out_of_order(&self) -> bool {
        !self.above.is_empty()
    }

    /// Whether `seq` has been received.
    pub fn holds(&self, seq: u64) -> bool {
        seq < self.rcv_nxt || self.above.get((seq - self.rcv_nxt) as usize).is_some_and(|&slot| slot != 0)
    }

    /// Whether `block`, a run reported earlier, is still held above rcv_nxt (not yet delivered in order).
    pub fn is_above(&self, block: SeqRange) -> bool {
        block.start > self.rcv_nxt
    }

    #[inline(always)]
    pub fn receive(&mut self, seq: u64) -> Arrival {
        // The next segment with nothing held above: the common case, without a call.
        if seq == self.rcv_nxt && self.above.is_empty() {
            self.rcv_nxt += 1;
            return Arrival::InOrder;
        }
        self.receive_any(seq)
    }

    #[inline(never)]
    fn receive_any(&mut self, seq: u64) -> Arrival {
        if self.holds(seq) {
            return Arrival::Duplicate;
        }
        if seq == self.rcv_nxt {
            self.rcv_nxt += 1;
            if self.above.pop_front().is_some() {
                // The run held right behind it, if any, is now in order too.
                let run = self.above.front().copied().unwrap_or(0);
                self.above.drain(..run as usize);
                self.rcv_nxt += run as u64;
                // A hole filled after a large loss leaves room for the whole window behind it.
                give_back_spare(&mut self.above, ABOVE_FLOOR);
            }
            return Arrival::InOrder;
        }
        let i = (seq - self.rcv_nxt) as usize;
        if i >= self.above.len() {
            self.above.resize(i + 1, 0);
        }
        // The neighbours' slots: below, the last segment of a run (its length); above, the first.
        let below = self.above[i - 1] as u64;
        let above = self.above.get(i + 1).map_or(0, |&slot| slot as u64);
        let block = SeqRange { start: seq - below, end: seq + 1 + above };
        let length = (block.end - block.start) as u32;
        self.above[i] = length;
        self.above[(block.start - self.rcv_nxt) as usize] = length;
        self.above[(block.end - 1 - self.rcv_nxt) as usize] = length;
        Arrival::OutOfOrder {
            block,
            joined_below: (below > 0).then_some(SeqRange { start: block.start, end: seq }),
            joined_above: (above > 0).then_some(SeqRange { start: seq + 1, end: block.end }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(start: u64, end: u64) -> SeqRange {
        SeqRange { start, end }
    }

    #[test]
    fn runs_join_from_both_sides_and_fill_in_order() {
        let mut w = Reassembly::new();
        assert_eq!(w.receive(0), Arrival::InOrder);
        // 1 missing: 2 starts a run, 3 extends it, 5 starts another.
        assert_eq!(w.receive(2), Arrival::OutOfOrder { block: r(2, 3), joined_below: None, joined_above: None });
        assert_eq!(
            w.receive(3),
            Arrival::OutOfOrder { block: r(2, 4), joined_below: Some(r(2, 3)), joined_above: None }
        );
        assert_eq!(w.receive(5), Arrival::OutOfOrder { block: r(5, 6), joined_below: None, joined_above: None });
        assert_eq!(w.receive(3), Arrival::Duplicate);
        assert!(w.holds(0) && !w.holds(1) && w.holds(2) && !w.holds(4) && w.holds(5) && !w.holds(6));
        // 4 joins (2,4) and (5,6) into (2,6).
        assert_eq!(
            w.receive(4),
            Arrival::OutOfOrder { block: r(2, 6), joined_below: Some(r(2, 4)), joined_above: Some(r(5, 6)) }
        );
        // 1 fills the hole: rcv_nxt jumps past the run to 6, and nothing is held any more.
        assert_eq!(w.receive(1), Arrival::InOrder);
        assert_eq!((w.rcv_nxt(), w.has_out_of_order()), (6, false));
        assert!(!w.is_above(r(2, 6)));
    }

    #[test]
    fn filling_the_first_hole_leaves_the_runs_above_the_next() {
        // 0 lost; 1, 3 and 4 received: runs (1,2) and (3,5). 0 arrives: rcv_nxt 2, run (3,5) still held.
        let mut w = Reassembly::new();
        for seq in [1, 3, 4] {
            w.receive(seq);
        }
        assert_eq!(w.receive(0), Arrival::InOrder);
        assert_eq!(w.rcv_nxt(), 2);
        assert!(w.is_above(r(3, 5)) && w.holds(4) && !w.holds(2));
        assert_eq!(w.receive(2), Arrival::InOrder);
        assert_eq!((w.rcv_nxt(), w.has_out_of_order()), (5, false));
    }

    proptest::proptest! {
        /// Any order of arrivals, duplicates included: rcv_nxt is the first segment missing, `holds`
        /// says what arrived, and each out-of-order segment's block is the whole run of received
        /// segments around it, made of the runs it joined.
        #[test]
        fn agrees_with_the_set_of_segments_received(arrivals in proptest::collection::vec(0u64..200, 1..400)) {
            let mut w = Reassembly::new();
            let mut got = std::collections::BTreeSet::new();
            for seq in arrivals {
                let arrival = w.receive(seq);
                let fresh = got.insert(seq);
                let rcv_nxt = (0..).find(|s| !got.contains(s)).unwrap();
                proptest::prop_assert_eq!(w.rcv_nxt(), rcv_nxt);
                match arrival {
                    Arrival::Duplicate => proptest::prop_assert!(!fresh),
                    Arrival::InOrder => proptest::prop_assert!(fresh && seq < rcv_nxt),
                    Arrival::OutOfOrder { block, joined_below, joined_above } => {
                        proptest::prop_assert!(fresh && seq > rcv_nxt);
                        let start = (0..=seq).rev().take_while(|s| got.contains(s)).last().unwrap();
                        let end = (seq..).find(|s| !got.contains(s)).unwrap();
                        proptest::prop_assert_eq!(block, r(start, end));
                        proptest::prop_assert_eq!(joined_below, (start < seq).then_some(r(start, seq)));
                        proptest::prop_assert_eq!(joined_above, (end > seq + 1).then_some(r(seq + 1, end)));
                    }
                }
                for s in 0..210 {
                    proptest::prop_assert_eq!(w.holds(s), got.contains(&s));
                }
                proptest::prop_assert_eq!(w.has_out_of_order(), got.iter().any(|&s| s > rcv_nxt));
            }
        }
    }
}
