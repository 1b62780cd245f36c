# overhead_sack1.tcl -- run a Sack1 script of this folder (sack1_dumbbell.tcl or one of its law wrappers)
# with ns-2's Agent/TCP overhead_ set: each send waits a uniform random time in [0, overhead_) first
# (Sack1TcpAgent::send_much's delayed send), which breaks the phase effects of a deterministic run. For
# benchmarks/crosscheck_draws.py. Debian's /usr/bin/ns (ns-2.35).
#
# Usage:  ns overhead_sack1.tcl script=aimd_sack1_dumbbell.tcl overhead_us=100 [key=value ...]
#
#   script=       the script run, in this folder; the remaining keys are its own
#   overhead_us=  Agent/TCP overhead_ in microseconds (0: none)
# The waits are drawn from ns-2's default RNG, whose substream the script's stream= key chooses.

set script_name ""
set rest {}
foreach arg $argv {
    if {[string match script=* $arg]} {
        set script_name [string range $arg 7 end]
    } elseif {[string match overhead_us=* $arg]} {
        Agent/TCP set overhead_ [expr {[string range $arg 12 end] * 1e-6}]
    } else {
        lappend rest $arg
    }
}
if {$script_name eq ""} {
    puts stderr "usage: ns overhead_sack1.tcl script=SCRIPT overhead_us=US \[key=value ...\]"
    exit 1
}
set argv $rest
set argc [llength $argv]
source [file join [file dirname [info script]] $script_name]
