//! Endpoints of several flows that take their packets at the hand-off, ahead of the arrival: the
//! receiver each data packet the bottleneck hands to its access link, the sender each ACK the reverse
//! bottleneck hands to its access link. The link is plain and unbounded, so the arrival time is known at
//! the hand-off; the endpoint takes the packet then, as of its arrival, and what it sends enters the next
//! link as of that time. Two events per data packet instead of four (docs/benchmarks.md, run 30).
//!
//! What makes it exact is tie rule R (`event.rs`): an event's key holds the simulated time it was
//! scheduled at, and work taken ahead numbers its events as of the arrival it stands for
//! (`EventQueue::work_as_of`). Two orders still have to be kept by hand, and are:
//! - an ACK (or data packet) put on the first link's line as of a time after that line's last arrival
//!   enters, packet by packet, an empty line, and its arrival event is scheduled at its entry, not at
//!   the arrival of the packet before it, as the line schedules its next head. It goes on the line at
//!   once, and the line's entry is marked (`restarts`: its arrival and its entry), so that the arrival
//!   before it schedules its event as of its entry (`schedule_line_head`). Until run 33 such a packet
//!   waited off the line until the line emptied, and every later one of the line behind it;
//! - the sender's timer and the readings: an ACK waits in its flow's queue (`SenderAhead::waiting`)
//!   while a timer event of its flow that has work to do, the end of the step or the measurement's start
//!   comes first. A timer event with nothing to do is fired ahead instead (`fire_idle_timer_ahead`), and
//!   samples read a row of the sender kept for them before it took the ACK (`sim/sender_rows.rs`).
//!
//! A lone flow has its own, older path (`Simulation::link_received_at_hand_off`, `acks_ahead`,
//! `data_ahead`), which also takes its ACKs and data over both bottlenecks; this one serves runs of two
//! flows or more, and runs with traffic sources. A source's connections share its four access links, so
//! they never take this path; the scenario's flows beside them do. Both give the packet-by-packet results
//! bit for bit (tests/receiving_ahead_fuzz.rs, 270 fingerprints with and without samples).

use std::collections::VecDeque;

use super::fifos::Fifos;
use super::sender_rows::{KeptRows, SenderRow};
use super::Simulation;
use crate::net::packet::{Direction, Packet};
use crate::time::{SimDuration, SimTime};

/// Who takes the packets a hand-off link passes to link `l` (`Simulation::takers`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Taker {
    /// The link itself: the packet goes on its line (or into its queue).
    Link,
    /// The flow's receiver, at once, as of the packet's arrival (`receive_at_hand_off`).
    Receiver,
    /// The flow's sender, as of the ACK's arrival, in turn (`send_at_hand_off`).
    Sender,
}

/// An entry of a line that, packet by packet, entered the line empty: its arrival at the far end (no
/// earlier entry of the line arrives then, since it entered after the last one's arrival) and its entry,
/// when its arrival event is scheduled.
#[derive(Copy, Clone)]
struct Restart {
    arrival: SimTime,
    entered: SimTime,
}

/// An ACK a sender takes ahead: `at` its arrival, `scheduled` when a packet-by-packet run schedules that
/// arrival (the hand-off, or the arrival of the ACK before it on the line, if later).
#[derive(Copy, Clone)]
struct WaitingAck {
    at: SimTime,
    scheduled: SimTime,
    ack: Packet,
}

/// A sender taking its ACKs ahead.
#[derive(Default)]
pub(super) struct SenderAhead {
    /// ACKs handed to the sender's access link, in order, not yet taken. A deque per flow, not a slab's
    /// list (as `SeveralAhead::restarts`): up to the reverse path's delay of a flow's ACKs wait here
    /// before each sample and are taken one flow after another after it, which contiguous storage makes
    /// cheaper (run 30).
    waiting: VecDeque<WaitingAck>,
    /// The arrival of the last ACK handed off (the line's last arrival, packet by packet).
    last_arrival: SimTime,
    /// When the pending timer event was scheduled (its tie against an ACK due with it): the earliest of
    /// the flow's timer events in the heap at its time, a superseded one included (`superseded`).
    pub(super) timer_scheduled: SimTime,
    /// The flow's timer events still in the heap that are no longer its `sender_timer` (an earlier
    /// deadline took its place, or it was fired ahead), each with its time and when it was scheduled. Such
    /// an event still fires the timer if the deadline comes back to its very time: then it, not the event
    /// scheduled for the new deadline, is the one an ACK due at that instant is ordered against (tie rule
    /// R). Empty but for flows whose deadline moves earlier (pacing, the delayed send, an RTO that shrinks).
    /// In (time, scheduled) order: events leave the heap in that order, so the first one leaves first, and
    /// one per RTO deadline left behind by pacing wake-ups is mostly pushed at the back.
    superseded: VecDeque<(SimTime, SimTime)>,
    /// The most ACKs that waited at once since `waiting` last emptied, and in the burst before
    /// (`SenderAhead::give_back`).
    high: usize,
    last_burst: usize,
    /// The sender as samples still to come read it, kept when it took an ACK past them (`sender_rows.rs`).
    pub(super) rows: KeptRows,
}

