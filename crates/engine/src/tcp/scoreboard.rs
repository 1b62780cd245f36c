//! The sender's scoreboard: per-segment state of everything sent and not yet cumulatively acknowledged,
//! and the counters that make `pipe` O(1) (RFC 6675 section 2; Linux `packets_out`, `sacked_out`,
//! `lost_out`, `retrans_out`).
//!
//! pipe = packets_out - (sacked_out + lost_out) + retrans_out: a lost segment leaves the network, its
//! retransmission re-enters it.
//!
//! No work per ACK grows with the window or the number of holes (issue 13; a slow-start overshoot at
//! 10 Gbit/s x 300 ms leaves ~10^6 holes in one window): work on a segment is done once for that
//! segment, and the rest costs O(1) per ACK, or O(log n) amortised at worst where noted.
//! - A SACK block visits only the segments it newly covers: each SACKed segment links forward past the
//!   SACKed run it belongs to (`Segment::sacked_run`, shortened as it is followed: union-find's path
//!   compression, O(log n) amortised at worst), so a block repeated in every ACK costs a link or two,
//!   not its length.
//! - RFC 6675 IsLost needs the DupThresh-th highest SACKed segment, FACK and lost-retransmission
//!   detection the highest: the DupThresh highest are kept as segments are SACKed (`HighestSacked`).
//! - Loss marking moves a cursor forward only (`lost_mark_pos`).
//! - NextSeg's search for the lowest lost segment not yet retransmitted moves a cursor forward only
//!   (`rxt_pos`); a segment that becomes due again behind the cursor (a lost retransmission, a late loss
//!   mark) goes into a min-heap (O(log k) for k such segments) instead of moving the cursor back over
//!   the window.
//! - Lost retransmissions are found in the order they were sent, from the front of a queue.
//!
//! For algorithms that ask for delivery-rate samples, a parallel queue keeps each segment's `TxStamp`
//! (tcp/rate.rs) and the board remembers, per ACK, how many segments were newly delivered and the most
//! recently sent of them. Without rate sampling that queue stays empty and is never touched.

use crate::hint::prefetch;
use crate::net::packet::SeqRange;
use crate::spare::give_back_spare;
use crate::tcp::rate::{DeliveredSegment, TxStamp};
use crate::time::SimTime;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

const SACKED: u8 = 1;
const LOST: u8 = 2;
/// A retransmission of this segment is in flight.
const RETRANS: u8 = 4;
/// This segment has been retransmitted at least once (Karn's rule).
const EVER_RETRANS: u8 = 8;

/// Segments (16 bytes each) the board keeps room for however small the window gets (`spare`).
const SEGS_FLOOR: usize = 64;
/// Entries the queues of retransmissions and of segments due again keep room for.
const QUEUE_FLOOR: usize = 64;

/// RFC 6675 DupThresh.
pub const DUP_THRESH: u64 = 3;

#[derive(Copy, Clone, Debug)]
struct Segment {
    sent_at: SimTime,
    flags: u8,
    /// SACKed segments only: a segment at most this far ahead is the first not SACKed (or snd_nxt), and
    /// all between are SACKed. 1 when SACKed; made longer as it is followed (`next_unsacked`).
    sacked_run: u32,
}

/// The DupThresh highest SACKed segments at or above snd_una, highest first. Exact as segments are
/// SACKed (a new one enters if it is among the highest) and as snd_una passes them: once one of them is
/// below snd_una, so is every SACKed segment below it, so those that remain are all there are.
#[derive(Clone, Debug, Default)]
struct HighestSacked {
    seqs: [u64; DUP_THRESH as usize],
    len: usize,
}

impl HighestSacked {
    fn insert(&mut self, seq: u64) {
        let full = self.len == self.seqs.len();
        if full && seq <= self.seqs[self.len - 1] {
            return;
        }
        // Shift the lower ones down (dropping the lowest when full) and place `seq`.
        let mut i = if full { self.len - 1 } else { self.len };
        while i > 0 && self.seqs[i - 1] < seq {
            self.seqs[i] = self.seqs[i - 1];
            i -= 1;
        }
        self.seqs[i] = seq;
        self.len = (self.len + 1).min(self.seqs.len());
    }
    fn remove_below(&mut self, seq: u64) {
        while self.len > 0 && self.seqs[self.len - 1] < seq {
            self.len -= 1;
        }
    }
    /// The k-th highest (k = 1: the highest).
    fn kth(&self, k: u64) -> Option<u64> {
        (k as usize <= self.len).then(|| self.seqs[k as usize - 1])
    }
}

