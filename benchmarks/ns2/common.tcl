# common.tcl -- what the ns-2.35 reference scripts of benchmarks/ns2/ share: key=value options, the
# simulator and TCP-Linux agent settings, bulk flows on access links that never drop, 32-bit counter
# unwrapping, the queue-sample clock and the per-flow result fields.
#
# Sourced by dumbbell.tcl, aqm.tcl, parkinglot.tcl and traffic.tcl, which set `script` (their name, for
# messages) and the array P of their options with defaults before calling anything here. Nothing here
# runs on its own: the procs are called in the same order the scripts made these calls before they
# were factored out, so every script prints the same numbers as before: benchmarks/ns2_recheck.py re-runs
# cached reference runs and compares them digit for digit (docs/validation.md).

set wrap_modulus 4294967296    ;# 2^32: ns-2's byte counters are C ints read back as 32 bits

proc usage {msg} {
    global script
    puts stderr "$script: $msg"
    exit 2
}

# key=value arguments into P; only keys P already has are accepted. A key starting with `prefix` (e.g.
# "red.") is passed, without the prefix, to the command `on_prefixed var value` instead; `hint` is added
# to the list of known keys in the error message.
proc parse_options {argv {prefix ""} {on_prefixed ""} {hint ""}} {
    global P
    foreach arg $argv {
        set eq [string first = $arg]
        if {$eq < 1} { usage "bad argument '$arg' (want key=value)" }
        set k [string range $arg 0 [expr {$eq - 1}]]
        set v [string range $arg [expr {$eq + 1}] end]
        if {$prefix ne "" && [string match $prefix* $k]} {
            {*}$on_prefixed [string range $k [string length $prefix] end] $v
            continue
        }
        if {![info exists P($k)]} { usage "unknown key '$k' (known: [lsort [array names P]]$hint)" }
        set P($k) $v
    }
}

# Figures are measured over [measure_from, duration]: the window must not be empty.
proc check_window {} {
    global P
    if {$P(measure_from) >= $P(duration)} { usage "measure_from must be < duration" }
}

# The n values of option `key`: one value for every flow, or a comma-separated list of exactly n.
proc per_flow {key n {what values}} {
    global P
    set vals [split $P($key) ,]
    if {[llength $vals] == 1} {
        return [lrepeat $n $P($key)]
    }
    if {[llength $vals] != $n} { usage "$key lists [llength $vals] $what for $n flows" }
    return $vals
}

# The simulator with only the packet headers these scenarios use (ns-2 otherwise allocates every header
# type in every packet, several kB each); Flags because the flow monitors read the ECN bits.
proc new_simulator {} {
    global P defaultRNG
    remove-all-packet-headers
    add-packet-header IP TCP Flags
    set ns [new Simulator]
    $ns use-scheduler $P(scheduler)
    $defaultRNG seed $P(seed)
    return $ns
}

# Agent/TCP/Linux as every reference run uses it. packetSize_ is the payload; the wire adds 40 bytes
# (tcpip_base_hdr_size_) and, with timestamps on, ts_option_size_ (10 by default), which is set to 0 so a
# data packet stays payload + 40 = 1500 bytes on the wire, as in cclab. window_ (= Linux snd_cwnd_clamp)
# and maxcwnd_ are P(window) packets. Sets the global wire_bytes.
proc tcp_linux_defaults {} {
    global P wire_bytes
    Agent/TCP set packetSize_ $P(payload)
    Agent/TCP set window_ $P(window)
    Agent/TCP set maxcwnd_ $P(window)
    Agent/TCP set ts_option_size_ 0
    Agent/TCP/Linux set timestamps_ [expr {$P(timestamps) ? "true" : "false"}]
    set wire_bytes [expr {$P(payload) + 40}]
}

# Bulk flow i: a sender node linked to router `left` and a receiver node linked to router `right`, each
# by a duplex access link of `delay_s` seconds one way at P(access_mbps), with queues big enough never to
# drop (only the bottlenecks drop); Agent/TCP/Linux running the Linux module `cc` into a SACK sink, FTP
# from t = 0. Sets src(i), dst(i), tcp(i), sink(i), ftp(i) and total_bytes(i).
proc bulk_flow {i left right delay_s cc} {
    global ns P src dst tcp sink ftp total_bytes
    set access_bps [expr {$P(access_mbps) * 1e6}]
    set access_qlim 1000000
    set src($i) [$ns node]
    set dst($i) [$ns node]
    $ns duplex-link $src($i) $left $access_bps $delay_s DropTail
    $ns duplex-link $right $dst($i) $access_bps $delay_s DropTail
    foreach {a b} [list $src($i) $left $left $src($i) $right $dst($i) $dst($i) $right] {
        $ns queue-limit $a $b $access_qlim
    }
    set tcp($i) [new Agent/TCP/Linux]
    $tcp($i) set fid_ $i
    set sink($i) [new Agent/TCPSink/Sack1]
    $ns attach-agent $src($i) $tcp($i)
    $ns attach-agent $dst($i) $sink($i)
    $ns connect $tcp($i) $sink($i)
    $ns at 0 "$tcp($i) select_ca $cc"
    set ftp($i) [$tcp($i) attach-app FTP]
    $ns at 0 "$ftp($i) start"
    set total_bytes($i) 0
}

