"""Live measurement of real TCP stacks (issue 17; the method of seed 002, De Cicco & Mascolo 2008).

Seed 002 measured Linux TCP over a real path with a modified iperf that sampled the kernel's per-connection
state through Web100. This package does the same with today's kernel interface, TCP_INFO:

    tcpinfo.py    the kernel's struct tcp_info (and BBR's tcp_bbr_info) decoded into columns
    sampler.py    a thread that samples TCP_INFO of the sending sockets every few ms
    transfer.py   the server (receives, counts, answers with what it got) and the client's flows
    runs.py       a measurement: flows per run, rotation across algorithms, repetitions; its metrics
    store.py      live runs into the result store beside simulations (source = "live")
    system.py     what the machine must allow (root, namespaces, a congestion control) and clear errors
    netns.py      entering a network namespace from one thread (setns)
    testbed.py    the local testbed: three namespaces, a delay line and htb + pfifo as the bottleneck
    delayline.py  the process that runs the delay line in the testbed's middle namespace
    compare.py    one dumbbell scenario in the simulator and on the testbed, side by side

docs/live.md describes their use, what the sampler sees and not, and measurements.
"""
