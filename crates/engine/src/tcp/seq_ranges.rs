//! A set of segment numbers kept as disjoint, non-adjacent ranges in an ordered map (start -> end), so
//! that every operation costs O(log n) in the number of ranges, amortised over the ranges it merges or
//! drops, whatever the window. It holds the sender's SACKed ranges and the receiver's out-of-order data.
//!
//! After a slow-start overshoot into a large buffer every other segment of a window may be lost: 10^5 to
//! 10^6 ranges. A sorted `Vec` then pays a memmove of the whole set for each range merged or dropped in
//! the middle or at the front, and a scan of it per cumulative ACK: the cost per ACK grows with the
//! window (issue 13). The map's cost grows with its depth only.

use crate::net::packet::SeqRange;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SeqRanges {
    /// start -> end (exclusive); ranges disjoint and not adjacent (end < next start).
    ranges: BTreeMap<u64, u64>,
}

impl SeqRanges {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Number of ranges (not of segments).
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// The lowest range.
    pub fn first(&self) -> Option<SeqRange> {
        self.ranges.first_key_value().map(|(&start, &end)| SeqRange { start, end })
    }

    /// The highest range.
    pub fn last(&self) -> Option<SeqRange> {
        self.ranges.last_key_value().map(|(&start, &end)| SeqRange { start, end })
    }

    /// Remove the lowest range.
    pub fn pop_first(&mut self) -> Option<SeqRange> {
        self.ranges.pop_first().map(|(start, end)| SeqRange { start, end })
    }

    /// The range holding `seq`, if any.
    pub fn range_containing(&self, seq: u64) -> Option<SeqRange> {
        let (&start, &end) = self.ranges.range(..=seq).next_back()?;
        (seq < end).then_some(SeqRange { start, end })
    }

    pub fn contains(&self, seq: u64) -> bool {
        self.range_containing(seq).is_some()
    }

    /// Add `range`, merging it with the ranges it overlaps or touches. `on_new` is called, in increasing
    /// order, with each part of `range` that was not in the set yet; returns how many segments those hold.
    pub fn insert(&mut self, range: SeqRange, mut on_new: impl FnMut(SeqRange)) -> u64 {
        let SeqRange { start, end } = range;
        if start >= end {
            return 0;
        }
        // Common case, new data at the top (the highest SACK block growing, or the next out-of-order
        // segment): nothing above to merge with.
        match self.ranges.last_entry() {
            None => {
                self.ranges.insert(start, end);
                on_new(range);
                return end - start;
            }
            Some(mut top) if *top.get() <= start => {
                if *top.get() == start {
                    *top.get_mut() = end;
                } else {
                    self.ranges.insert(start, end);
                }
                on_new(range);
                return end - start;
            }
            Some(_) => {}
        }
        let mut merged = range;
        // Everything of `range` below `covered` is accounted for.
        let mut covered = start;
        // A range starting at or below `start` that reaches it absorbs the new one from the left.
        if let Some((&s, &e)) = self.ranges.range(..=start).next_back() {
            if e >= start {
                if e >= end {
                    return 0; // already covered
                }
                merged.start = s;
                covered = e;
                self.ranges.remove(&s);
            }
        }
        let mut new_segments = 0;
        // Ranges starting inside (covered, end], the last of them possibly reaching beyond `end`.
        while covered <= end {
            let Some((&s, &e)) = self.ranges.range(covered..=end).next() else { break };
            if s > covered {
                on_new(SeqRange { start: covered, end: s });
                new_segments += s - covered;
            }
            covered = e;
            merged.end = merged.end.max(e);
            self.ranges.remove(&s);
        }
        if covered < end {
            on_new(SeqRange { start: covered, end });
            new_segments += end - covered;
        }
        self.ranges.insert(merged.start, merged.end);
        new_segments
    }

    /// Forget every segment below `seq` (a cumulative ACK), trimming the range that straddles it.
    pub fn remove_below(&mut self, seq: u64) {
        while let Some(entry) = self.ranges.first_entry() {
            let (start, end) = (*entry.key(), *entry.get());
            if start >= seq {
                break;
            }
            entry.remove();
            if end > seq {
                self.ranges.insert(seq, end);
                break;
            }
        }
    }

    /// The `k`-th highest segment of the set (k = 1: the highest), or None if it holds fewer than `k`.
    /// Visits at most `k` ranges.
    pub fn kth_highest(&self, k: u64) -> Option<u64> {
        let mut need = k;
        for (&start, &end) in self.ranges.iter().rev() {
            if end - start >= need {
                return Some(end - need);
            }
            need -= end - start;
        }
        None
    }

