//! What a run reports: the summary over the measurement window and the sampled time series.

use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FlowSummary {
    pub flow: u32,
    pub cc: String,
    /// Payload delivered in order to the application, bit/s.
    pub goodput_bps: f64,
    /// Packets delivered in order times the packet size on the wire, bit/s (seed 000's tables).
    pub delivered_bps: f64,
    pub loss_events: u64,
    pub timeouts: u64,
    pub retransmissions: u64,
    /// Window reductions in answer to ECN echoes (flows with `ecn` on).
    pub ecn_reductions: u64,
    pub packets_sent: u64,
    pub mean_rtt_s: Option<f64>,
    pub final_cwnd: u32,
    /// The flow's life, for flows that are more than a bulk flow from start to end (a finite transfer);
    /// flattened into this record, absent otherwise.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub life: Option<FlowLife>,
}

/// When a flow started and ended and what it carried, over its whole life (not the measurement window).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FlowLife {
    /// The group it is counted in (`groups`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Its first packet was sent, s.
    pub start_s: f64,
    /// Its last byte was acknowledged (a transfer) or it stopped writing (`stop`), s; None while it runs.
    pub end_s: Option<f64>,
    /// Payload bytes the application wrote; None for a bulk flow.
    pub size_bytes: Option<u64>,
    /// Payload bytes delivered in order to the receiver (a transfer's last segment counts its bytes only).
    pub bytes: u64,
    /// From the first packet sent to the acknowledgement of the last byte, s; None until then.
    pub completion_time_s: Option<f64>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BottleneckSummary {
    /// Bits put on the wire over capacity, over the measurement window.
    pub utilization: f64,
    /// Packets dropped by the queue.
    pub drops: u64,
    /// Packets lost to the packet error rate.
    pub error_drops: u64,
    /// Time-average of packets waiting (the one on the wire excluded).
    pub mean_queue_packets: f64,
    /// Largest queue seen since the start of the run.
    pub max_queue_packets: u64,
    pub packets_forwarded: u64,
}

/// The figures of one link that has a queue, over the measurement window.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LinkSummary {
    pub name: String,
    pub from: String,
    pub to: String,
    pub rate_bps: u64,
    /// Bits put on the wire over capacity.
    pub utilization: f64,
    pub packets_forwarded: u64,
    /// Packets dropped by the queue: `overflow_drops + early_drops`.
    pub drops: u64,
    /// Arrivals refused because the buffer was full.
    pub overflow_drops: u64,
    /// Packets the AQM dropped before the buffer was full (RED's early drops, CoDel's, PIE's).
    pub early_drops: u64,
    /// Packets the AQM marked CE instead of dropping them.
    pub ecn_marks: u64,
    /// Packets lost on the link: random errors, the loss model, and packets the ARQ gave up on.
    pub error_drops: u64,
    /// Link-layer retransmissions (attempts after the first) and packets the ARQ gave up on.
    pub arq_retransmissions: u64,
    pub arq_failures: u64,
    /// Mean delay the ARQ added to a delivered packet (retries and in-order waits), s; None without ARQ.
    pub arq_mean_added_delay_s: Option<f64>,
    /// Time-average of packets waiting (the one on the wire excluded).
    pub mean_queue_packets: f64,
    /// Largest queue seen since the start of the run.
    pub max_queue_packets: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Summary {
    pub measure_from_s: f64,
    pub duration_s: f64,
    /// Simulated time reached (equals duration_s once the run is complete).
    pub now_s: f64,
    pub events: u64,
    pub flows: Vec<FlowSummary>,
    pub bottleneck: BottleneckSummary,
    /// Every link with a queue, in link order (the dumbbell: `bottleneck`, `bottleneck.reverse`).
    pub links: Vec<LinkSummary>,
    /// Jain's fairness index of the flows' goodputs, (sum g)^2 / (n sum g^2); NaN (null in JSON) when no
    /// flow delivered anything in the window.
    pub jain_index: f64,
    /// Flows by group (`group` of a flow, every traffic source), in order of first mention; absent when
    /// no flow has a group.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<GroupSummary>,
}

/// A group of flows over the measurement window: what it carried and how fast its transfers finished.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct GroupSummary {
    pub group: String,
    /// Flows opened since the start of the run (a traffic source's connections, the group's flows).
    pub flows_created: u64,
    /// Transfers whose last byte was acknowledged, since the start of the run.
    pub flows_completed: u64,
    /// Bulk flows past their stop with nothing left outstanding.
    pub flows_stopped: u64,
    /// The rest, still running at the end: created = completed + stopped + alive.
    pub flows_alive: u64,
    /// Connections refused because every flow slot (2^21) was taken.
    pub flows_refused: u64,
    /// Payload bytes delivered in order in the window.
    pub bytes: u64,
    pub goodput_bps: f64,
    /// Goodput over the capacity of the slowest link on the group's data route.
    pub share_of_capacity: f64,
    /// Transfers completed in the window, and their completion times (to 0.4 %, the histogram's bucket).
    pub completed_in_window: u64,
    pub completion_time_mean_s: Option<f64>,
    pub completion_time_p50_s: Option<f64>,
    pub completion_time_p90_s: Option<f64>,
    pub completion_time_p99_s: Option<f64>,
}

