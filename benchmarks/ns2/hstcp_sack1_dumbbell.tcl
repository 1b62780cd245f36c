# hstcp_sack1_dumbbell.tcl -- sack1_dumbbell.tcl with ns-2's own HighSpeed TCP window law, Agent/TCP's
# windowOption_ 8 (tcp/tcp.cc, RFC 3649 after Floyd, Ratnasamy and de Souza), for
# benchmarks/crosscheck_laws.py. Seed 003's HSTCP flows ran on ns-2's TCP-SACK agent (2003); this is the
# HighSpeed law that agent inherits from Agent/TCP. Debian's /usr/bin/ns (ns-2.35) has it.
#
# Usage:  ns hstcp_sack1_dumbbell.tcl [key=value ...]     the keys of sack1_dumbbell.tcl, the same meaning
#
# What windowOption_ 8 does (ns-2.35, with ns-default.tcl's low_window_ 38, high_window_ 83000, high_p_ 1e-7,
# high_decrease_ 0.1, max_ssthresh_ 0, cwnd_range_ 0, precisionReduce_ true), read in tcp/tcp.cc:
# - above low_window_, cwnd_ (a double) += a(w)/w per new ACK in congestion avoidance, a(w) = w^2 p(w) /
#   (1/b(w) - 0.5) evaluated at the current real cwnd_ (no caching: cwnd_range_ 0), with p(w) on the log-log
#   line from (low_window_, 1.5/low_window_^2) to (high_window_, high_p_) and b(w) on the line in log w from
#   (low_window_, 0.5) to (high_window_, high_decrease_), neither held beyond high_window_;
# - slow start +1 per new ACK while cwnd_ < ssthresh_ (no limited slow start: max_ssthresh_ 0);
# - `slowdown`: the first reduction of the connection (first_decrease_), one in slow start, and every
#   timeout (last_cwnd_action_ is set to TIMEOUT before the call) cut to half; the others to (1 - b(w)) w.
#   Above low_window_ each reduction leaves decrease_num_ = b(w), which a later reduction at or below
#   low_window_ then applies as its factor: cwnd_ = b w there, not w / 2.
# The agent, its sink, the topology and the output are sack1_dumbbell.tcl's; output lines say cc=sack1.

Agent/TCP set windowOption_ 8
source [file join [file dirname [info script]] sack1_dumbbell.tcl]
