# traffic.tcl -- ns-2.35 TCP-Linux reference runs for cclab's traffic models (benchmarks/traffic_crosscheck.py).
#
# Usage:  ns traffic.tcl mode=reverse|transfers [key=value ...]
#
#   mode=reverse      one bulk flow left to right and one right to left, both from t = 0: each bottleneck
#                     direction carries one flow's data and the other's ACKs
#   mode=transfers    `count` transfers of `packets` packets each, the k-th starting at first + k * interval,
#                     each its own agent pair on one sender node and one receiver node
#   cc=reno  rate_mbps=10  delay_ms=20  buffer=50  access_ms=1  access_mbps=100
#   duration=100  measure_from=20  payload=1460
#   packets=30  interval=0.1  first=0.5  count=500
#
# Output, key=value lines:
#   reverse:   flow=0 direction=forward goodput_bps=...   (over [measure_from, duration])
#   transfers: transfer=k start=... done=...               (done = -1 if not finished by `duration`)
#
# Notes (ns-2.35 semantics, checked by tracing):
# - Agent/TCP syn_ is set false: with it true the agent sends a 40-byte packet 0 before the data (a
#   stand-in for a SYN), which cclab does not. Even so ns-2 sends packet 0 at packetSize_ bytes on the
#   wire (1460), not packetSize_ + 40, so each transfer finishes 40 bytes' serialisation earlier
#   (32 us at 10 Mbit/s) than in cclab, whose segments are all 1500 bytes.
# - `$ftp produce n` sends packets 0 .. n-1; Agent/TCP calls `done` when the last is acknowledged.
# - DropTail queue-limit as in dumbbell.tcl (the packet being sent counts); access queues never drop.

set script traffic.tcl
source [file join [file dirname [info script]] common.tcl]

array set P {
    mode reverse cc reno rate_mbps 10 delay_ms 20 buffer 50 access_ms 1 access_mbps 100
    duration 100 measure_from 20 payload 1460 packets 30 interval 0.1 first 0.5 count 500
}
parse_options $argv

remove-all-packet-headers
add-packet-header IP TCP Flags
set ns [new Simulator]
Agent/TCP set packetSize_ $P(payload)
Agent/TCP set window_ 100000
Agent/TCP set maxcwnd_ 100000
Agent/TCP set ts_option_size_ 0
Agent/TCP set syn_ false
Agent/TCP/Linux set timestamps_ true

set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 [expr {$P(rate_mbps) * 1e6}] [expr {$P(delay_ms) * 1e-3}] DropTail
$ns queue-limit $r1 $r2 $P(buffer)
$ns queue-limit $r2 $r1 $P(buffer)
set access_bps [expr {$P(access_mbps) * 1e6}]
set access_s [expr {$P(access_ms) * 1e-3}]

# A host on each side, with access links that never drop.
proc host {router} {
    global ns access_bps access_s
    set h [$ns node]
    $ns duplex-link $h $router $access_bps $access_s DropTail
    $ns queue-limit $h $router 1000000
    $ns queue-limit $router $h 1000000
    return $h
}

proc pair {from to fid} {
    global ns P
    set tcp [new Agent/TCP/Linux]
    $tcp set fid_ $fid
    set sink [new Agent/TCPSink/Sack1]
    $ns attach-agent $from $tcp
    $ns attach-agent $to $sink
    $ns connect $tcp $sink
    $ns at 0 "$tcp select_ca $P(cc)"
    return [list $tcp $sink]
}

if {$P(mode) eq "reverse"} {
    # Flow 0: left host -> right host; flow 1: right host -> left host, each with its own hosts.
    set ends {}
    lappend ends [list [host $r1] [host $r2] forward]
    lappend ends [list [host $r2] [host $r1] reverse]
    set i 0
    foreach e $ends {
        lassign [pair [lindex $e 0] [lindex $e 1] $i] tcp($i) sink($i)
        set dir($i) [lindex $e 2]
        set ftp($i) [$tcp($i) attach-app FTP]
        $ns at 0 "$ftp($i) start"
        set total($i) 0
        incr i
    }
    # Unwrap the 32-bit sink byte counters (wire bytes, headers included; common.tcl).
    proc sample {} {
        global sink total
        foreach i {0 1} { set total($i) [unwrap sink$i [$sink($i) set bytes_]] }
    }
    proc mark {} { global total M; sample; foreach i {0 1} { set M($i) $total($i) } }
    proc finish {} {
        global P total M dir
        sample
        set T [expr {double($P(duration) - $P(measure_from))}]
        foreach i {0 1} {
            set pkts [expr {($total($i) - $M($i)) / ($P(payload) + 40)}]
            puts [format "flow=%d direction=%s goodput_bps=%.1f" $i $dir($i) [expr {$pkts * $P(payload) * 8.0 / $T}]]
        }
        exit 0
    }
    for {set t 1} {$t < $P(duration)} {incr t} { $ns at $t "sample" }
    $ns at $P(measure_from) "mark"
    $ns at $P(duration) "finish"
} else {
    set src [host $r1]
    set dst [host $r2]
    Agent/TCP instproc done {} {
        global ns done_at
        set done_at([$self set fid_]) [$ns now]
    }
    for {set k 0} {$k < $P(count)} {incr k} {
        lassign [pair $src $dst $k] tcp sink
        set ftp [$tcp attach-app FTP]
        set start($k) [expr {$P(first) + $k * $P(interval)}]
        $ns at $start($k) "$ftp produce $P(packets)"
    }
    proc finish {} {
        global P start done_at
        for {set k 0} {$k < $P(count)} {incr k} {
            set done [expr {[info exists done_at($k)] ? $done_at($k) : -1}]
            puts [format "transfer=%d start=%.9f done=%.9f" $k $start($k) $done]
        }
        exit 0
    }
    $ns at $P(duration) "finish"
}
$ns run
