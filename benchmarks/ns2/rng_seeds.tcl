# rng_seeds.tcl -- how ns-2.35's default random number generator behaves across `$defaultRNG seed N`, as
# dumbbell.tcl seeds it (docs/validation.md, "Seed 001: window_ as a cwnd clamp").
#
# Usage:  ns rng_seeds.tcl [key=value ...]
#
#   seeds=1-5        the seeds, a range first-last
#   draws=1500000    uniforms drawn per seed from a RandomVariable/Uniform on the default RNG, the draws
#                    dumbbell.tcl's error model makes (one per packet that reaches it)
#   split=500000     count the draws below `rate` separately in [0, split) and [split, draws) (split is
#                    cut to draws if larger)
#   rate=1e-5        the packet error rate compared with
#   streams=seed     seed: `$defaultRNG seed N`, as dumbbell.tcl does; substream: `$defaultRNG seed 1`,
#                    then `next-substream` N - 1 times (each a jump of 2^76 draws), the remedy
#   list=0           1: also print the index of every draw below `rate`, and at the end how many indices
#                    more than one seed has below `rate`, and the index most seeds share
#
# Output: one line per seed, "seed=N early=... late=..." (and "hits=i,j,..." with list=1); with list=1 a
# last line "shared indices=... seeds_sharing=... most=INDEX:SEEDS", where seeds_sharing counts the
# (index, seed) pairs on those indices. Independent streams would share an index about
# draws x (seeds choose 2) x rate^2 times.
#
# Why: ns-2.35's RNG::set_seed(long) (tools/rng.cc) puts N in all six words of the MRG32k3a state. The
# generator is linear, so seed N's state after n draws is N times seed 1's, word by word (mod m1 and m2),
# and draws near 0 fall at the same index for many seeds: their error draws are not independent
# replications. (In dumbbell.tcl the error model also takes one draw per error, for the queue's resume
# time, so its draws run a few indices behind these.)
# Draws only; no simulation runs.

set script rng_seeds.tcl
source [file join [file dirname [info script]] common.tcl]

array set P { seeds 1-5 draws 1500000 split 500000 rate 1e-5 list 0 streams seed }
parse_options $argv
if {![regexp {^(\d+)-(\d+)$} $P(seeds) -> first last] || $first < 1 || $last < $first} {
    usage "seeds must be a range first-last of positive integers, e.g. 1-100"
}
if {$P(split) > $P(draws)} { set P(split) $P(draws) }
if {$P(streams) ni {seed substream}} { usage "streams must be seed or substream" }

for {set seed $first} {$seed <= $last} {incr seed} {
    if {$P(streams) eq "seed"} {
        $defaultRNG seed $seed
    } else {
        $defaultRNG seed 1
        for {set k 1} {$k < $seed} {incr k} { $defaultRNG next-substream }
    }
    set uniform [new RandomVariable/Uniform]
    set early 0
    set late 0
    set hits {}
    for {set i 0} {$i < $P(draws)} {incr i} {
        if {[$uniform value] < $P(rate)} {
            if {$i < $P(split)} { incr early } else { incr late }
            if {$P(list)} {
                lappend hits $i
                if {[info exists shared($i)]} { incr shared($i) } else { set shared($i) 1 }
            }
        }
    }
    set line "seed=$seed early=$early late=$late"
    if {$P(list)} { append line " hits=[join $hits ,]" }
    puts $line
    flush stdout
    delete $uniform
}
if {$P(list)} {
    set indices 0
    set pairs 0
    set most "-"
    set most_seeds 1
    foreach i [lsort -integer [array names shared]] {
        if {$shared($i) < 2} { continue }
        incr indices
        incr pairs $shared($i)
        if {$shared($i) > $most_seeds} { set most "$i"; set most_seeds $shared($i) }
    }
    puts "shared indices=$indices seeds_sharing=$pairs most=$most:$most_seeds"
}
exit 0