/// State of the several-flow path; empty (and untouched) in runs that do not take it.
pub(super) struct SeveralAhead {
    /// Per link, the entries of its line that entered it empty packet by packet (see the module comment),
    /// in line order; no queue when no flow takes this path. A few per line at most times; the slab's
    /// memory is the most marked at once over all lines.
    restarts: Fifos<Restart>,
    /// Per flow, when some sender takes its ACKs ahead.
    pub(super) senders: Vec<SenderAhead>,
}

impl Default for SeveralAhead {
    fn default() -> Self {
        Self { restarts: Fifos::new(0), senders: Vec::new() }
    }
}

/// A queue that fills again takes room for at least this many ACKs at once.
const KEPT_ROOM: usize = 16;

impl SenderAhead {
    /// When this flow's timer event for deadline `d` counts as scheduled, if it is scheduled as of `now`: a
    /// superseded event at `d` scheduled earlier pops first and fires the timer in its place.
    #[inline(always)]
    pub(super) fn timer_scheduled_for(&self, d: SimTime, now: SimTime) -> SimTime {
        if self.superseded.is_empty() {
            return now;
        }
        let i = self.superseded.partition_point(|&(t, _)| t < d);
        match self.superseded.get(i) {
            Some(&(t, scheduled)) if t == d => scheduled.min(now),
            _ => now,
        }
    }

    /// An ACK that cannot be taken yet waits behind the others. A queue without room takes, at once, room
    /// for as many as waited in the last burst.
    #[inline(always)]
    fn wait(&mut self, ack: WaitingAck) {
        if self.waiting.capacity() == 0 {
            self.waiting.reserve(self.last_burst.max(KEPT_ROOM));
        }
        self.waiting.push_back(ack);
        self.high = self.high.max(self.waiting.len());
    }

    /// Once the queue has emptied, give all its room back, and remember how much the burst just taken
    /// needed. ACKs wait in bursts that recur at every sample (up to the reverse path's delay of them):
    /// growing room by doubling through a burst and giving it back by halves as it drained cost 3-4 % of
    /// a 1000-flow run in reallocations and copies (docs/benchmarks.md, run 31); one allocation of the
    /// last burst's size and one release cost a fraction of that. Keeping the room instead cost up to 20 %
    /// more peak memory: the room sat idle while the access lines filled after each sample.
    #[inline(always)]
    fn give_back(&mut self) {
        if self.waiting.is_empty() && self.high > 0 {
            self.last_burst = self.high;
            self.high = 0;
            self.waiting = VecDeque::new();
        }
    }
}

impl SeveralAhead {
    /// Whether the run takes no packet on this path (then no line has marked entries).
    #[inline(always)]
    pub(super) fn is_off(&self) -> bool {
        self.restarts.queues() == 0
    }
}

impl Simulation {
    /// How many of the flows' routes pass each link.
    pub(super) fn link_users(&self) -> Vec<u32> {
        let mut users = vec![0u32; self.links.len()];
        for f in 0..self.flows.len() as u32 {
            for dir in [Direction::Forward, Direction::Reverse] {
                for &l in self.routes.path(f, dir) {
                    users[l as usize] += 1;
                }
            }
        }
        users
    }

