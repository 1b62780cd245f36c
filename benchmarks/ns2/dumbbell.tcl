# dumbbell.tcl -- ns-2.35 TCP-Linux reference run for the cclab speed benchmark
# (seed 000, section III: single/multi-flow dumbbell, DropTail bottleneck).
#
# Usage:  ns dumbbell.tcl [key=value ...]
#
#   cc=reno            Linux CC module for Agent/TCP/Linux select_ca (reno, cubic, bic, ...); a
#                      comma-separated list gives flow i the i-th module (seed 000, Table II: cc=scalable,reno)
#   rate_mbps=200      bottleneck rate, Mbit/s
#   delay_ms=50        bottleneck one-way delay, ms
#   buffer=167         bottleneck DropTail queue-limit, packets (ns-2 semantics: see below)
#   access_ms=2.5      access-link one-way delay, ms (each side); with flows=N>1, flow i
#                      gets access_ms*(i+1)/N on both sides, i.e. spread over [access_ms/N, access_ms]
#   access_mbps=2000   access-link rate, Mbit/s (10x the bottleneck)
#   flows=1            number of TCP flows (all start at t=0)
#   duration=2000      simulated seconds
#   measure_from=1000  goodput and counters are measured over [measure_from, duration]
#   seed=1             ns-2 default RNG seed (the scenario itself draws no random numbers)
#   payload=1460       Agent/TCP packetSize_ (TCP payload bytes); wire size = payload + 40
#   timestamps=1       TCP timestamps on the sender (CUBIC 2.1 needs them for delay_min)
#   window=100000      window_ (= Linux snd_cwnd_clamp) and maxcwnd_, packets
#   scheduler=Calendar ns-2 event scheduler (Calendar is the ns-2 default and the fastest here)
#   per=0              packet error rate on the bottleneck R1 -> R2 (data direction): an ErrorModel,
#                      unit pkt, uniform random variable from the default RNG (seed 001, Table II)
#   overhead_us=0      Agent/TCP overhead_: a uniform [0, overhead_us] us wait before each packet
#                      (seed 001: 8 us, against phase effects); 0 sends at once, ns-2's default
#   progress=0         every this many simulated seconds, print "progress t=... packets_sent_total=..."
#                      (0: never): a run stopped at a wall-time cap still tells how far it got
#   trace_dt=0         every this many simulated seconds, print "trace t=... cwnd=... cuts=... rtos=...
#                      queue=... overflow_drops=... error_drops=..." for flow 0 and the bottleneck (0: never;
#                      adds a queue monitor on R1 -> R2 and a drop monitor on the error model, cumulative)
#
# Output: one line per flow, key=value, e.g.
#   flow=0 cc=reno goodput_bps=... delivered_bps=... packets_sent=... packets_sent_total=...
#          retransmissions=... timeouts=... loss_events=... cwnd_cuts=... final_cwnd=...
# Rates and counters other than *_total are over [measure_from, duration], like cclab's summary.
#
# Notes on ns-2 semantics (checked in the ns-2.35 source):
# - TCP packetSize_ is the payload; every data packet on the wire is packetSize_ + 40 bytes
#   (tcpip_base_hdr_size_), plus ts_option_size_ (default 10) when timestamps are on. We set
#   ts_option_size_ 0 so that the wire size stays 1500 bytes, as in the paper and in cclab.
# - DropTail drops an arriving packet when (waiting packets + 1) >= queue-limit; with the packet
#   being serialised that is at most `buffer` packets held by the router.
# - TCPSink bytes_ counts in-order delivered bytes *including* the 40-byte header (wire bytes);
#   it is a C int, so it is sampled every 5 s and unwrapped here.
# No trace files, no nam, no queue monitors: nothing that slows ns-2 beyond the measurement.
# Option parsing, the agent settings, the flows and the result fields are in common.tcl.

set script dumbbell.tcl
source [file join [file dirname [info script]] common.tcl]