# The running total of a 32-bit counter `name` whose raw reading is `raw`: sampled every 5 s, far less
# than one wrap at 1 Gbit/s (34 s).
array set wrap_last {}
array set wrap_total {}
proc unwrap {name raw} {
    global wrap_last wrap_total wrap_modulus
    if {![info exists wrap_last($name)]} { set wrap_last($name) 0; set wrap_total($name) 0 }
    set delta [expr {$raw - $wrap_last($name)}]
    if {$delta < 0} { set delta [expr {$delta + $wrap_modulus}] }
    set wrap_last($name) $raw
    set wrap_total($name) [expr {$wrap_total($name) + $delta}]
    return $wrap_total($name)
}

# The sinks' delivered bytes (TCPSink bytes_: in-order bytes including the 40-byte header) of flows
# 0 .. N-1, unwrapped into total_bytes.
proc sample_sinks {} {
    global N sink total_bytes
    for {set i 0} {$i < $N} {incr i} { set total_bytes($i) [unwrap sink$i [$sink($i) set bytes_]] }
}

# A script's `sample` proc every 5 simulated seconds.
proc schedule_counter_samples {} {
    global ns P
    for {set t 5} {$t < $P(duration)} {incr t 5} { $ns at $t "sample" }
}

# A script's `qsample` proc every P(sample_ms) over [measure_from, duration]. Integer sample times
# (k x sample_ms) avoid drift from repeated floating-point addition.
proc schedule_queue_samples {} {
    global ns P dt k1
    set dt [expr {$P(sample_ms) * 1e-3}]
    set k0 [expr {int(ceil($P(measure_from) / $dt))}]
    set k1 [expr {int(floor($P(duration) / $dt))}]
    if {$k0 < $k1} { $ns at [expr {$k0 * $dt}] "qsample_at $k0" }
}
proc qsample_at {k} {
    global ns dt k1
    qsample
    incr k
    if {$k < $k1} { $ns at [expr {$k * $dt}] "qsample_at $k" }
}

# Integrator sum_ up to now (the integral of a queue length over time, packet.s or byte.s).
proc integral {int} {
    global ns
    $int newpoint [$ns now] [$int set lasty_]
    return [$int set sum_]
}

# The agent counters a flow's figures come from: data packets sent, retransmitted packets, RTOs, and
# window cuts (fast-recovery entries and RTOs).
set tcp_counters {ndatapack_ nrexmitpack_ nrexmit_ ncwndcuts_}

# Flow i's counters at the start of the measurement window (call after the sinks were sampled).
proc mark_flow {i} {
    global tcp total_bytes tcp_counters M
    set M($i,bytes) $total_bytes($i)
    foreach c $tcp_counters { set M($i,$c) [$tcp($i) set $c] }
}

# Flow i's figures over [measure_from, duration] as key=value text (call after the sinks were sampled):
# goodput counts whole delivered packets' payload, delivered_bps the wire bytes; loss_events are the
# window cuts that were not RTOs.
proc flow_fields {i} {
    global P tcp total_bytes tcp_counters M wire_bytes
    set T [expr {double($P(duration) - $P(measure_from))}]
    set bytes [expr {$total_bytes($i) - $M($i,bytes)}]
    set pkts [expr {$bytes / $wire_bytes}]
    foreach c $tcp_counters { set D($c) [expr {[$tcp($i) set $c] - $M($i,$c)}] }
    return [format "goodput_bps=%.1f delivered_bps=%.1f delivered_packets=%d packets_sent=%d\
packets_sent_total=%d retransmissions=%d timeouts=%d loss_events=%d cwnd_cuts=%d final_cwnd=%d" \
                [expr {$pkts * $P(payload) * 8.0 / $T}] [expr {$bytes * 8.0 / $T}] $pkts \
                $D(ndatapack_) [$tcp($i) set ndatapack_] $D(nrexmitpack_) $D(nrexmit_) \
                [expr {$D(ncwndcuts_) - $D(nrexmit_)}] $D(ncwndcuts_) [expr {int([$tcp($i) set cwnd_])}]]
}
