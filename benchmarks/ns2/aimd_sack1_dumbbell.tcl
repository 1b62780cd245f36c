# aimd_sack1_dumbbell.tcl -- sack1_dumbbell.tcl with seed 003's AIMD(32, 0.125) as ns-2's Agent/TCP runs it:
# windowOption_ 1 (cwnd_ += increase_num_ / cwnd_ per new ACK in congestion avoidance, a double) with
# increase_num_ 32 and decrease_num_ 0.875, for benchmarks/crosscheck_laws.py. Debian's /usr/bin/ns
# (ns-2.35) has it.
#
# Usage:  ns aimd_sack1_dumbbell.tcl [key=value ...]     the keys of sack1_dumbbell.tcl, the same meaning
#
# Agent/TCP's `slowdown` (tcp/tcp.cc, precisionReduce_ true) keeps decrease_num_ of the window at a fast
# retransmit, but halves the connection's first reduction (first_decrease_), one in slow start and every
# timeout (last_cwnd_action_ is set to TIMEOUT before the call); cclab's `reductions = "ns2"`
# (crates/engine/src/cc/ns2_slowdown.rs) models that. The agent, its sink, the topology and the output are
# sack1_dumbbell.tcl's; output lines say cc=sack1.

Agent/TCP set increase_num_ 32
Agent/TCP set decrease_num_ 0.875
source [file join [file dirname [info script]] sack1_dumbbell.tcl]
