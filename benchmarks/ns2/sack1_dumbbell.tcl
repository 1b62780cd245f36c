# sack1_dumbbell.tcl -- dumbbell.tcl's topology with ns-2's own SACK agent, Agent/TCP/Sack1 with Reno's
# window, for benchmarks/crosscheck_sack1.py. Seed 003 (Xu, Harfoush & Rhee, BIC, INFOCOM 2004) ran its
# high-speed flows in ns-2 "as a modification of TCP-SACK", that is this agent. Debian's /usr/bin/ns
# (ns-2.35) has it.
#
# Usage:  ns sack1_dumbbell.tcl [key=value ...]
#
#   The keys of dumbbell.tcl that apply to a Sack1 flow (rate_mbps, delay_ms, buffer, access_ms, access_mbps,
#   flows, duration, measure_from, seed, payload, window, scheduler, per), with the same meaning and
#   defaults. per= is dumbbell.tcl's error model: packet errors on R1 -> R2 after the queue, a uniform
#   random variable from the default RNG, which `seed` seeds.
#   stream=1           run on substream `stream` of the default RNG: seeded with `seed`, then `next-substream`
#                      stream - 1 times (each a jump of 2^76 draws). ns-2.35's seeds 1, 2, 3, ... put their
#                      error draws at the same indices (rng_seeds.tcl), its substreams do not; stream=1 is
#                      the run of `seed` itself, digit for digit
#   trace_dt=0         every this many simulated seconds, print "trace t=... flow=... cwnd=... ssthresh=...
#                      cuts=... rtos=... rexmits=..." for every flow and "queue t=... pkts=... drops=..." for
#                      the bottleneck R1 -> R2 (0: never; counters cumulative, drops the queue's overflows)
#
# Output: one line per flow, as dumbbell.tcl's (common.tcl flow_fields), with cc=sack1.
#
# The agent (tcp/tcp-sack1.cc, tcp/scoreboard-rq.cc, tcp/tcp.cc): ns-2's defaults (tcl/lib/ns-default.tcl)
# but for what common.tcl's tcp_linux_defaults sets on Agent/TCP:
# - packetSize_ = payload (1460), so a data packet is 1500 bytes on the wire (40 bytes of header);
# - window_ and maxcwnd_ = window (100 000 packets): no limit but cwnd in these cells;
# - ts_option_size_ 0: no effect here, since Agent/TCP timestamps_ stays false (ns-2's default).
# tcp_linux_defaults also sets Agent/TCP/Linux timestamps_, which a Sack1 agent never reads. So this agent
# times one packet per round trip (no timestamps) in ticks of tcpTick_ = 10 ms, and its RTO is
# max(minrto_ 200 ms, SRTT + 4 RTTVAR) (rfc2988_ true), 3 s before the first sample. ns-2's defaults that
# decide its recovery: windowOption_ 1 (cwnd_ += 1/cwnd_ per new ACK in congestion avoidance, a double),
# windowInit_ 2, numdupacks_ 3, singledup_ 1 (limited transmit on duplicate ACKs 1 and 2), LimTransmitFix_
# false, bugFix_ true, partial_ack_ false, maxburst_ 0, syn_ true, overhead_ 0, F-RTO off. The sink is
# Agent/TCPSink/Sack1: one ACK per packet, at most maxSackBlocks_ 3 SACK blocks.
#
# This is a separate script, not an option of dumbbell.tcl, because every cached ns-2 reference row is keyed
# by the hash of dumbbell.tcl and common.tcl (benchmarks/provenance.py): editing them would make all of them
# stale. The topology, flows and measurement are agent_dumbbell.tcl's, shared with fast_dumbbell.tcl.

set script sack1_dumbbell.tcl
source [file join [file dirname [info script]] common.tcl]
source [file join [file dirname [info script]] agent_dumbbell.tcl]

array set P {
    rate_mbps 200 delay_ms 50 buffer 167 access_ms 2.5 access_mbps 2000
    flows 1 duration 2000 measure_from 1000 seed 1 payload 1460 timestamps 0
    window 100000 scheduler Calendar per 0 stream 1 trace_dt 0
}
parse_options $argv
check_window
set N $P(flows)
if {$N < 1} { usage "flows must be >= 1" }
if {![string is integer -strict $P(stream)] || $P(stream) < 1} { usage "stream must be an integer >= 1" }

set ns [new_simulator]
for {set k 1} {$k < $P(stream)} {incr k} { $defaultRNG next-substream }
tcp_linux_defaults

agent_bottleneck
agent_flows Sack1

proc sack1_trace_line {i now} {
    global tcp
    return [format "trace t=%.3f flow=%d cwnd=%.3f ssthresh=%d cuts=%d rtos=%d rexmits=%d" $now $i \
                [$tcp($i) set cwnd_] [$tcp($i) set ssthresh_] [$tcp($i) set ncwndcuts_] \
                [$tcp($i) set nrexmit_] [$tcp($i) set nrexmitpack_]]
}
agent_schedule sack1 sack1_trace_line
