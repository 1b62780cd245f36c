"""The delay line's process, run by the testbed inside its middle namespace:

    ip netns exec <name>-mid python -m cclab.live.delayline --device dl0 --delay-ns 10000000 --stats FILE

It creates the TUN device (IFF_TUN | IFF_NO_PI: bare IP packets, one per read and write), starts the Rust
delay line on it (cclab._engine.DelayLine, crate cclab-delayline: no Python per packet), prints one JSON
line {"ready": true, ...} on stdout for the testbed, then writes its counters to FILE every second and on
SIGUSR1, and stops on SIGTERM or SIGINT after writing them once more. The device lives as long as its file
descriptor: when this process ends, the kernel removes it.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import signal
import struct
import sys
from pathlib import Path

TUNSETIFF = 0x400454CA       # _IOW('T', 202, int), linux/if_tun.h
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000           # no 4-byte packet-information header before each packet
CAPACITY_PACKETS = 65_536    # packets held at most: 100 Mbit/s x 1 s of 1500-byte packets is 8,333


def open_tun(device: str) -> int:
    """A TUN device named `device` in this process's namespace; the returned fd reads and writes packets."""
    fd = os.open("/dev/net/tun", os.O_RDWR)
    request = struct.pack("16sH22x", device.encode(), IFF_TUN | IFF_NO_PI)   # struct ifreq
    fcntl.ioctl(fd, TUNSETIFF, request)
    return fd


def write_stats(path: Path, stats: dict) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(json.dumps(stats) + "\n", encoding="utf-8")
    os.replace(temporary, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m cclab.live.delayline")
    parser.add_argument("--device", required=True)
    parser.add_argument("--delay-ns", type=int, required=True)
    parser.add_argument("--stats", type=Path, required=True)
    args = parser.parse_args(argv)

    from cclab._engine import DelayLine

    wanted = {signal.SIGTERM, signal.SIGINT, signal.SIGUSR1}
    signal.pthread_sigmask(signal.SIG_BLOCK, wanted)   # taken by sigtimedwait below, never by a handler
    fd = open_tun(args.device)
    line = DelayLine(fd, args.delay_ns, CAPACITY_PACKETS)
    print(json.dumps({"ready": True, "pid": os.getpid(), "device": args.device}), flush=True)
    try:
        while True:
            caught = signal.sigtimedwait(wanted, 1.0)
            write_stats(args.stats, {"delay_ns": args.delay_ns, **line.stats()})
            if caught is not None and caught.si_signo in (signal.SIGTERM, signal.SIGINT):
                break
    finally:
        final = line.stats()   # stop() releases the line, and its counters with it
        line.stop()
        write_stats(args.stats, {"delay_ns": args.delay_ns, "stopped": True, **final})
        os.close(fd)
    return 0


if __name__ == "__main__":
    sys.exit(main())