    /// Set up the several-flow path: which links' packets their receiver or sender takes, in a run of two
    /// flows or more or with traffic sources. It is set up for the scenario's flows only, the ones there
    /// are now: a source's connections come later, into slots beyond them, over their source's shared
    /// access links (`link_users` never counts them, and those links are no flow's own).
    pub(super) fn take_several_ahead(&mut self) {
        if self.sources.is_empty() && self.flows.len() < 2 {
            return;
        }
        let receivers = self.links_received_ahead();
        let senders = self.links_sent_ahead();
        if receivers.is_empty() && senders.is_empty() {
            return;
        }
        for l in receivers {
            self.takers[l] = Taker::Receiver;
        }
        for &l in &senders {
            self.takers[l] = Taker::Sender;
        }
        self.several.restarts = Fifos::new(self.links.len());
        if !senders.is_empty() {
            self.several.senders = (0..self.flows.len()).map(|_| SenderAhead::default()).collect();
        }
    }

    /// Flow `f`'s receiver's access link, the link before it and the first link back, if the receiver may
    /// take its packets at the hand-off as far as the links go: no delayed ACKs, the link and the first
    /// link back plain, unbounded and the flow's own (`users`, from `link_users`), fed by a hand-off link,
    /// and the link back not the one the queue series samples (it samples the bottleneck's bytes, which
    /// ACKs entering ahead of time would count early; `topology.bottleneck` may name the link back). The
    /// samples' order decides the rest, differently for a lone flow (`link_received_at_hand_off`) and for
    /// several (`links_received_ahead`).
    pub(super) fn receiver_links_ahead(&self, f: u32, users: &[u32]) -> Option<(u32, u32, u32)> {
        let own_plain_link = |l: u32| users[l as usize] == 1 && self.links[l as usize].is_plain_unbounded();
        let [.., before, last] = *self.routes.path(f, Direction::Forward) else { return None };
        let &ack_first = self.routes.path(f, Direction::Reverse).first()?;
        let eligible = !self.cfg.flows[f as usize].delayed_ack
            && self.links[before as usize].hands_off()
            && own_plain_link(last)
            && own_plain_link(ack_first)
            && ack_first as usize != self.bottleneck;
        eligible.then_some((before, last, ack_first))
    }

    /// The receivers' access links whose packets the receiver takes at the hand-off: those of
    /// `receiver_links_ahead`, with samples scheduled before any hand-off whose arrivals fall on their time
    /// (`samples_precede_hand_offs`).
    fn links_received_ahead(&self) -> Vec<usize> {
        let users = self.link_users();
        (0..self.flows.len() as u32)
            .filter_map(|f| {
                let (before, last, ack_first) = self.receiver_links_ahead(f, &users)?;
                self.samples_precede_hand_offs(before, last, ack_first, false).then_some(last as usize)
            })
            .collect()
    }

    /// The senders' access links whose ACKs the sender takes at the hand-off: the ACK route's last link
    /// and the data route's first plain, unbounded, the flow's own and not handing off, the link before
    /// it handing off, with samples further apart than the ACK's way over the access link (then an ACK
    /// taken ahead never has to be taken between a sample's scheduling and its firing; one due with a
    /// sample is ordered against it by `ack_precedes_sample`). Flows that stop or end take it too: the
    /// sender reads its stop against the ACK's arrival, and a transfer ends as of the arrival of the ACK
    /// that completes it (`sender_takes`); only a traffic source's connection retires, and connections
    /// take none of this path.
    fn links_sent_ahead(&self) -> Vec<usize> {
        let users = self.link_users();
        let own_plain_link = |l: u32| {
            let link = &self.links[l as usize];
            users[l as usize] == 1 && link.is_plain_unbounded() && !link.hands_off()
        };
        let mut out = vec![];
        for f in 0..self.flows.len() as u32 {
            let [.., before, last] = *self.routes.path(f, Direction::Reverse) else { continue };
            let Some(&data_first) = self.routes.path(f, Direction::Forward).first() else { continue };
            let k = &self.links[last as usize];
            let way = k.rate().tx_time(self.cfg.ack_size).0 + k.delay().0;
            let sampled_apart = self.sample_interval == SimDuration::ZERO || self.sample_interval.0 > way;
            if sampled_apart
                && self.links[before as usize].hands_off()
                && own_plain_link(last)
                && own_plain_link(data_first)
                && last as usize != self.bottleneck
            {
                out.push(last as usize);
            }
        }
        out
    }