    /// The ranges in increasing order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = SeqRange> + '_ {
        self.ranges.iter().map(|(&start, &end)| SeqRange { start, end })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(start: u64, end: u64) -> SeqRange {
        SeqRange { start, end }
    }
    fn ranges(set: &SeqRanges) -> Vec<(u64, u64)> {
        set.iter().map(|r| (r.start, r.end)).collect()
    }
    /// Insert and collect the new parts.
    fn add(set: &mut SeqRanges, start: u64, end: u64) -> (u64, Vec<(u64, u64)>) {
        let mut parts = vec![];
        let n = set.insert(r(start, end), |p| parts.push((p.start, p.end)));
        (n, parts)
    }

    #[test]
    fn insert_reports_only_the_new_parts_and_merges_touching_ranges() {
        let mut set = SeqRanges::new();
        assert_eq!(add(&mut set, 5, 8), (3, vec![(5, 8)]));
        assert_eq!(add(&mut set, 5, 9), (1, vec![(8, 9)]));
        assert_eq!(add(&mut set, 12, 14), (2, vec![(12, 14)]));
        assert_eq!(add(&mut set, 20, 21), (1, vec![(20, 21)]));
        assert_eq!(ranges(&set), vec![(5, 9), (12, 14), (20, 21)]);
        // [4, 15) fills 4, 9..12 and 14, and joins the first two ranges; 20 stays apart (15 < 20).
        assert_eq!(add(&mut set, 4, 15), (5, vec![(4, 5), (9, 12), (14, 15)]));
        assert_eq!(ranges(&set), vec![(4, 15), (20, 21)]);
        // Touching on both sides: [15, 20) bridges (4, 15) and (20, 21) into one range.
        assert_eq!(add(&mut set, 15, 20), (5, vec![(15, 20)]));
        assert_eq!(ranges(&set), vec![(4, 21)]);
        // Inside an existing range, or empty: nothing.
        assert_eq!(add(&mut set, 6, 10), (0, vec![]));
        assert_eq!(add(&mut set, 30, 30), (0, vec![]));
        assert_eq!(ranges(&set), vec![(4, 21)]);
    }

    #[test]
    fn a_range_covering_several_ends_beyond_the_last() {
        // (2,3), (5,6), (8,12); insert [1, 10): new 1, 3..5, 6..8; merged with (8,12) up to 12.
        let mut set = SeqRanges::new();
        for (s, e) in [(2, 3), (5, 6), (8, 12)] {
            add(&mut set, s, e);
        }
        assert_eq!(add(&mut set, 1, 10), (5, vec![(1, 2), (3, 5), (6, 8)]));
        assert_eq!(ranges(&set), vec![(1, 12)]);
    }

    #[test]
    fn lookups() {
        let mut set = SeqRanges::new();
        for (s, e) in [(3, 5), (7, 8)] {
            add(&mut set, s, e);
        }
        assert_eq!(set.range_containing(4), Some(r(3, 5)));
        assert_eq!(set.range_containing(5), None);
        assert_eq!(set.range_containing(2), None);
        assert!(set.contains(7) && !set.contains(8));
        assert_eq!((set.first(), set.last(), set.len()), (Some(r(3, 5)), Some(r(7, 8)), 2));
    }

    #[test]
    fn remove_below_trims_the_straddling_range() {
        let mut set = SeqRanges::new();
        for (s, e) in [(3, 5), (7, 10), (12, 13)] {
            add(&mut set, s, e);
        }
        set.remove_below(8);
        assert_eq!(ranges(&set), vec![(8, 10), (12, 13)]);
        set.remove_below(10);
        assert_eq!(ranges(&set), vec![(12, 13)]);
        set.remove_below(20);
        assert!(set.is_empty());
    }

    #[test]
    fn kth_highest_counts_segments_from_the_top() {
        // Segments 2, 3, 6, 9, 10: highest 10, 2nd 9, 3rd 6, 5th 2, no 6th.
        let mut set = SeqRanges::new();
        for (s, e) in [(2, 4), (6, 7), (9, 11)] {
            add(&mut set, s, e);
        }
        let got: Vec<Option<u64>> = (1..=6).map(|k| set.kth_highest(k)).collect();
        assert_eq!(got, vec![Some(10), Some(9), Some(6), Some(3), Some(2), None]);
    }
}
