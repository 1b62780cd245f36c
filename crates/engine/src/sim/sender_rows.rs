//! What a time-series sample reads of a flow's sender, kept for samples still to come when the sender
//! has moved past them (`sim/several_ahead.rs`).
//!
//! A sender of several flows takes each ACK when the reverse bottleneck hands it on, up to that link's
//! queue and delay ahead of the ACK's arrival. A sample due before that arrival reads the sender as it
//! was before the ACK; with 100-ms samples and a 50-ms path, half of all ACKs used to wait in their flow's
//! queue for the sample (docs/benchmarks.md, run 32). Instead, the sender's row is read before it takes
//! such an ACK and kept here, with the last sample time it stands for; each sample reads the kept row if
//! one covers it, else the sender itself. Between two ACKs of a flow nothing else changes what a sample
//! reads of its sender (its timer events are ordered by `sender_may_take`), so the row read before an ACK
//! is the sender at every sample between that ACK and the one before it.

use std::collections::VecDeque;

use crate::cc::StateField;
use crate::stats::FlowSeries;
use crate::tcp::sender::Sender;
use crate::time::{SimDuration, SimTime};

/// The sender's columns of a row of `FlowSeries` (all but time, flow and the receiver's `delivered`).
pub(super) struct SenderRow {
    cwnd: u32,
    ssthresh: u32,
    srtt_s: f64,
    rtt_s: f64,
    rto_s: f64,
    in_flight: u32,
    /// The algorithm's state fields (`CongestionControl::state`), in its order.
    cc: Vec<StateField>,
}

impl SenderRow {
    /// `sender` now; `cc` is a buffer to fill with the algorithm's fields (cleared first).
    pub(super) fn read(sender: &Sender, mut cc: Vec<StateField>) -> SenderRow {
        let secs = |d: Option<SimDuration>| d.map_or(f64::NAN, |d| d.as_secs_f64());
        let algorithm = sender.cc();
        cc.clear();
        algorithm.state(&mut cc);
        SenderRow {
            cwnd: algorithm.cwnd(),
            ssthresh: algorithm.ssthresh(),
            srtt_s: secs(sender.rtt().srtt()),
            rtt_s: secs(sender.rtt().latest()),
            rto_s: sender.current_rto().as_secs_f64(),
            in_flight: sender.in_flight(),
            cc,
        }
    }

    /// Append the sender's columns to the row `series` is writing (time and flow pushed, `delivered` and
    /// the algorithm's columns not yet).
    pub(super) fn push_fixed(&self, series: &mut FlowSeries) {
        series.cwnd.push(self.cwnd);
        series.ssthresh.push(self.ssthresh);
        series.srtt_s.push(self.srtt_s);
        series.rtt_s.push(self.rtt_s);
        series.rto_s.push(self.rto_s);
        series.in_flight.push(self.in_flight);
    }

    /// Append the algorithm's columns (after `delivered`), as `Simulation::sample` orders them.
    pub(super) fn push_cc(&self, series: &mut FlowSeries) {
        for (name, value) in &self.cc {
            series.push_cc(name, *value);
        }
    }

    /// The buffer of algorithm fields, for reuse.
    pub(super) fn into_cc(self) -> Vec<StateField> {
        self.cc
    }
}

/// One flow's kept rows, each with the last sample time it stands for (`through`, non-decreasing); a
/// row stands for the sample times after the previous row's `through`.
#[derive(Default)]
pub(super) struct KeptRows {
    rows: VecDeque<(SimTime, SenderRow)>,
    /// The first sample time after the last row's `through` (0 before any row): a later row starts there.
    after_last: SimTime,
}

impl KeptRows {
    /// The last sample time a kept row stands for, if any is kept.
    pub(super) fn last_through(&self) -> Option<SimTime> {
        self.rows.back().map(|&(through, _)| through)
    }

    /// The first sample time a new row would stand for (`keep`'s `after`), or 0 before any row.
    pub(super) fn after_last(&self) -> SimTime {
        self.after_last
    }

    /// Keep `row` for the samples up to `through`; `after` is the first sample time after `through`.
    pub(super) fn keep(&mut self, through: SimTime, after: SimTime, row: SenderRow) {
        debug_assert!(self.last_through().is_none_or(|t| t < through) && after > through);
        self.rows.push_back((through, row));
        self.after_last = after;
    }

    /// The row a sample at `t` reads, if one is kept for it; rows for earlier samples are dropped.
    pub(super) fn for_sample(&mut self, t: SimTime) -> Option<&SenderRow> {
        while self.rows.front().is_some_and(|&(through, _)| through < t) {
            self.rows.pop_front();
        }
        self.rows.front().map(|(_, row)| row)
    }
}