    /// Put `pkt`, which enters plain link `link` as of `entered` and reaches its far end at `reaches`, on
    /// the link's line; if the line's last arrival comes before its entry, mark it (module comment): packet
    /// by packet the line is empty when it enters, and its event is scheduled then.
    #[inline(always)]
    pub(super) fn put_on_line_as_of(&mut self, link: usize, entered: SimTime, reaches: SimTime, pkt: Packet) {
        if self.links[link].line_tail_arrival().is_some_and(|t| t < entered) {
            self.several.restarts.push_back(link, Restart { arrival: reaches, entered });
        }
        self.links[link].put_on_line(reaches, pkt, &mut self.events, &mut self.lines);
    }

    /// Schedule the event of link `l`'s new line head, arriving at `next`: as of its entry if it is the
    /// line's next marked entry (`put_on_line_as_of`), else now, as the arrival before it does packet by
    /// packet. Arrivals on a plain line strictly increase up to a marked entry (it entered after the one
    /// before arrived), so the first head arriving at a mark's time is the marked one.
    #[inline(always)]
    pub(super) fn schedule_line_head(&mut self, l: usize, next: SimTime) {
        let restarts = &mut self.several.restarts;
        let marked = l < restarts.queues() && restarts.front(l).is_some_and(|r| r.arrival == next);
        match marked.then(|| restarts.pop_front(l)).flatten() {
            Some(Restart { entered, .. }) => {
                self.events.work_as_of(entered);
                self.links[l].schedule_head(next, &mut self.events);
                self.events.work_now();
            }
            None => self.links[l].schedule_head(next, &mut self.events),
        }
    }

    /// `ack` enters its sender's access link `link` at `arrival` (now); it reaches the sender at a time
    /// known now, and is taken at once if nothing that comes first packet by packet is left, else waits in
    /// the flow's queue (`drain_sender`).
    #[inline(never)]
    pub(super) fn send_at_hand_off(&mut self, link: usize, arrival: SimTime, ack: Packet) {
        let at = self.links[link].traverse_plainly(arrival, ack.size);
        let f = ack.flow & super::SLOT_MASK;
        let sender = &mut self.several.senders[f as usize];
        // Packet by packet its arrival is scheduled now, or when the ACK before it arrives, if later.
        let scheduled = self.now.max(sender.last_arrival);
        sender.last_arrival = at;
        // Most ACKs find no ACK waiting before them and nothing due first: taken here, without a push
        // and a pop through the flow's queue (docs/benchmarks.md, run 31).
        if sender.waiting.is_empty() && self.sender_may_take(f, at, scheduled, None) {
            self.sender_takes(f, at, &ack);
        } else {
            self.several.senders[f as usize].wait(WaitingAck { at, scheduled, ack });
            self.drain_sender(f, None);
        }
    }

    /// Flow `f`'s sender takes its waiting ACKs in order while `sender_may_take` allows.
    pub(super) fn drain_sender(&mut self, f: u32, until: Option<SimTime>) {
        let fi = f as usize;
        while let Some(&WaitingAck { at, scheduled, ack }) = self.several.senders[fi].waiting.front() {
            if !self.sender_may_take(f, at, scheduled, until) {
                break;
            }
            self.several.senders[fi].waiting.pop_front();
            self.sender_takes(f, at, &ack);
        }
        self.several.senders[fi].give_back();
    }

    /// Whether flow `f`'s sender may take its next ACK, arriving at `at` (its arrival scheduled at
    /// `scheduled` packet by packet), now: neither a reading (before `read_horizon`, or by `until`, the
    /// end of a step) nor its own timer event fires before that arrival packet by packet (tie rule R: the
    /// one scheduled earlier first; a line arrival before a timer scheduled at the same time). A timer
    /// event that would find nothing due is fired here first (`fire_idle_timer_ahead`).
    ///
    /// Samples alone do not hold an ACK back: if nothing but samples comes before its arrival, the
    /// sender's row is kept for them first (`keep_sender_row`).
    #[inline(always)]
    fn sender_may_take(&mut self, f: u32, at: SimTime, scheduled: SimTime, until: Option<SimTime>) -> bool {
        let past_samples = !(at < self.read_horizon || until.is_some_and(|t| at <= t) || self.ack_precedes_sample(at, scheduled));
        if past_samples && !(at < self.hard_horizon()) {
            return false;
        }
        while let Some(timer) = self.flows[f as usize].sender_timer {
            let first = timer < at || (timer == at && scheduled > self.several.senders[f as usize].timer_scheduled);
            if !first {
                break;
            }
            if !self.fire_idle_timer_ahead(f, timer) {
                return false;
            }
        }
        if past_samples {
            self.keep_sender_row(f, at, scheduled);
        }
        true
    }

