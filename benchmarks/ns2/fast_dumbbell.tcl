# fast_dumbbell.tcl -- dumbbell.tcl's topology with ns-2's own FAST agent, Agent/TCP/Fast (the CUBIN module,
# Cui & Andrew, v1.1.3), for benchmarks/crosscheck_fast.py. Needs the ns built by benchmarks/ns2/build_fast.sh;
# Debian's ns has no Agent/TCP/Fast.
#
# Usage:  <ns with FAST> fast_dumbbell.tcl [key=value ...]
#
#   The keys of dumbbell.tcl that apply to a FAST flow (rate_mbps, delay_ms, buffer, access_ms, access_mbps,
#   flows, duration, measure_from, seed, payload, window, scheduler), with the same meaning and defaults, and
#   alpha=100 beta=100 gamma=0.5 mi_threshold=0.00075 update_period=0.01 high_accuracy_cwnd=2
#                      the agent's alpha_, beta_ (packets), gamma_, mi_threshold_ (s), cwnd_update_period_ (s)
#                      and high_accuracy_cwnd_; the defaults are those build_fast.sh puts in ns-default.tcl
#   syn=1              Agent/TCP syn_: with 1 (ns-2's default) the first packet is a 40-byte SYN, whose RTT
#                      becomes the agent's first baseRTT_ and, being the shortest, stays its minimum; with 0
#                      the first packet carries data
#   trace_dt=0         every this many simulated seconds, print "trace t=... flow=... cwnd=... in_flight=...
#                      avg_rtt=... base_rtt=... cuts=... rtos=..." for every flow (in_flight = maxseq_ - ack_) and "queue t=... pkts=... drops=..." for
#                      the bottleneck R1 -> R2 (0: never; cwnd is the agent's double, RTTs in s, counters
#                      cumulative; the queue from a queue monitor)
#
# Output: one line per flow, as dumbbell.tcl's (common.tcl flow_fields), with cc=fast.
#
# This is a separate script, not an option of dumbbell.tcl, because every cached ns-2 reference row is keyed
# by the hash of dumbbell.tcl and common.tcl (benchmarks/provenance.py): editing them would make all of them
# stale. The topology, flows and measurement are agent_dumbbell.tcl's, shared with sack1_dumbbell.tcl.
# Timestamps are not set: Agent/TCP/Fast takes its RTT samples from its own per-packet send times.

set script fast_dumbbell.tcl
source [file join [file dirname [info script]] common.tcl]
source [file join [file dirname [info script]] agent_dumbbell.tcl]

array set P {
    rate_mbps 200 delay_ms 50 buffer 167 access_ms 2.5 access_mbps 2000
    flows 1 duration 2000 measure_from 1000 seed 1 payload 1460 timestamps 0
    window 100000 scheduler Calendar trace_dt 0
    alpha 100 beta 100 gamma 0.5 mi_threshold 0.00075 update_period 0.01 high_accuracy_cwnd 2 syn 1
}
parse_options $argv
check_window
set N $P(flows)
if {$N < 1} { usage "flows must be >= 1" }
if {[info commands Agent/TCP/Fast] eq ""} {
    usage "this ns has no Agent/TCP/Fast: use the one benchmarks/ns2/build_fast.sh builds"
}

set ns [new_simulator]
tcp_linux_defaults
foreach {var key} {alpha_ alpha beta_ beta gamma_ gamma mi_threshold_ mi_threshold
                   cwnd_update_period_ update_period high_accuracy_cwnd_ high_accuracy_cwnd} {
    Agent/TCP/Fast set $var $P($key)
}
Agent/TCP/Fast set syn_ [expr {$P(syn) ? "true" : "false"}]

agent_bottleneck
agent_flows Fast

proc fast_trace_line {i now} {
    global tcp
    return [format "trace t=%.3f flow=%d cwnd=%.3f in_flight=%d avg_rtt=%.6f base_rtt=%.6f cuts=%d rtos=%d" \
                $now $i [$tcp($i) set cwnd_] [expr {[$tcp($i) set maxseq_] - [$tcp($i) set ack_]}] \
                [$tcp($i) set avgRTT_] [$tcp($i) set baseRTT_] [$tcp($i) set ncwndcuts_] [$tcp($i) set nrexmit_]]
}
agent_schedule fast fast_trace_line
