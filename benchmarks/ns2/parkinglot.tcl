# parkinglot.tcl -- ns-2.35 TCP-Linux reference run: a parking lot of three bottlenecks in a row,
# one long flow crossing all three and one short flow per bottleneck (issue 11's parking-lot example;
# reference data for cclab's general topologies, see benchmarks/ns2/README-aqm.md).
#
#   src0 ----+                                               +---- dst0      (flow 0: long, R0 -> R3)
#            R0 ====L0==== R1 ====L1==== R2 ====L2==== R3
#   src1 ----+             +---- dst1                                        (flow 1: short, L0 only)
#                 src2 ----+             +---- dst2                          (flow 2: short, L1 only)
#                               src3 ----+             +---- dst3            (flow 3: short, L2 only)
#
# Usage:  ns parkinglot.tcl [key=value ...]
#
#   cc=reno            Linux CC module for every flow, or a comma-separated list (flow 0 first)
#   rate_mbps=100      rate of each bottleneck L0, L1, L2, Mbit/s
#   delay_ms=10        one-way delay of each bottleneck, ms
#   buffer=583         DropTail queue-limit of each bottleneck, both directions, packets (ns-2 semantics:
#                      at most `buffer` held, the one being sent included)
#   queue=DropTail     bottleneck discipline (DropTail, or RED with ns-2.35's defaults)
#   access_ms=2.5      access-link one-way delay, ms, each side of every flow; a comma-separated list
#                      gives flow i the i-th value
#   access_mbps=1000   access-link rate, Mbit/s
#   overhead_ms=0      Agent/TCP overhead_: each send is delayed by a uniform random time in [0, overhead_ms)
#                      (ns-2's remedy for phase effects, drawn from the seeded default RNG); 0 = off
#   duration=200, measure_from=100, seed=1, payload=1460, timestamps=1, window=100000,
#   scheduler=Calendar, sample_ms=1: as in aqm.tcl
#
# Output, key=value: one `flow=i` line per flow (as aqm.tcl, with route=L0+L1+L2 and, for each link it
# crosses, Lk_arrivals/Lk_drops: its data packets at that link's queue in the window), then one
# `link=Lk` line per bottleneck (utilisation, departures, arrivals, drops, mean queue as an exact time
# average, sampled max queue; drops_total from t = 0). Rates and counters are over [measure_from, duration]
# unless named *_total.
# The ACK direction of each bottleneck is a DropTail link with the same limit; ACKs never queue there.

set script parkinglot.tcl
source [file join [file dirname [info script]] common.tcl]

array set P {
    cc reno rate_mbps 100 delay_ms 10 buffer 583 queue DropTail access_ms 2.5 access_mbps 1000 overhead_ms 0
    duration 200 measure_from 100 seed 1 payload 1460 timestamps 1 window 100000 scheduler Calendar
    sample_ms 1
}
parse_options $argv
check_window
if {[lsearch -exact {DropTail RED} $P(queue)] < 0} { usage "queue must be DropTail or RED" }
set NL 3                   ;# bottlenecks
set N [expr {$NL + 1}]     ;# flows: 0 long, 1..NL short
set ccs [per_flow cc $N]
set access [per_flow access_ms $N]

set ns [new_simulator]
tcp_linux_defaults
Agent/TCP set overhead_ [expr {$P(overhead_ms) * 1e-3}]

# Routers R0..R3 and the bottlenecks Lk = Rk -> Rk+1 (data); Rk+1 -> Rk carries ACKs.
set rate_bps [expr {$P(rate_mbps) * 1e6}]
for {set k 0} {$k <= $NL} {incr k} { set r($k) [$ns node] }
for {set k 0} {$k < $NL} {incr k} {
    set k1 [expr {$k + 1}]
    $ns simplex-link $r($k) $r($k1) $rate_bps [expr {$P(delay_ms) * 1e-3}] $P(queue)
    $ns simplex-link $r($k1) $r($k) $rate_bps [expr {$P(delay_ms) * 1e-3}] DropTail
    $ns queue-limit $r($k) $r($k1) $P(buffer)
    $ns queue-limit $r($k1) $r($k) $P(buffer)
    set lnk($k) [$ns link $r($k) $r($k1)]
    set fmon($k) [$ns makeflowmon Fid]
    $ns attach-fmon $lnk($k) $fmon($k) 0
    set pint($k) [new Integrator]
    set bint($k) [new Integrator]
    $fmon($k) set-pkts-integrator $pint($k)
    $fmon($k) set-bytes-integrator $bint($k)
}