/// Segment records, and delivery-rate stamps, per 64-byte cache line.
const SEGMENTS_PER_LINE: usize = 64 / std::mem::size_of::<Segment>();
const STAMPS_PER_LINE: usize = 64 / std::mem::size_of::<TxStamp>();

#[derive(Debug, Default)]
pub struct Scoreboard {
    snd_una: u64,
    segs: VecDeque<Segment>,
    /// The highest SACKed segments.
    highest_sacked: HighestSacked,
    pub sacked_out: u32,
    pub lost_out: u32,
    pub retrans_out: u32,
    /// Loss marking by SACK has examined every segment below this.
    lost_mark_pos: u64,
    /// No segment below this is waiting for a retransmission, except those in `rxt_behind`.
    rxt_pos: u64,
    /// Segments that became due for retransmission below `rxt_pos` (lowest first). Entries are checked
    /// when they reach the top: one retransmitted, SACKed or acknowledged since is dropped then.
    rxt_behind: BinaryHeap<Reverse<u64>>,
    /// One past the highest segment marked lost.
    lost_high: u64,
    /// Segments ever marked lost (Linux `tp->lost`), for rate samples and loss-rate estimates.
    pub lost_total: u64,
    /// Delivery-rate stamps parallel to `segs`; None unless rate sampling is on.
    rate_stamps: Option<VecDeque<TxStamp>>,
    /// Segments newly delivered (ACKed without having been SACKed, or SACKed) since `take_delivered`.
    newly_delivered: u32,
    /// The most recently sent of them.
    newest_delivered: Option<DeliveredSegment>,
    /// Retransmissions in the order they were sent, with snd_nxt at that moment. snd_nxt never
    /// decreases, so the oldest retransmission is always the first that can be found lost.
    retransmissions: VecDeque<(u64, u64)>,
    /// Retransmissions found lost by SACK (not by a timeout).
    pub lost_retransmissions: u64,
    /// Prefetch records ahead (`prefetch_records`).
    prefetch: bool,
}

