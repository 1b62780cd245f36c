# aqm.tcl -- ns-2.35 TCP-Linux reference run: the cross-check dumbbell of dumbbell.tcl with the
# bottleneck queue chosen on the command line (RED, adaptive RED, or DropTail) and the bottleneck
# watched by a queue monitor (utilisation, drops by cause, mean queue, RED's average and max_p).
# Reference data for cclab's `red` and `ared` disciplines (issue 11); see benchmarks/ns2/README-aqm.md.
#
# Usage:  ns aqm.tcl [key=value ...]
#
#   queue=RED          bottleneck discipline, R1 -> R2: RED, ARED (Queue/RED with adaptive_ 1) or DropTail;
#                      the ACK direction R2 -> R1 is always DropTail with the same limit
#   red.<var>=value    set Queue/RED class variable <var> before the link is built, e.g.
#                      red.bottom_=0.001 (seed 003), red.queue_in_bytes_=false; unset ones keep
#                      ns-2.35's defaults (tcl/lib/ns-default.tcl), printed on the `red` output line
#   cc, rate_mbps, delay_ms, buffer, access_ms, access_mbps, flows, duration, measure_from, seed,
#   payload, timestamps, window, scheduler: as in dumbbell.tcl (same defaults, same topology)
#   sample_ms=1        the queue length, RED's ave_ and cur_max_p_ are sampled every sample_ms over the
#                      measurement window (for the max queue and the means of ave_ and max_p)
#   series=            if a file name: write "t qlen_pkts qlen_bytes ave cur_max_p" every series_ms
#                      from t = 0 (the transient included); not written by default
#   series_ms=100      interval of the series file
#
# Output, key=value, one line each:
#   red ...            the bottleneck's RED variables as ns-2 computed them (queue=RED/ARED only), read at
#                      t = 0, after Simulator run has reset the queue: thresholds in packets of
#                      mean_pktsize_ (thresh_, maxthresh_) and in queue units (thresh_queue_,
#                      maxthresh_queue_: bytes when queue_in_bytes_), q_weight_, cur_max_p_, bottom_, ...
#                      plus ptc (packets of mean_pktsize_ per second) and limit_queue (the hard limit in
#                      queue units: limit_ x mean_pktsize_ bytes when queue_in_bytes_, else limit_ packets)
#   flow=i ...         as dumbbell.tcl, plus bottleneck_arrivals/drops/early_drops: this flow's data
#                      packets at the bottleneck queue in the window (flow monitor), and
#                      bottleneck_drops_total/early_drops_total: its drops over the whole run from t = 0
#   link=bottleneck .. utilisation, departures, arrivals, drops = early_drops + overflow_drops, mean queue
#                      (exact time average of the queue monitor, packets and bytes), sampled max queue,
#                      time-mean of RED's ave_ (queue units) and of cur_max_p_, and their final values;
#                      drops_total/early_drops_total/overflow_drops_total count the whole run from t = 0
#                      (the slow-start overshoot included)
# Rates and counters are over [measure_from, duration] unless named *_total.
#
# Notes on ns-2 semantics (ns-2.35 queue/red.cc, tools/queue-monitor.{h,cc}, tcl/lib/ns-lib.tcl):
# - Queue/RED's automatic parameters are computed in `$q link`, called by simplex-link right after the
#   queue is made: class defaults therefore go before the link (instance settings after it would be
#   too late for thresh_/maxthresh_/q_weight_/bottom_).
# - ns-2.35's defaults are byte mode (bytes_ true, queue_in_bytes_ true) with mean_pktsize_ 500: the
#   queue, the average and the thresholds are in bytes (thresholds = packets x 500), the hard limit is
#   limit_ x 500 bytes, i.e. buffer/3 packets of 1500 bytes, and the early-drop probability of a
#   1500-byte packet is scaled by 1500/500.
# - "early" drops are RED's unforced (random) drops, counted by a SnoopQueue/EDrop on the queue's
#   early-drop-target; every other drop is forced: the queue held limit or more (with the default
#   use_mark_p_ true, an average above 2 x maxthresh gives p = 1 through the early path, not a
#   forced drop). The queue monitor counts waiting packets only: the one being sent has left it.

set script aqm.tcl
source [file join [file dirname [info script]] common.tcl]

array set P {
    queue RED
    cc reno rate_mbps 200 delay_ms 50 buffer 167 access_ms 2.5 access_mbps 2000
    flows 1 duration 2000 measure_from 1000 seed 1 payload 1460 timestamps 1
    window 100000 scheduler Calendar sample_ms 1 series "" series_ms 100
}
set red_overrides {}
proc red_option {var v} {
    global red_overrides
    if {[lsearch -exact [Queue/RED info vars] $var] < 0} {
        usage "unknown Queue/RED variable '$var' (known: [lsort [Queue/RED info vars]])"
    }
    lappend red_overrides $var $v
}
parse_options $argv red. red_option " red.<var>"
check_window
set N $P(flows)
if {$N < 1} { usage "flows must be >= 1" }
if {[lsearch -exact {RED ARED DropTail} $P(queue)] < 0} { usage "queue must be RED, ARED or DropTail" }
set is_red [expr {$P(queue) ne "DropTail"}]
set ccs [per_flow cc $N modules]