    /// The next reading other than a sample: the end of the step, or the measurement's start (its
    /// snapshot reads the senders' counters). Nothing of a sender may run past it.
    #[inline(always)]
    pub(super) fn hard_horizon(&self) -> SimTime {
        let measure_start = if self.snapshot.is_none() { self.measure_from } else { SimTime::MAX };
        self.step_end.min(measure_start)
    }

    /// Flow `f`'s sender is about to take an ACK arriving at `at` (scheduled at `scheduled` packet by
    /// packet) after the next sample: keep its row for the samples due between its last ACK and this one,
    /// if any is due. They are the sample times on the grid of `next_sample` from after the last row
    /// kept (or from `next_sample`) to the ACK's arrival, that one included if the sample comes first
    /// (scheduled one interval before it, and after the ACK's scheduling; tie rule R).
    #[inline(never)]
    fn keep_sender_row(&mut self, f: u32, at: SimTime, scheduled: SimTime) {
        let Some(next) = self.next_sample else { return };
        let sample_first = self.sample_scheduled_first(at, scheduled);
        let through = if sample_first { at } else { SimTime(at.0 - 1) };
        // Sample times lie on one grid (`next_sample` steps by the interval), so the first one after the
        // last row is found once, when that row is kept, not with a division at every ACK.
        let first_due = self.several.senders[f as usize].rows.after_last().max(next);
        if first_due <= through && first_due <= self.end {
            let after = self.first_sample_from(SimTime(through.0 + 1));
            let row = SenderRow::read(&self.flows[f as usize].sender, Vec::new());
            self.several.senders[f as usize].rows.keep(through, after, row);
        }
    }

    /// Flow `f`'s timer event, due at `timer` before the sender's next ACK, when it would find nothing to
    /// do: fire it now, as of `timer`, and return true; else (a timeout or pacing is due then) false.
    ///
    /// Timers are lazy (`Simulation::arm_sender_timer`): the event stays at the deadline it was set for
    /// while every ACK moves the deadline later, so with ACKs taken up to a bottleneck's delay ahead
    /// about a third of them found such an event before their arrival and waited in the flow's queue
    /// until it fired (docs/benchmarks.md, run 32). Every ACK before it has been taken, so the sender is
    /// as it will be then; a deadline (retransmission or pacing) after `timer` means that packet by packet
    /// the event only re-arms the timer at that deadline, scheduled at `timer`. That is done here, with the
    /// same key (`EventQueue::work_as_of`), and the event in the heap, no longer `sender_timer`, fires as a
    /// superseded one: the same events, in the same order.
    #[inline(never)]
    fn fire_idle_timer_ahead(&mut self, f: u32, timer: SimTime) -> bool {
        let flow = &mut self.flows[f as usize];
        if flow.sender.timer_deadline().is_some_and(|d| d <= timer) {
            return false;
        }
        flow.sender_timer = None;
        self.note_superseded(f, timer);
        debug_assert!(self.events.as_of().is_none());
        self.events.work_as_of(timer);
        self.arm_sender_timer(f);
        self.events.work_now();
        true
    }

    /// Flow `f`'s sender takes `ack` as of its arrival `at`; the data it sends enter its access link as of
    /// that arrival.
    #[inline(always)]
    fn sender_takes(&mut self, f: u32, at: SimTime, ack: &Packet) {
        let fi = f as usize;
        self.events.work_as_of(at);
        debug_assert!(self.sent.is_empty());
        let flow = &mut self.flows[fi];
        flow.sender.on_ack(at, ack, &mut self.sent);
        // A finite transfer ends as packet by packet (`Simulation::forward`); a flow of this path is one
        // of the scenario's, not a traffic source's connection, so it never retires.
        if flow.transfer_just_completed() {
            self.complete_at(f, at);
        }
        if !self.sent.is_empty() {
            let first = self.routes.first_hop(f, Direction::Forward) as usize;
            // Each packet is made here, in registers, on its way to its ring (`tcp/segment.rs`).
            for i in 0..self.sent.len() {
                let pkt = self.flows[fi].sender.packet(self.sent[i]);
                let reaches = self.links[first].traverse_plainly(at, pkt.size);
                self.put_on_line_as_of(first, at, reaches, pkt);
            }
            self.sent.clear();
        }
        self.arm_sender_timer(f);
        self.events.work_now();
    }