impl Scoreboard {
    pub fn new() -> Self {
        Self::default()
    }
    /// A board that keeps delivery-rate stamps (before anything is sent).
    pub fn with_rate_stamps() -> Self {
        Scoreboard { rate_stamps: Some(VecDeque::new()), ..Self::default() }
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn snd_nxt(&self) -> u64 {
        self.snd_una + self.segs.len() as u64
    }
    pub fn packets_out(&self) -> u32 {
        self.segs.len() as u32
    }
    /// RFC 6675 pipe / Linux `tcp_packets_in_flight`.
    pub fn in_flight(&self) -> u32 {
        (self.packets_out() + self.retrans_out).saturating_sub(self.sacked_out + self.lost_out)
    }

    fn seg(&self, seq: u64) -> &Segment {
        &self.segs[(seq - self.snd_una) as usize]
    }
    fn seg_mut(&mut self, seq: u64) -> &mut Segment {
        let i = (seq - self.snd_una) as usize;
        &mut self.segs[i]
    }

    pub fn sent_at(&self, seq: u64) -> SimTime {
        self.seg(seq).sent_at
    }
    pub fn is_lost(&self, seq: u64) -> bool {
        self.seg(seq).flags & LOST != 0
    }

    /// Prefetch the records ahead of those pushed and acknowledged (`hint`), for a sender among several
    /// flows: one flow's rings are streams the hardware follows by itself, and there the hint's
    /// instructions only cost (3 % more instructions and 1-2 % more CPU time per packet on seed 000's
    /// example, docs/benchmarks.md run 27).
    pub fn prefetch_records(&mut self) {
        self.prefetch = true;
    }

    /// The cache line after the newest record's, which the next pushes write (one past the ring's end
    /// when the ring wraps there: a wasted fetch), and the same for its stamp.
    #[inline(always)]
    fn prefetch_pushed(&self) {
        if let Some(last) = self.segs.back() {
            prefetch((last as *const Segment).wrapping_add(SEGMENTS_PER_LINE));
        }
        if let Some(last) = self.rate_stamps.as_ref().and_then(|stamps| stamps.back()) {
            prefetch((last as *const TxStamp).wrapping_add(STAMPS_PER_LINE));
        }
    }

    /// The records the next ACKs read: a cache line past those an ACK up to `cum_ack` removes.
    #[inline(always)]
    fn prefetch_acked(&self, cum_ack: u64) {
        let acked = cum_ack.saturating_sub(self.snd_una) as usize;
        if let Some(s) = self.segs.get(acked + SEGMENTS_PER_LINE) {
            prefetch(s);
        }
        if let Some(s) = self.rate_stamps.as_ref().and_then(|stamps| stamps.get(acked + STAMPS_PER_LINE)) {
            prefetch(s);
        }
    }

    /// Record the first transmission of the next new segment; returns its number.
    #[inline(always)]
    pub fn push_new(&mut self, now: SimTime) -> u64 {
        self.push_new_stamped(now, TxStamp::default())
    }

    /// `push_new` with the segment's delivery-rate stamp (kept only when rate sampling is on): one push,
    /// rather than a default stamp overwritten through a second index.
    #[inline(always)]
    pub fn push_new_stamped(&mut self, now: SimTime, stamp: TxStamp) -> u64 {
        let seq = self.snd_nxt();
        self.segs.push_back(Segment { sent_at: now, flags: 0, sacked_run: 0 });
        if let Some(stamps) = &mut self.rate_stamps {
            stamps.push_back(stamp);
        }
        if self.prefetch {
            self.prefetch_pushed();
        }
        seq
    }

    /// Record the delivery-rate stamp of the latest (re)transmission of `seq` (rate sampling only).
    pub fn set_tx_stamp(&mut self, seq: u64, stamp: TxStamp) {
        let i = (seq - self.snd_una) as usize;
        if let Some(stamps) = &mut self.rate_stamps {
            stamps[i] = stamp;
        }
    }

    /// Segments delivered since the last call, and the most recently sent of them; resets both.
    pub fn take_delivered(&mut self) -> (u32, Option<DeliveredSegment>) {
        let delivered = (self.newly_delivered, self.newest_delivered.take());
        self.newly_delivered = 0;
        delivered
    }

    /// A segment was delivered: keep it if it is the most recently sent so far (latest send time; among
    /// equal times the later-visited, i.e. higher, segment, as Linux `tcp_skb_sent_after`).
    fn note_delivered(&mut self, stamp: TxStamp, sent_at: SimTime) {
        self.newly_delivered += 1;
        if self.newest_delivered.map_or(true, |d| sent_at >= d.sent_at) {
            self.newest_delivered = Some(DeliveredSegment { stamp, sent_at });
        }
    }

    /// Record a retransmission of `seq`.
    pub fn on_retransmit(&mut self, seq: u64, now: SimTime) {
        let s = self.seg_mut(seq);
        debug_assert!(s.flags & (RETRANS | SACKED) == 0);
        s.flags |= RETRANS | EVER_RETRANS;
        s.sent_at = now;
        self.retrans_out += 1;
        let snd_nxt = self.snd_nxt();
        self.retransmissions.push_back((seq, snd_nxt));
    }

    /// The retransmission of `seq` in flight is presumed lost (F-RTO's repeated timeout, `tcp/frto.rs`):
    /// it no longer counts in pipe, and `seq` may be retransmitted again.
    pub fn clear_retransmission(&mut self, seq: u64) {
        let s = self.seg_mut(seq);
        if s.flags & RETRANS != 0 {
            s.flags &= !RETRANS;
            self.retrans_out -= 1;
        }
    }

    /// Lost retransmissions (Linux 2.6 `tcp_mark_lost_retrans`; ns-2's ScoreBoard1 does the same): a
    /// retransmission is lost once segments sent more than DupThresh after it are SACKed. It is marked
    /// for retransmission again instead of waiting for the RTO. Returns how many were found.
    #[inline(always)]
    pub fn mark_lost_retransmissions(&mut self) -> u32 {
        // No retransmission outstanding (no loss): nothing to find, tested without a call.
        if self.retransmissions.is_empty() {
            return 0;
        }
        self.find_lost_retransmissions()
    }

    #[inline(never)]
    fn find_lost_retransmissions(&mut self) -> u32 {
        let highest_sacked_end = self.highest_sacked_end();
        let mut found = 0;
        while let Some(&(seq, snd_nxt_then)) = self.retransmissions.front() {
            let in_flight = seq >= self.snd_una && self.seg(seq).flags & RETRANS != 0;
            if in_flight {
                if highest_sacked_end <= snd_nxt_then + DUP_THRESH {
                    break; // nothing sent after it is SACKed far enough yet: neither is anything later
                }
                // Still LOST from its first loss: clearing RETRANS makes it eligible for NextSeg again.
                self.seg_mut(seq).flags &= !RETRANS;
                self.retrans_out -= 1;
                self.due_for_retransmission(seq);
                self.lost_total += 1;
                self.lost_retransmissions += 1;
                found += 1;
            }
            self.retransmissions.pop_front();
        }
        give_back_spare(&mut self.retransmissions, QUEUE_FLOOR);
        found
    }

    /// Cumulative ACK up to (not including) `cum_ack`. Returns the number of newly acknowledged segments
    /// and whether any of them had ever been retransmitted.
    pub fn advance(&mut self, cum_ack: u64) -> (u32, bool) {
        let cum_ack = cum_ack.min(self.snd_nxt());
        let mut acked = 0;
        let mut any_retransmitted = false;
        if self.prefetch {
            self.prefetch_acked(cum_ack);
        }
        while self.snd_una < cum_ack {
            let s = self.segs.pop_front().expect("segment below snd_nxt");
            if let Some(stamps) = &mut self.rate_stamps {
                let stamp = stamps.pop_front().expect("one stamp per segment");
                if s.flags & SACKED == 0 {
                    self.note_delivered(stamp, s.sent_at);
                }
            }
            // Most segments were sent once and acknowledged in order: no flag set, one test.
            if s.flags != 0 {
                if s.flags & SACKED != 0 {
                    self.sacked_out -= 1;
                }
                if s.flags & LOST != 0 {
                    self.lost_out -= 1;
                }
                if s.flags & RETRANS != 0 {
                    self.retrans_out -= 1;
                }
                any_retransmitted |= s.flags & EVER_RETRANS != 0;
            }
            self.snd_una += 1;
            acked += 1;
        }
        let una = self.snd_una;
        self.highest_sacked.remove_below(una);
        self.lost_mark_pos = self.lost_mark_pos.max(una);
        self.rxt_pos = self.rxt_pos.max(una);
        (acked, any_retransmitted)
    }

    /// Merge one SACK block; returns the number of newly SACKed segments.
    pub fn add_sack(&mut self, block: SeqRange) -> u32 {
        let start = block.start.max(self.snd_una);
        let end = block.end.min(self.snd_nxt());
        if start >= end {
            return 0;
        }
        // The segments not yet SACKed in [start, end), in increasing order.
        let mut newly = 0;
        let mut seq = self.next_unsacked(start);
        while seq < end {
            self.mark_sacked(seq);
            newly += 1;
            seq = self.next_unsacked(seq + 1);
        }
        newly
    }

    /// The first segment at or after `seq` that is not SACKed, or snd_nxt. Follows the SACKed segments'
    /// forward links, then points every segment passed straight at the answer (path compression).
    fn next_unsacked(&mut self, seq: u64) -> u64 {
        let snd_nxt = self.snd_nxt();
        let mut found = seq;
        while found < snd_nxt {
            let s = self.seg(found);
            if s.flags & SACKED == 0 {
                break;
            }
            found += s.sacked_run as u64;
        }
        let mut passed = seq;
        while passed < found {
            let s = self.seg_mut(passed);
            let next = passed + s.sacked_run as u64;
            s.sacked_run = (found - passed) as u32;
            passed = next;
        }
        found
    }

    fn mark_sacked(&mut self, seq: u64) {
        let s = self.seg_mut(seq);
        let flags = s.flags;
        s.flags = (flags | SACKED) & !(LOST | RETRANS);
        s.sacked_run = 1;
        if flags & LOST != 0 {
            self.lost_out -= 1;
        }
        if flags & RETRANS != 0 {
            self.retrans_out -= 1;
        }
        if let Some(stamps) = &self.rate_stamps {
            let (stamp, sent_at) = (stamps[(seq - self.snd_una) as usize], self.seg(seq).sent_at);
            self.note_delivered(stamp, sent_at);
        }
        self.sacked_out += 1;
        self.highest_sacked.insert(seq);
    }

    /// The `k`-th highest SACKed segment (k = 1: the highest), for k up to DupThresh; None if fewer are
    /// SACKed. The loss-marking rules (tcp/recovery/) read their boundary from it.
    pub fn highest_sacked(&self, k: u64) -> Option<u64> {
        self.highest_sacked.kth(k)
    }

    /// Mark lost every segment below `boundary` that is neither SACKed nor marked yet (a loss-marking
    /// rule found them lost). Segments below an earlier call's boundary were examined then and are not
    /// visited again. Returns how many were newly marked.
    pub fn mark_lost_below(&mut self, boundary: u64) -> u32 {
        let mut marked = 0;
        let from = self.lost_mark_pos.max(self.snd_una);
        for seq in from..boundary {
            let s = self.seg_mut(seq);
            if s.flags & (SACKED | LOST) == 0 {
                s.flags |= LOST;
                marked += 1;
                self.due_for_retransmission(seq);
            }
        }
        if marked > 0 {
            self.lost_out += marked;
            self.lost_total += marked as u64;
            self.lost_high = self.lost_high.max(boundary);
        }
        self.lost_mark_pos = self.lost_mark_pos.max(boundary);
        marked
    }

    /// Mark one segment lost (NewReno fast retransmit and partial ACKs).
    pub fn mark_lost(&mut self, seq: u64) {
        let s = self.seg_mut(seq);
        if s.flags & (SACKED | LOST | RETRANS) == 0 {
            s.flags |= LOST;
            self.lost_out += 1;
            self.lost_total += 1;
            self.lost_high = self.lost_high.max(seq + 1);
            self.due_for_retransmission(seq);
        }
    }

    /// `seq` has just become due for retransmission (lost, no retransmission in flight). The cursor finds
    /// it if it lies ahead; behind the cursor, it waits in `rxt_behind`.
    fn due_for_retransmission(&mut self, seq: u64) {
        if seq < self.rxt_pos {
            self.rxt_behind.push(Reverse(seq));
        }
    }

    /// Forget every SACK (ns-2 Sack1's `ClearScoreBoard` at a timeout): the segments SACKed so far are
    /// outstanding and unmarked again, so a timeout's `mark_all_lost` then takes them too and they are
    /// sent again (go-back-N). A delivery-rate sampler would count them delivered a second time when the
    /// cumulative ACK passes them; the rule that calls this is ns-2's, which has none.
    pub fn forget_sacks(&mut self) {
        if self.sacked_out == 0 {
            return;
        }
        for s in self.segs.iter_mut() {
            s.flags &= !SACKED;
        }
        self.sacked_out = 0;
        self.highest_sacked = HighestSacked::default();
    }

    /// Retransmission timeout: every segment not SACKed is lost, and retransmissions in flight are
    /// presumed lost too (RFC 6675 section 5.1; Linux `tcp_enter_loss`).
    pub fn mark_all_lost(&mut self) {
        let mut lost = 0;
        let mut newly_lost = 0;
        for s in self.segs.iter_mut() {
            if s.flags & SACKED == 0 {
                newly_lost += u64::from(s.flags & LOST == 0);
                s.flags = (s.flags | LOST) & !RETRANS;
                lost += 1;
            }
        }
        self.lost_total += newly_lost;
        self.lost_out = lost;
        self.retrans_out = 0;
        self.retransmissions.clear();
        give_back_spare(&mut self.retransmissions, QUEUE_FLOOR);
        self.rxt_pos = self.snd_una;
        self.rxt_behind.clear();
        give_back_spare(&mut self.rxt_behind, QUEUE_FLOOR);
        self.give_back_window_room();
        self.lost_high = self.snd_nxt();
        self.lost_mark_pos = self.snd_nxt();
    }

    /// Memory follows the window (`spare`): a board that held a slow-start overshoot's window gives the
    /// room back once the window is far smaller. Windows shrink only through losses, so this runs on
    /// the loss paths (a timeout, the search for the next retransmission), not on every ACK.
    fn give_back_window_room(&mut self) {
        give_back_spare(&mut self.segs, SEGS_FLOOR);
        if let Some(stamps) = &mut self.rate_stamps {
            give_back_spare(stamps, SEGS_FLOOR);
        }
    }

    /// The lowest lost segment that has no retransmission in flight (RFC 6675 NextSeg rule 1).
    #[inline(always)]
    pub fn next_retransmit(&mut self) -> Option<u64> {
        // Nothing due behind the cursor, and the cursor past every segment marked lost: the common case
        // (no loss), tested here without a call.
        if self.rxt_behind.is_empty() && self.rxt_pos >= self.lost_high.min(self.snd_nxt()) {
            return None;
        }
        self.find_retransmit()
    }

    #[inline(never)]
    fn find_retransmit(&mut self) -> Option<u64> {
        // Anything due behind the cursor is lower than anything ahead of it.
        while let Some(&Reverse(seq)) = self.rxt_behind.peek() {
            if seq >= self.snd_una && self.seg(seq).flags & (LOST | RETRANS | SACKED) == LOST {
                return Some(seq);
            }
            self.rxt_behind.pop();
        }
        give_back_spare(&mut self.rxt_behind, QUEUE_FLOOR);
        self.give_back_window_room();
        let end = self.lost_high.min(self.snd_nxt());
        while self.rxt_pos < end {
            let seq = self.rxt_pos;
            if self.seg(seq).flags & (LOST | RETRANS | SACKED) == LOST {
                return Some(seq);
            }
            self.rxt_pos += 1;
        }
        None
    }

    /// NewReno without SACK: Linux's emulation counts each duplicate ACK as one SACKed segment
    /// (`tcp_add_reno_sack`) and takes them back on cumulative ACKs (`tcp_remove_reno_sacks`).
    pub fn set_emulated_sacked(&mut self, sacked: u32) {
        self.sacked_out = sacked.min(self.packets_out().saturating_sub(self.lost_out));
    }

    /// Highest SACKed segment + 1, or snd_una.
    pub fn highest_sacked_end(&self) -> u64 {
        self.highest_sacked.kth(1).map_or(self.snd_una, |seq| seq + 1)
    }

    /// Consistency check used by tests: counters agree with the per-segment flags.
    pub fn check_invariants(&self) {
        let count = |f: u8| self.segs.iter().filter(|s| s.flags & f != 0).count() as u32;
        let sacked: Vec<u64> =
            (self.snd_una..self.snd_nxt()).filter(|&seq| self.seg(seq).flags & SACKED != 0).collect();
        // NewReno's emulated count has no SACKed segments behind it.
        if !sacked.is_empty() || self.sacked_out == 0 {
            assert_eq!(self.sacked_out as usize, sacked.len(), "sacked_out");
        }
        assert_eq!(self.lost_out, count(LOST), "lost_out");
        assert_eq!(self.retrans_out, count(RETRANS), "retrans_out");
        assert!(self.in_flight() <= self.packets_out() + self.retrans_out);
        // The highest SACKed segments.
        let highest: Vec<u64> = sacked.iter().rev().take(DUP_THRESH as usize).copied().collect();
        assert_eq!(&self.highest_sacked.seqs[..self.highest_sacked.len], &highest[..], "highest SACKed");
        // Each SACKed segment's link lands inside its run of SACKed segments or just past it.
        let mut run_end = self.snd_nxt();
        for seq in (self.snd_una..self.snd_nxt()).rev() {
            if self.seg(seq).flags & SACKED == 0 {
                run_end = seq;
                continue;
            }
            let link = self.seg(seq).sacked_run as u64;
            assert!(link >= 1 && seq + link <= run_end, "link of SACKed segment {seq}: {link}, run ends at {run_end}");
        }
        // NextSeg finds every segment due: each one behind the cursor waits in `rxt_behind`.
        let behind: std::collections::HashSet<u64> = self.rxt_behind.iter().map(|&Reverse(seq)| seq).collect();
        for seq in self.snd_una..self.rxt_pos.min(self.snd_nxt()) {
            if self.seg(seq).flags & (LOST | RETRANS | SACKED) == LOST {
                assert!(behind.contains(&seq), "segment {seq} due but not found");
            }
        }
    }
}

#[cfg(test)]
impl Scoreboard {
    /// A board with segments 0..n sent at time 0 (the scoreboard's and the recovery rules' tests).
    pub(crate) fn with_sent(n: u64) -> Self {
        let mut sb = Scoreboard::new();
        for _ in 0..n {
            sb.push_new(SimTime(0));
        }
        sb
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::recovery::ns2_linux::mark_lost_by_fack;
    use crate::tcp::recovery::rfc6675::mark_lost_by_sack;

    fn r(start: u64, end: u64) -> SeqRange {
        SeqRange { start, end }
    }

    #[test]
    fn prefetching_records_changes_nothing_a_board_holds() {
        // Two boards with rate stamps, one prefetching: pushes across ring growth and wraps, ACKs that
        // remove nothing, one record, and more than a cache line's worth at once, an old ACK below
        // snd_una, SACKs; both read the same at every step.
        let mut plain = Scoreboard::with_rate_stamps();
        let mut prefetching = Scoreboard::with_rate_stamps();
        prefetching.prefetch_records();
        let read = |sb: &Scoreboard| (sb.snd_una(), sb.snd_nxt(), sb.packets_out(), sb.sacked_out, sb.in_flight());
        let mut sent = 0u64;
        for round in 0..40u64 {
            for _ in 0..(round % 7 + 1) {
                let stamp = TxStamp { delivered: sent, ..TxStamp::default() };
                assert_eq!(plain.push_new_stamped(SimTime(sent), stamp), prefetching.push_new_stamped(SimTime(sent), stamp));
                sent += 1;
            }
            let cum_ack = plain.snd_una() + round % 6;
            for sb in [&mut plain, &mut prefetching] {
                sb.advance(cum_ack.saturating_sub(2 * (round % 3 == 0) as u64));
                if sb.snd_una() + 2 <= sb.snd_nxt() {
                    sb.add_sack(r(sb.snd_una() + 1, sb.snd_una() + 2));
                }
            }
            assert_eq!(read(&plain), read(&prefetching));
            assert_eq!(plain.take_delivered(), prefetching.take_delivered());
        }
        plain.check_invariants();
        prefetching.check_invariants();
    }

    #[test]
    fn repeated_and_overlapping_sack_blocks_count_once() {
        let mut sb = Scoreboard::with_sent(20);
        assert_eq!(sb.add_sack(r(5, 8)), 3);
        assert_eq!(sb.add_sack(r(5, 9)), 1);
        assert_eq!(sb.add_sack(r(12, 14)), 2);
        assert_eq!(sb.add_sack(r(4, 15)), 5); // fills 4, 9..12 and 14
        assert_eq!(sb.sacked_out, 11);
        // One SACKed run, 4..15: 3 and 15 are not SACKed.
        assert_eq!((sb.next_unsacked(3), sb.next_unsacked(4), sb.next_unsacked(9)), (3, 15, 15));
        sb.check_invariants();
    }

    #[test]
    fn the_three_highest_sacked_segments_are_kept_in_any_order_of_arrival() {
        // SACKed in the order 5, 9, 2, 7, 8: the three highest are 9, 8, 7. snd_una passing 8 leaves 9.
        let mut h = HighestSacked::default();
        for seq in [5, 9, 2] {
            h.insert(seq);
        }
        assert_eq!((h.kth(1), h.kth(2), h.kth(3)), (Some(9), Some(5), Some(2)));
        h.insert(7);
        h.insert(8);
        assert_eq!(&h.seqs[..h.len], &[9, 8, 7]);
        h.insert(1); // below all three: no change
        assert_eq!(&h.seqs[..h.len], &[9, 8, 7]);
        h.remove_below(9);
        assert_eq!((h.kth(1), h.kth(2)), (Some(9), None));
    }

    #[test]
    fn a_repeated_sack_block_follows_links_instead_of_its_segments() {
        // 0..1000 out, 1..1000 SACKed in one block. The same block again finds nothing new; the link of
        // segment 1 points straight past the run (to snd_nxt = 1000) after the first lookup.
        let mut sb = Scoreboard::with_sent(1000);
        assert_eq!(sb.add_sack(r(1, 1000)), 999);
        assert_eq!(sb.add_sack(r(1, 1000)), 0);
        assert_eq!(sb.seg(1).sacked_run, 999);
        // A block reaching beyond the run's start into a hole marks only the hole.
        assert_eq!(sb.add_sack(r(0, 1000)), 1);
        sb.check_invariants();
    }

    #[test]
    fn several_holes_in_one_window_are_all_marked_and_retransmitted_in_order() {
        // 0..20 out; 2, 5 and 9 lost; everything else up to 19 SACKed (ACKs cover 0 and 1 cumulatively).
        let mut sb = Scoreboard::with_sent(20);
        sb.advance(2);
        sb.add_sack(r(3, 5));
        sb.add_sack(r(6, 9));
        sb.add_sack(r(10, 20));
        assert_eq!(mark_lost_by_sack(&mut sb), 3);
        let mut order = vec![];
        while let Some(seq) = sb.next_retransmit() {
            sb.on_retransmit(seq, SimTime(1));
            order.push(seq);
        }
        assert_eq!(order, vec![2, 5, 9]);
        // The retransmission of 2 arrives: cumulative ACK jumps to 5.
        let (acked, rexmit) = sb.advance(5);
        assert_eq!((acked, rexmit), (3, true));
        assert_eq!((sb.lost_out, sb.retrans_out), (2, 2));
        sb.check_invariants();
    }

    #[test]
    fn a_lost_retransmission_is_found_by_later_sacks() {
        // 0..10 out; 0 lost and retransmitted when snd_nxt = 10. New segments 10..15 are sent after it.
        // SACKs up to 13 (only 3 beyond the retransmission point: could be reordering) find nothing;
        // SACKing 14 (4 beyond) shows the retransmission was lost: it is due again, pipe drops by one.
        let mut sb = Scoreboard::with_sent(10);
        sb.add_sack(r(1, 10));
        mark_lost_by_sack(&mut sb);
        sb.on_retransmit(0, SimTime(1));
        for _ in 0..5 {
            sb.push_new(SimTime(2));
        }
        sb.add_sack(r(10, 13));
        assert_eq!(sb.mark_lost_retransmissions(), 0);
        assert_eq!(sb.next_retransmit(), None);
        sb.add_sack(r(13, 15));
        let pipe_before = sb.in_flight();
        assert_eq!(sb.mark_lost_retransmissions(), 1);
        assert_eq!(sb.in_flight(), pipe_before - 1);
        assert_eq!(sb.next_retransmit(), Some(0));
        sb.check_invariants();
    }

    #[test]
    fn timeout_marks_everything_not_sacked_lost() {
        let mut sb = Scoreboard::with_sent(6);
        sb.add_sack(r(4, 5));
        sb.mark_lost(0);
        sb.on_retransmit(0, SimTime(1));
        sb.mark_all_lost();
        assert_eq!((sb.lost_out, sb.retrans_out, sb.in_flight()), (5, 0, 0));
        assert_eq!(sb.next_retransmit(), Some(0));
        sb.check_invariants();
    }

    /// One step of a random exercise of the board.
    #[derive(Clone, Debug)]
    enum Op {
        Send(u64),
        /// A SACK block at this offset from snd_una and of this length (may reach past snd_nxt).
        Sack(u64, u64),
        Ack(u64),
        MarkLost,
        MarkOne(u64),
        Retransmit,
        Timeout,
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        prop_oneof![
            2 => (1u64..40).prop_map(Op::Send),
            6 => (0u64..120, 1u64..30).prop_map(|(at, len)| Op::Sack(at, len)),
            1 => (1u64..10).prop_map(Op::Ack),
            3 => Just(Op::MarkLost),
            1 => (0u64..20).prop_map(Op::MarkOne),
            4 => Just(Op::Retransmit),
            1 => Just(Op::Timeout),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 300, ..Default::default() })]