set ns [new_simulator]
tcp_linux_defaults

# RED class defaults, before the link exists (see the notes above).
if {$is_red} {
    Queue/RED set adaptive_ [expr {$P(queue) eq "ARED" ? 1 : 0}]
    foreach {var v} $red_overrides { Queue/RED set $var $v }
}
set qtype [expr {$is_red ? "RED" : "DropTail"}]

# Routers and bottleneck: R1 -> R2 carries the data through the queue under test; R2 -> R1 the ACKs.
set r1 [$ns node]
set r2 [$ns node]
set rate_bps [expr {$P(rate_mbps) * 1e6}]
$ns simplex-link $r1 $r2 $rate_bps [expr {$P(delay_ms) * 1e-3}] $qtype
$ns simplex-link $r2 $r1 $rate_bps [expr {$P(delay_ms) * 1e-3}] DropTail
$ns queue-limit $r1 $r2 $P(buffer)
$ns queue-limit $r2 $r1 $P(buffer)
set bneck [$ns link $r1 $r2]
set bq [$bneck queue]

# Aggregate and per-flow monitor of the bottleneck queue, early drops counted apart
# (Simulator attach-fmon with edrop 1 puts a SnoopQueue/EDrop on RED's early-drop-target).
set fmon [$ns makeflowmon Fid]
$ns attach-fmon $bneck $fmon $is_red
set pkts_int [new Integrator]
set bytes_int [new Integrator]
$fmon set-pkts-integrator $pkts_int
$fmon set-bytes-integrator $bytes_int

# Flow i's access links, each side: access_ms * (i + 1) / N one way, as in dumbbell.tcl.
for {set i 0} {$i < $N} {incr i} {
    bulk_flow $i $r1 $r2 [expr {$P(access_ms) * ($i + 1) / double($N) * 1e-3}] [lindex $ccs $i]
}

# The RED variables as the queue uses them: read at t = 0, after `$ns run` reset the queue (reset()
# turns the packet thresholds into queue units and sets cur_max_p_ = 1 / linterm_).
set red_vars {bytes_ queue_in_bytes_ mean_pktsize_ thresh_ maxthresh_ thresh_queue_ maxthresh_queue_
    q_weight_ linterm_ cur_max_p_ gentle_ wait_ adaptive_ alpha_ beta_ interval_ targetdelay_ top_
    bottom_ feng_adaptive_ use_mark_p_ mark_p_ setbit_ drop_tail_ drop_front_ drop_rand_ ns1_compat_
    cautious_ idle_pktsize_ summarystats_ limit_}
proc print_red {} {
    global bq red_vars rate_bps
    set out "red"
    foreach v $red_vars { append out " $v=[$bq set $v]" }
    set mps [$bq set mean_pktsize_]
    set limit [$bq set limit_]
    append out [format " ptc=%.10g limit_queue=%d" [expr {$rate_bps / (8.0 * $mps)}] \
                    [expr {[$bq set queue_in_bytes_] ? $limit * $mps : $limit}]]
    puts $out
}
if {$is_red} { $ns at 0 "print_red" }

# Unwrap 32-bit byte counters: the sinks' bytes_, and the queue monitor's byte counters, which this
# build reads back as 32-bit (common.tcl).
proc sample {} {
    global fmon
    sample_sinks
    foreach c {barrivals_ bdepartures_ bdrops_} { unwrap link$c [$fmon set $c] }
}
proc link_counter {c} {
    global fmon wrap_total
    if {[string match b* $c]} { return $wrap_total(link$c) }
    return [$fmon set $c]
}

# Queue samples over the window: max of the queue, running sums of RED's ave_ and cur_max_p_.
array set S {n 0 qmax 0 ave_sum 0.0 maxp_sum 0.0}
proc qsample {} {
    global fmon bq is_red S
    set q [$fmon set pkts_]
    if {$q > $S(qmax)} { set S(qmax) $q }
    if {$is_red} {
        set S(ave_sum) [expr {$S(ave_sum) + [$bq set ave_]}]
        set S(maxp_sum) [expr {$S(maxp_sum) + [$bq set cur_max_p_]}]
    }
    incr S(n)
}

proc series_line {} {
    global ns fmon bq is_red series_fd
    set a [expr {$is_red ? [$bq set ave_] : 0}]
    set m [expr {$is_red ? [$bq set cur_max_p_] : 0}]
    puts $series_fd [format "%.3f %d %d %.6g %.6g" [$ns now] [$fmon set pkts_] [$fmon set size_] $a $m]
}

