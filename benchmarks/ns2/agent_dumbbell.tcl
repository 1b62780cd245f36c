# agent_dumbbell.tcl -- dumbbell.tcl's topology for an ns-2 TCP agent of its own class (not TCP-Linux's
# select_ca modules): what fast_dumbbell.tcl (Agent/TCP/Fast) and sack1_dumbbell.tcl (Agent/TCP/Sack1) share.
# Sourced after common.tcl, once the script's P array is parsed and `ns` made. benchmarks/provenance.py
# hashes this file with every script that sources it.
#
# agent_bottleneck            R1 <-> R2 with P(rate_mbps), P(delay_ms), P(buffer) packets of DropTail each
#                             way, and, when P(per) > 0, dumbbell.tcl's random packet errors on R1 -> R2
#                             (after R1's queue, a uniform random variable from the default RNG; written
#                             again here because dumbbell.tcl's hash keys every cached reference)
# agent_flows CLASS           flows 0..N-1 as common.tcl's bulk_flow, with Agent/TCP/CLASS in place of
#                             Agent/TCP/Linux + select_ca: access links of access_ms * (i + 1) / N one way
#                             on each side that never drop, a TCPSink/Sack1, FTP from t = 0
# agent_schedule CC TRACE     the measurement (mark at measure_from, finish at duration: one line per flow,
#                             as dumbbell.tcl's, with cc=CC) and, when P(trace_dt) > 0, every trace_dt the
#                             line TRACE returns for each flow i and "queue t=... pkts=... drops=..." for
#                             R1 -> R2; then runs

proc agent_bottleneck {} {
    global ns P r1 r2
    set r1 [$ns node]
    set r2 [$ns node]
    $ns duplex-link $r1 $r2 [expr {$P(rate_mbps) * 1e6}] [expr {$P(delay_ms) * 1e-3}] DropTail
    $ns queue-limit $r1 $r2 $P(buffer)
    $ns queue-limit $r2 $r1 $P(buffer)
    if {[info exists P(per)] && $P(per) > 0} {
        set em [new ErrorModel]
        $em unit pkt
        $em set rate_ $P(per)
        $em ranvar [new RandomVariable/Uniform]
        $em drop-target [new Agent/Null]
        $ns lossmodel $em $r1 $r2
    }
}

proc agent_flow {i class delay_s} {
    global ns P r1 r2 src dst tcp sink ftp total_bytes
    set access_bps [expr {$P(access_mbps) * 1e6}]
    set src($i) [$ns node]
    set dst($i) [$ns node]
    $ns duplex-link $src($i) $r1 $access_bps $delay_s DropTail
    $ns duplex-link $r2 $dst($i) $access_bps $delay_s DropTail
    foreach {a b} [list $src($i) $r1 $r1 $src($i) $r2 $dst($i) $dst($i) $r2] {
        $ns queue-limit $a $b 1000000
    }
    set tcp($i) [new Agent/TCP/$class]
    $tcp($i) set fid_ $i
    set sink($i) [new Agent/TCPSink/Sack1]
    $ns attach-agent $src($i) $tcp($i)
    $ns attach-agent $dst($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    set ftp($i) [$tcp($i) attach-app FTP]
    $ns at 0 "$ftp($i) start"
    set total_bytes($i) 0
}

proc agent_flows {class} {
    global P N
    for {set i 0} {$i < $N} {incr i} {
        agent_flow $i $class [expr {$P(access_ms) * ($i + 1) / double($N) * 1e-3}]
    }
}

proc sample {} { sample_sinks }

proc mark {} {
    global N
    sample
    for {set i 0} {$i < $N} {incr i} { mark_flow $i }
}

proc agent_finish {cc} {
    global N P
    sample
    for {set i 0} {$i < $N} {incr i} {
        puts [format "flow=%d cc=%s %s access_ms=%g" $i $cc [flow_fields $i] \
                  [expr {$P(access_ms) * ($i + 1) / double($N)}]]
    }
    exit 0
}

proc agent_trace {line} {
    global ns P N qmon
    set now [$ns now]
    for {set i 0} {$i < $N} {incr i} { puts [$line $i $now] }
    puts [format "queue t=%.3f pkts=%d drops=%d" $now [$qmon set pkts_] [$qmon set pdrops_]]
    $ns at [expr {$now + $P(trace_dt)}] [list agent_trace $line]
}

proc agent_schedule {cc line} {
    global ns P r1 r2 qmon
    schedule_counter_samples
    if {$P(trace_dt) > 0} {
        set qmon [$ns monitor-queue $r1 $r2 [open /dev/null w]]
        $ns at $P(trace_dt) [list agent_trace $line]
    }
    $ns at $P(measure_from) "mark"
    $ns at $P(duration) [list agent_finish $cc]
    $ns run
}