    /// Whether an ACK arriving at `at` with a sample fires before that sample packet by packet: its arrival
    /// was scheduled (`scheduled`: at the reverse bottleneck's hand-off, or when the ACK before it arrived)
    /// no later than the sample, which was scheduled one interval before it when the sample before fired
    /// (scheduled at the same time, a line arrival's kind comes first; tie rule R). Only if that sample is
    /// the next reading (no step ends before it), and not if the measurement starts then too: its
    /// snapshot comes first, and the ACK goes once it is taken. The hand-off can come
    /// long before the ACK's arrival (the reverse bottleneck's queue and delay), so samples further apart
    /// than the access link's way do not settle it (a random case of tests/receiving_ahead_fuzz.rs).
    fn ack_precedes_sample(&self, at: SimTime, scheduled: SimTime) -> bool {
        self.next_sample == Some(at)
            && self.read_horizon == at
            && at.0 >= self.sample_interval.0
            && !self.sample_scheduled_first(at, scheduled)
            && !(self.snapshot.is_none() && self.measure_from == at)
    }

    /// Whether a sample due at `at` was scheduled (one interval before it, as the sample before fired)
    /// after an ACK's arrival there, scheduled at `scheduled`: then the ACK comes after the sample (tie
    /// rule R), else before it. A sample due before one interval has passed counts as scheduled at 0.
    #[inline(always)]
    fn sample_scheduled_first(&self, at: SimTime, scheduled: SimTime) -> bool {
        let interval = self.sample_interval.0;
        at.0 >= interval && scheduled.0 > at.0 - interval
    }

    /// Every sender's waiting ACKs that are due (after a reading, or at a step's end `until`).
    pub(super) fn drain_senders(&mut self, until: Option<SimTime>) {
        for f in 0..self.several.senders.len() {
            if !self.several.senders[f].waiting.is_empty() {
                self.drain_sender(f as u32, until);
            }
        }
    }

    /// Whether some sender has an ACK arriving by `t` (the end of a step, whose reading follows it).
    pub(super) fn senders_due_by(&self, t: SimTime) -> bool {
        self.several.senders.iter().any(|s| s.waiting.front().is_some_and(|w| w.at <= t))
    }

    /// Flow `f`'s timer event at `at` stays in the heap but is no longer its `sender_timer`.
    #[cold]
    pub(super) fn note_superseded(&mut self, f: u32, at: SimTime) {
        if let Some(sender) = self.several.senders.get_mut(f as usize) {
            let entry = (at, sender.timer_scheduled);
            let i = sender.superseded.partition_point(|&e| e <= entry);
            sender.superseded.insert(i, entry);
        }
    }

    /// A timer event of flow `f` at `now` left the heap. Every earlier one has left before it, and a
    /// superseded one due now leaves before one scheduled later for the same time: if the first superseded
    /// event is due now, it is this one.
    #[inline(always)]
    pub(super) fn timer_event_popped(&mut self, f: u32, now: SimTime) {
        let Some(sender) = self.several.senders.get_mut(f as usize) else { return };
        if sender.superseded.front().is_some_and(|&(t, _)| t == now) {
            sender.superseded.pop_front();
        }
    }

    /// Whether flow `f`'s sender has ACKs waiting (its timer fired: they may go now).
    #[inline(always)]
    pub(super) fn sender_has_waiting(&self, f: u32) -> bool {
        self.several.senders.get(f as usize).is_some_and(|s| !s.waiting.is_empty())
    }

    /// Turn the several-flow path off (`without_receiving_ahead`), before the run starts.
    pub(super) fn without_several_ahead(&mut self) {
        self.takers.iter_mut().for_each(|t| *t = Taker::Link);
        self.several = SeveralAhead::default();
    }
}