set link_counters {parrivals_ barrivals_ pdepartures_ bdepartures_ pdrops_ bdrops_}
set flow_counters {parrivals_ pdrops_ epdrops_}

# Per-flow monitor entries, created by the flow monitor at a flow's first packet.
proc flow_entries {} {
    global fmon
    set out {}
    foreach f [$fmon flows] { lappend out [$f set flowid_] $f }
    return $out
}

proc mark {} {
    global N M fmon link_counters flow_counters is_red pkts_int bytes_int
    sample
    for {set i 0} {$i < $N} {incr i} {
        mark_flow $i
        foreach c $flow_counters { set M($i,f$c) 0 }
    }
    foreach {fid f} [flow_entries] {
        foreach c $flow_counters { set M($fid,f$c) [$f set $c] }
    }
    foreach c $link_counters { set M(link,$c) [link_counter $c] }
    set M(link,epdrops_) [expr {$is_red ? [$fmon set epdrops_] : 0}]
    set M(link,pkts_int) [integral $pkts_int]
    set M(link,bytes_int) [integral $bytes_int]
}

proc finish {} {
    global N P M ccs fmon link_counters flow_counters
    global is_red pkts_int bytes_int S bq rate_bps series_fd
    sample
    set T [expr {double($P(duration) - $P(measure_from))}]
    array set F {}
    foreach {fid f} [flow_entries] {
        foreach c $flow_counters {
            set F($fid,$c) [expr {[$f set $c] - $M($fid,f$c)}]
            set F($fid,total_$c) [$f set $c]
        }
    }
    for {set i 0} {$i < $N} {incr i} {
        foreach c $flow_counters {
            if {![info exists F($i,$c)]} { set F($i,$c) 0; set F($i,total_$c) 0 }
        }
        puts [format "flow=%d cc=%s %s access_ms=%g bottleneck_arrivals=%d bottleneck_drops=%d\
bottleneck_early_drops=%d bottleneck_drops_total=%d bottleneck_early_drops_total=%d" \
                  $i [lindex $ccs $i] [flow_fields $i] [expr {$P(access_ms) * ($i + 1) / double($N)}] \
                  $F($i,parrivals_) $F($i,pdrops_) $F($i,epdrops_) $F($i,total_pdrops_) $F($i,total_epdrops_)]
    }
    foreach c $link_counters { set L($c) [expr {[link_counter $c] - $M(link,$c)}] }
    set early [expr {$is_red ? [$fmon set epdrops_] - $M(link,epdrops_) : 0}]
    set early_total [expr {$is_red ? [$fmon set epdrops_] : 0}]
    set drops_total [$fmon set pdrops_]
    set qpkts [expr {([integral $pkts_int] - $M(link,pkts_int)) / $T}]
    set qbytes [expr {([integral $bytes_int] - $M(link,bytes_int)) / $T}]
    set n [expr {max($S(n), 1)}]
    set red ""
    if {$is_red} {
        set red [format " red_ave_mean=%.6g red_ave_final=%.6g red_ave_unit=%s cur_max_p_mean=%.6g\
cur_max_p_final=%.6g" [expr {$S(ave_sum) / $n}] [$bq set ave_] \
                     [expr {[$bq set queue_in_bytes_] ? "bytes" : "packets"}] \
                     [expr {$S(maxp_sum) / $n}] [$bq set cur_max_p_]]
    }
    puts [format "link=bottleneck queue=%s utilisation=%.6f departures=%d departed_bytes=%.0f arrivals=%d\
drops=%d early_drops=%d overflow_drops=%d mean_queue_pkts=%.4f mean_queue_bytes=%.1f\
max_queue_pkts_sampled=%d queue_samples=%d drops_total=%d early_drops_total=%d overflow_drops_total=%d%s" \
              $P(queue) [expr {$L(bdepartures_) * 8.0 / ($rate_bps * $T)}] $L(pdepartures_) \
              $L(bdepartures_) $L(parrivals_) $L(pdrops_) $early [expr {$L(pdrops_) - $early}] \
              $qpkts $qbytes $S(qmax) $S(n) $drops_total $early_total [expr {$drops_total - $early_total}] $red]
    if {$series_fd ne ""} { close $series_fd }
    exit 0
}

schedule_counter_samples
$ns at $P(measure_from) "mark"
schedule_queue_samples
set series_fd ""
if {$P(series) ne ""} {
    set series_fd [open $P(series) w]
    puts $series_fd "# t_s qlen_pkts qlen_bytes red_ave red_cur_max_p ($P(queue), sampled every $P(series_ms) ms)"
    set sdt [expr {$P(series_ms) * 1e-3}]
    for {set k 0} {$k * $sdt < $P(duration)} {incr k} { $ns at [expr {$k * $sdt}] "series_line" }
}
$ns at $P(duration) "finish"
$ns run