# Flow i enters at R(first) and leaves at R(last): the long flow 0 -> NL, short flow i: i-1 -> i.
for {set i 0} {$i < $N} {incr i} {
    if {$i == 0} { set first($i) 0; set last($i) $NL } else { set first($i) [expr {$i - 1}]; set last($i) $i }
    bulk_flow $i $r($first($i)) $r($last($i)) [expr {[lindex $access $i] * 1e-3}] [lindex $ccs $i]
}

# Unwrap 32-bit byte counters, sampled every 5 s (common.tcl).
proc sample {} {
    global NL fmon
    sample_sinks
    for {set k 0} {$k < $NL} {incr k} {
        foreach c {barrivals_ bdepartures_ bdrops_} { unwrap L$k$c [$fmon($k) set $c] }
    }
}
proc link_counter {k c} {
    global fmon wrap_total
    if {[string match b* $c]} { return $wrap_total(L$k$c) }
    return [$fmon($k) set $c]
}

array set S {}
for {set k 0} {$k < $NL} {incr k} { set S($k,qmax) 0 }
set S(n) 0
proc qsample {} {
    global NL fmon S
    for {set k 0} {$k < $NL} {incr k} {
        set q [$fmon($k) set pkts_]
        if {$q > $S($k,qmax)} { set S($k,qmax) $q }
    }
    incr S(n)
}

set link_counters {parrivals_ barrivals_ pdepartures_ bdepartures_ pdrops_ bdrops_}

# Per-flow arrivals and drops at link k: fid -> "parrivals pdrops" (0 0 for a flow never seen there).
proc flow_counts {k} {
    global fmon N
    for {set i 0} {$i < $N} {incr i} { set out($i) {0 0} }
    foreach f [$fmon($k) flows] { set out([$f set flowid_]) [list [$f set parrivals_] [$f set pdrops_]] }
    return [array get out]
}

proc mark {} {
    global N NL link_counters M pint bint
    sample
    for {set i 0} {$i < $N} {incr i} { mark_flow $i }
    for {set k 0} {$k < $NL} {incr k} {
        foreach c $link_counters { set M(L$k,$c) [link_counter $k $c] }
        set M(L$k,pint) [integral $pint($k)]
        set M(L$k,bint) [integral $bint($k)]
        set M(L$k,flows) [flow_counts $k]
    }
}

proc finish {} {
    global N NL P link_counters M ccs access first last
    global pint bint rate_bps S fmon
    sample
    set T [expr {double($P(duration) - $P(measure_from))}]
    for {set k 0} {$k < $NL} {incr k} {
        array set before $M(L$k,flows)
        foreach {fid now} [flow_counts $k] {
            set F($k,$fid,arr) [expr {[lindex $now 0] - [lindex $before($fid) 0]}]
            set F($k,$fid,drop) [expr {[lindex $now 1] - [lindex $before($fid) 1]}]
        }
    }
    for {set i 0} {$i < $N} {incr i} {
        set route {}
        set per_link ""
        for {set k $first($i)} {$k < $last($i)} {incr k} {
            lappend route L$k
            append per_link " L${k}_arrivals=$F($k,$i,arr) L${k}_drops=$F($k,$i,drop)"
        }
        puts [format "flow=%d kind=%s route=%s cc=%s %s access_ms=%g%s" \
                  $i [expr {$i == 0 ? "long" : "short"}] [join $route +] [lindex $ccs $i] [flow_fields $i] \
                  [lindex $access $i] $per_link]
    }
    for {set k 0} {$k < $NL} {incr k} {
        foreach c $link_counters { set L($c) [expr {[link_counter $k $c] - $M(L$k,$c)}] }
        puts [format "link=L%d queue=%s utilisation=%.6f departures=%d departed_bytes=%.0f arrivals=%d drops=%d\
mean_queue_pkts=%.4f mean_queue_bytes=%.1f max_queue_pkts_sampled=%d queue_samples=%d drops_total=%d" \
                  $k $P(queue) [expr {$L(bdepartures_) * 8.0 / ($rate_bps * $T)}] $L(pdepartures_) \
                  $L(bdepartures_) $L(parrivals_) $L(pdrops_) \
                  [expr {([integral $pint($k)] - $M(L$k,pint)) / $T}] \
                  [expr {([integral $bint($k)] - $M(L$k,bint)) / $T}] $S($k,qmax) $S(n) \
                  [$fmon($k) set pdrops_]]
    }
    exit 0
}

schedule_counter_samples
$ns at $P(measure_from) "mark"
schedule_queue_samples
$ns at $P(duration) "finish"
$ns run
