# substream.tcl -- run dumbbell.tcl with run k on the k-th substream of ns-2's default generator,
# instead of `$defaultRNG seed k` (docs/validation.md, "Seed 001: window_ as a cwnd clamp").
#
# Usage:  ns substream.tcl stream=K [dumbbell.tcl's key=value ...]
#
#   stream=1   the substream, K >= 1: `$defaultRNG seed 1`, then `next-substream` K - 1 times (each a jump
#              of 2^76 draws of MRG32k3a). dumbbell.tcl's own seed= is refused: the stream replaces it.
#
# Why a wrapper: ns-2.35's RNG::set_seed(long) puts N in all six words of the MRG32k3a state, so seeds
# 1, 2, 3, ... give streams whose draws near 0 (the packet errors) fall at the same indices
# (rng_seeds.tcl measures it; rng_seeds.tcl streams=substream measures this remedy). dumbbell.tcl and
# common.tcl are left as they are, because their hash stamps every cached ns-2 row
# (benchmarks/provenance.py); this file is stamped beside them.
#
# How: common.tcl's new_simulator seeds the generator (`$defaultRNG seed $P(seed)`, seed 1 here) and
# returns the simulator, which dumbbell.tcl stores in the global `ns` before it builds anything that
# draws. A write trace on `ns` moves the generator to the stream at that moment, once. With stream=1
# the trace seeds 1 again and jumps nowhere, so the run is dumbbell.tcl's seed=1 run, digit for digit.

set stream 1
set passed {}
foreach arg $argv {
    if {[regexp {^stream=(.*)$} $arg -> value]} {
        if {![string is integer -strict $value] || $value < 1} {
            puts stderr "substream.tcl: stream must be an integer >= 1, not '$value'"
            exit 2
        }
        set stream $value
    } elseif {[string match seed=* $arg]} {
        puts stderr "substream.tcl: seed= is replaced by stream=; give stream= alone"
        exit 2
    } else {
        lappend passed $arg
    }
}
set argv $passed
set argc [llength $argv]

proc select_stream {args} {
    global defaultRNG stream
    trace remove variable ::ns write select_stream
    $defaultRNG seed 1
    for {set k 1} {$k < $stream} {incr k} { $defaultRNG next-substream }
}
trace add variable ::ns write select_stream

source [file join [file dirname [info script]] dumbbell.tcl]