pub fn jain_index(values: &[f64]) -> f64 {
    let sum: f64 = values.iter().sum();
    let sum_sq: f64 = values.iter().map(|v| v * v).sum();
    // With nothing delivered (or no flow) the index is 0/0: there is no share to call fair or unfair, so it
    // is undefined, as in the front's `cclab.measures.jain_index`, rather than a perfect 1.
    if sum_sq == 0.0 {
        return f64::NAN;
    }
    sum * sum / (values.len() as f64 * sum_sq)
}

/// One row per connection of the traffic sources that keep records (`records`), columnar: those
/// completed, in order of completion, then those alive at the time of reading (end and completion NaN).
#[derive(Clone, Debug, Default, Serialize)]
pub struct ConnectionRecords {
    /// Index into the summary's `groups`.
    pub group: Vec<u32>,
    pub start_s: Vec<f64>,
    pub end_s: Vec<f64>,
    pub size_bytes: Vec<u64>,
    /// Payload bytes delivered in order.
    pub bytes: Vec<u64>,
    pub completion_time_s: Vec<f64>,
    pub retransmissions: Vec<u64>,
    pub timeouts: Vec<u64>,
}

/// Sampled per-flow state, columnar. Algorithm-specific columns are padded with NaN where absent.
#[derive(Clone, Debug, Default, Serialize)]
pub struct FlowSeries {
    pub time_s: Vec<f64>,
    pub flow: Vec<u32>,
    pub cwnd: Vec<u32>,
    pub ssthresh: Vec<u32>,
    pub srtt_s: Vec<f64>,
    pub rtt_s: Vec<f64>,
    /// The retransmission timeout in force, backoff included, s.
    pub rto_s: Vec<f64>,
    pub in_flight: Vec<u32>,
    pub delivered: Vec<u64>,
    pub cc: BTreeMap<String, Vec<f64>>,
}

impl FlowSeries {
    /// Append an algorithm-state value to the current row (call after pushing the fixed columns).
    pub fn push_cc(&mut self, name: &str, value: f64) {
        let rows = self.time_s.len();
        let col = self.cc.entry(format!("cc_{name}")).or_default();
        col.resize(rows - 1, f64::NAN);
        col.push(value);
    }
    /// Pad the algorithm columns to the row count.
    pub fn finish_row(&mut self) {
        let rows = self.time_s.len();
        for col in self.cc.values_mut() {
            col.resize(rows, f64::NAN);
        }
    }
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct QueueSeries {
    pub time_s: Vec<f64>,
    pub queue_packets: Vec<u64>,
    pub queue_bytes: Vec<u64>,
    /// Cumulative queue drops at the bottleneck.
    pub drops: Vec<u64>,
    /// Cumulative bytes the bottleneck has put on the wire (packets whose transmission started by the
    /// sample time). The difference over a window, in bits, over rate x window is the link's utilisation
    /// in that window; counted at the start of transmission, it is over the capacity by at most one packet.
    pub bytes_tx: Vec<u64>,
}

/// Queue samples of every link with a queue, columnar; `link` indexes the summary's `links`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LinkSeries {
    pub time_s: Vec<f64>,
    pub link: Vec<u32>,
    pub queue_packets: Vec<u64>,
    pub queue_bytes: Vec<u64>,
    /// Cumulative queue drops.
    pub drops: Vec<u64>,
    /// Cumulative bytes put on the wire, as `QueueSeries::bytes_tx`.
    pub bytes_tx: Vec<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index_bounds() {
        assert_eq!(jain_index(&[5.0, 5.0, 5.0]), 1.0);
        assert_eq!(jain_index(&[1.0, 0.0]), 0.5);
        assert!((jain_index(&[3.0, 1.0]) - 0.8).abs() < 1e-12); // 16 / (2 * 10)
    }

    #[test]
    fn jain_index_is_undefined_when_nothing_was_delivered() {
        assert!(jain_index(&[0.0, 0.0]).is_nan());
        assert!(jain_index(&[]).is_nan());
    }

    #[test]
    fn cc_columns_are_padded() {
        let mut s = FlowSeries::default();
        s.time_s.push(0.0);
        s.finish_row();
        s.time_s.push(1.0);
        s.push_cc("w_max", 3.0);
        s.finish_row();
        let col = &s.cc["cc_w_max"];
        assert!(col[0].is_nan());
        assert_eq!(col[1], 3.0);
    }
}