array set P {
    cc reno rate_mbps 200 delay_ms 50 buffer 167 access_ms 2.5 access_mbps 2000
    flows 1 duration 2000 measure_from 1000 seed 1 payload 1460 timestamps 1
    window 100000 scheduler Calendar per 0 overhead_us 0 progress 0 trace_dt 0
}
parse_options $argv
check_window
set N $P(flows)
if {$N < 1} { usage "flows must be >= 1" }
set ccs [per_flow cc $N modules]

set ns [new_simulator]
tcp_linux_defaults
Agent/TCP set overhead_ [expr {$P(overhead_us) * 1e-6}]

# Routers and bottleneck (R1 -> R2 carries data; R2 -> R1 the ACKs).
set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 [expr {$P(rate_mbps) * 1e6}] [expr {$P(delay_ms) * 1e-3}] DropTail
$ns queue-limit $r1 $r2 $P(buffer)
$ns queue-limit $r2 $r1 $P(buffer)
# Random packet errors on the data direction only, as cclab's bottleneck loss_rate. `lossmodel` puts the
# error model after R1's queue, so an errored packet has used the link's queue but never reaches R2.
if {$P(per) > 0} {
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ $P(per)
    $em ranvar [new RandomVariable/Uniform]
    $em drop-target [new Agent/Null]
    $ns lossmodel $em $r1 $r2
}

# Flow i's access links, each side: access_ms * (i + 1) / N one way.
for {set i 0} {$i < $N} {incr i} {
    bulk_flow $i $r1 $r2 [expr {$P(access_ms) * ($i + 1) / double($N) * 1e-3}] [lindex $ccs $i]
}

proc sample {} { sample_sinks }

proc mark {} {
    global N
    sample
    for {set i 0} {$i < $N} {incr i} { mark_flow $i }
}

proc finish {} {
    global N P ccs
    sample
    for {set i 0} {$i < $N} {incr i} {
        puts [format "flow=%d cc=%s %s access_ms=%g" $i [lindex $ccs $i] [flow_fields $i] \
                  [expr {$P(access_ms) * ($i + 1) / double($N)}]]
    }
    exit 0
}

schedule_counter_samples
proc progress {} {
    global N tcp ns
    set sent 0
    for {set i 0} {$i < $N} {incr i} { incr sent [$tcp($i) set ndatapack_] }
    puts "progress t=[$ns now] packets_sent_total=$sent"
    flush stdout
}
if {$P(progress) > 0} {
    for {set k 1} {$k * $P(progress) < $P(duration)} {incr k} { $ns at [expr {$k * $P(progress)}] "progress" }
}
if {$P(trace_dt) > 0} {
    set qmon [$ns monitor-queue $r1 $r2 [open /dev/null w]]
    # Error drops counted apart: the error model's drops go through a drop snoop of their own (set after
    # lossmodel and monitor-queue, so the queue monitor's pdrops_ is left with overflow drops alone).
    set emon [new QueueMonitor]
    if {$P(per) > 0} {
        set esnoop [new SnoopQueue/Drop]
        $esnoop set-monitor $emon
        $esnoop target [new Agent/Null]
        $em drop-target $esnoop
    }
    proc trace {} {
        global tcp qmon emon ns P
        puts [format "trace t=%.3f cwnd=%d cuts=%d rtos=%d queue=%d overflow_drops=%d error_drops=%d" [$ns now] \
                  [expr {int([$tcp(0) set cwnd_])}] [$tcp(0) set ncwndcuts_] [$tcp(0) set nrexmit_] \
                  [$qmon set pkts_] [$qmon set pdrops_] [$emon set pdrops_]]
        $ns at [expr {[$ns now] + $P(trace_dt)}] "trace"
    }
    $ns at $P(trace_dt) "trace"
}
$ns at $P(measure_from) "mark"
$ns at $P(duration) "finish"
$ns run