        /// Whatever happens, the counters, links and cursors stay consistent with the segments' flags, a
        /// SACK block reports exactly the segments it newly covers, loss marking leaves no segment unmarked
        /// that its rule calls lost, and NextSeg returns the lowest segment due.
        #[test]
        fn the_board_agrees_with_its_definitions(ops in proptest::collection::vec(op(), 1..150), fack in proptest::bool::ANY) {
            let mut sb = Scoreboard::new();
            let flags = |sb: &Scoreboard| (sb.snd_una()..sb.snd_nxt()).map(|seq| (seq, sb.seg(seq).flags)).collect::<Vec<_>>();
            for (step, op) in ops.into_iter().enumerate() {
                let now = SimTime(step as u64);
                match op {
                    Op::Send(n) => for _ in 0..n { sb.push_new(now); },
                    Op::Sack(at, len) => {
                        let block = r(sb.snd_una() + at, sb.snd_una() + at + len);
                        let unsacked = flags(&sb).iter()
                            .filter(|&&(seq, f)| seq >= block.start && seq < block.end && f & SACKED == 0)
                            .count() as u32;
                        proptest::prop_assert_eq!(sb.add_sack(block), unsacked);
                    }
                    Op::Ack(k) => { sb.advance(sb.snd_una() + k); }
                    Op::MarkLost => {
                        if fack { mark_lost_by_fack(&mut sb) } else { mark_lost_by_sack(&mut sb) };
                        sb.mark_lost_retransmissions();
                        let f = flags(&sb);
                        let sacked: Vec<u64> = f.iter().filter(|p| p.1 & SACKED != 0).map(|p| p.0).collect();
                        for &(seq, fl) in &f {
                            let above = sacked.iter().filter(|&&s| s > seq).count() as u64;
                            let lost_by_rule = if fack {
                                sacked.last().is_some_and(|&high| high > seq + DUP_THRESH)
                            } else {
                                above >= DUP_THRESH
                            };
                            if lost_by_rule && fl & SACKED == 0 {
                                proptest::prop_assert!(fl & LOST != 0, "segment {} not marked lost", seq);
                            }
                        }
                    }
                    Op::MarkOne(k) => if sb.snd_una() + k < sb.snd_nxt() { sb.mark_lost(sb.snd_una() + k); },
                    Op::Retransmit => {
                        let lowest_due = flags(&sb).iter().find(|p| p.1 & (LOST | RETRANS | SACKED) == LOST).map(|p| p.0);
                        let next = sb.next_retransmit();
                        proptest::prop_assert_eq!(next, lowest_due);
                        if let Some(seq) = next {
                            sb.on_retransmit(seq, now);
                        }
                    }
                    Op::Timeout => sb.mark_all_lost(),
                }
                sb.check_invariants();
            }
        }
    }
}
