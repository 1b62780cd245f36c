"""The local testbed: a dumbbell's bottleneck between two network namespaces, on one machine.

    <name>-snd  snd0 10.201.1.1 ──veth── mid-s 10.201.1.2   <name>-mid   10.201.2.2 mid-r ──veth── rcv0 10.201.2.1  <name>-rcv
                                               │  dl0 (TUN): the delay line   │
                                               └── policy routing: every packet arriving on mid-s or mid-r goes
                                                   through dl0 first, then on by destination

- Delay: this kernel's netem may be missing (it is on the machine cclab was built on), so a userspace delay
  line (crate cclab-delayline, run by cclab.live.delayline in the middle namespace) holds every packet
  crossing the middle namespace for `delay_ns`, each direction: the round trip is 2 x delay_ns plus a few
  tens of µs of the kernel's own (docs/live.md has the measured accuracy).
- Rate and buffer: htb on mid-r's egress (the data direction, sender to receiver) at the scenario's rate,
  with a pfifo of `buffer_packets` packets under it: the dumbbell's DropTail bottleneck. htb counts the
  14-byte Ethernet header, so it is given rate x 1514/1500 to carry 1500-byte IP packets at the rate.
  The way back (ACKs) is not shaped. rate_bps = None leaves the data direction unshaped too.
- The sender's namespace does not save TCP metrics (net.ipv4.tcp_no_metrics_save = 1): a connection
  starts with no ssthresh cached by the previous one, so rotated runs do not inherit each other's state.

`up` and `down` are idempotent; the state of a running testbed is in /run/cclab/testbed-<name>.json.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from .system import LiveError, require_namespaces, require_root

STATE_DIR = Path("/run/cclab")
SENDER_ADDRESS = "10.201.1.1"
RECEIVER_ADDRESS = "10.201.2.1"
MIDDLE_SENDER_SIDE = "10.201.1.2"
MIDDLE_RECEIVER_SIDE = "10.201.2.2"
DELAY_DEVICE = "dl0"
ROUTE_TABLE = "100"
ETHERNET_HEADER_BYTES = 14
IP_PACKET_BYTES = 1500
READY_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class TestbedConfig:
    __test__ = False                     # not a test class, whatever pytest guesses from the name
    name: str = "cclab"                  # namespaces <name>-snd, <name>-mid, <name>-rcv
    rate_bps: int | None = 20_000_000    # bottleneck rate of IP packets, bit/s; None: unshaped
    delay_ns: int = 10_000_000           # one-way delay added in each direction, ns
    buffer_packets: int = 50             # the bottleneck's DropTail limit, packets

    def __post_init__(self) -> None:
        if not self.name or len(self.name) > 20 or not self.name.replace("-", "").isalnum():
            raise LiveError(f"testbed name {self.name!r}: use up to 20 letters, digits and '-'")
        if self.rate_bps is not None and self.rate_bps < 100_000:
            raise LiveError(f"testbed rate {self.rate_bps} bit/s: use at least 100 kbit/s")
        if self.delay_ns < 0 or self.buffer_packets < 1:
            raise LiveError("testbed delay must be >= 0 and the buffer at least 1 packet")

    @property
    def sender(self) -> str:
        return f"{self.name}-snd"

    @property
    def middle(self) -> str:
        return f"{self.name}-mid"

    @property
    def receiver(self) -> str:
        return f"{self.name}-rcv"

    def describe(self) -> str:
        rate = "unshaped" if self.rate_bps is None else f"{self.rate_bps / 1e6:g} Mbit/s"
        return (f"testbed {self.name!r}: {rate}, one-way delay {self.delay_ns / 1e6:g} ms (RTT "
                f"{2 * self.delay_ns / 1e6:g} ms), buffer {self.buffer_packets} packets")


def _state_path(name: str) -> Path:
    return STATE_DIR / f"testbed-{name}.json"


def _run(*argv: str, check: bool = True) -> subprocess.CompletedProcess:
    try:
        done = subprocess.run(argv, capture_output=True, text=True)
    except FileNotFoundError:
        raise LiveError(f"`{argv[0]}` is not installed; the testbed needs iproute2 (ip, tc)") from None
    if check and done.returncode != 0:
        message = done.stderr.strip() or done.stdout.strip()
        hint = ""
        if "Specified qdisc kind is unknown" in message:
            hint = " (this kernel lacks that queueing discipline: the testbed needs htb and pfifo)"
        raise LiveError(f"`{' '.join(argv)}` failed: {message}{hint}")
    return done


def _sysctl(namespace: str, *settings: str) -> None:
    _run("ip", "netns", "exec", namespace, "sysctl", "-qw", *settings)


class Testbed:
    """A running testbed (from `up`) or one to start; `with Testbed.up(config) as bed:` tears it down."""

    __test__ = False

    def __init__(self, config: TestbedConfig, delay_line_pid: int | None = None, stats_path: Path | None = None):
        self.config = config
        self.delay_line_pid = delay_line_pid
        self.stats_path = stats_path

    # --- lifecycle ---------------------------------------------------------------------------------

    @classmethod
    def up(cls, config: TestbedConfig) -> "Testbed":
        require_root("the local testbed")
        require_namespaces()
        for tool in ("ip", "tc"):
            if shutil.which(tool) is None:
                raise LiveError(f"`{tool}` is not installed; the testbed needs iproute2 (ip, tc)")
        down(config.name)  # whatever an earlier, killed testbed of that name left
        bed = cls(config)
        try:
            bed._build()
        except BaseException:
            down(config.name)
            raise
        return bed

    def __enter__(self) -> "Testbed":
        return self

    def __exit__(self, *exc) -> None:
        self.down()

    def down(self) -> dict:
        stats = down(self.config.name)
        process = getattr(self, "_process", None)
        if process is not None:
            process.kill()   # already gone after down(); this only makes sure before the wait
            process.wait()
            for stream in (process.stdout, process.stderr):
                stream.close()
        return stats

    def _build(self) -> None:
        c = self.config
        for namespace in (c.sender, c.middle, c.receiver):
            _run("ip", "netns", "add", namespace)
        _run("ip", "-n", c.sender, "link", "add", "snd0", "type", "veth", "peer", "name", "mid-s", "netns", c.middle)
        _run("ip", "-n", c.receiver, "link", "add", "rcv0", "type", "veth", "peer", "name", "mid-r", "netns", c.middle)
        for namespace, device, address in ((c.sender, "snd0", SENDER_ADDRESS), (c.middle, "mid-s", MIDDLE_SENDER_SIDE),
                                           (c.middle, "mid-r", MIDDLE_RECEIVER_SIDE), (c.receiver, "rcv0", RECEIVER_ADDRESS)):
            _run("ip", "-n", namespace, "addr", "add", f"{address}/24", "dev", device)
            _run("ip", "-n", namespace, "link", "set", device, "up")
        for namespace in (c.sender, c.middle, c.receiver):
            _run("ip", "-n", namespace, "link", "set", "lo", "up")
        _run("ip", "-n", c.sender, "route", "add", "default", "via", MIDDLE_SENDER_SIDE)
        _run("ip", "-n", c.receiver, "route", "add", "default", "via", MIDDLE_RECEIVER_SIDE)
        # Forwarding, and no reverse-path filter: a packet written back into dl0 arrives on dl0 although the
        # route back to its source leaves by a veth, which a strict filter would drop.
        _sysctl(c.middle, "net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0",
                "net.ipv4.conf.default.rp_filter=0")
        _sysctl(c.sender, "net.ipv4.tcp_no_metrics_save=1")
        self._start_delay_line()
        _run("ip", "-n", c.middle, "link", "set", DELAY_DEVICE, "up")
        _sysctl(c.middle, f"net.ipv4.conf.{DELAY_DEVICE}.rp_filter=0")
        _run("ip", "-n", c.middle, "route", "add", "default", "dev", DELAY_DEVICE, "table", ROUTE_TABLE)
        _run("ip", "-n", c.middle, "rule", "add", "iif", "mid-s", "table", ROUTE_TABLE, "pref", "100")
        _run("ip", "-n", c.middle, "rule", "add", "iif", "mid-r", "table", ROUTE_TABLE, "pref", "101")
        if c.rate_bps is not None:
            self._shape()
        STATE_DIR.mkdir(parents=True, exist_ok=True)
        _state_path(c.name).write_text(json.dumps({"config": asdict(c), "delay_line_pid": self.delay_line_pid,
                                                   "stats_path": str(self.stats_path)}) + "\n")

    def _start_delay_line(self) -> None:
        c = self.config
        STATE_DIR.mkdir(parents=True, exist_ok=True)
        self.stats_path = STATE_DIR / f"delayline-{c.name}.json"
        package_parent = str(Path(__file__).resolve().parents[2])  # the same cclab in the child
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_parent, os.environ.get("PYTHONPATH")]))}
        process = subprocess.Popen(
            ["ip", "netns", "exec", c.middle, sys.executable, "-m", "cclab.live.delayline",
             "--device", DELAY_DEVICE, "--delay-ns", str(c.delay_ns), "--stats", str(self.stats_path)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, env=env,
            start_new_session=True)   # outlives `cclab live testbed up`, and a Ctrl-C in its terminal
        self.delay_line_pid = process.pid  # `ip netns exec` execs the program: the same process
        self._process = process            # waited for by down(), when this process started it
        import select

        ready, _, _ = select.select([process.stdout], [], [], READY_TIMEOUT_S)
        line = process.stdout.readline() if ready else ""
        if '"ready": true' not in line:
            process.kill()
            error = process.stderr.read().strip().splitlines()
            raise LiveError("the delay line did not start in the testbed's middle namespace"
                            + (f": {error[-1]}" if error else ""))

    def _shape(self) -> None:
        c = self.config
        assert c.rate_bps is not None
        # htb counts bytes on the wire including the Ethernet header: scale so IP packets see rate_bps.
        htb_rate = c.rate_bps * (IP_PACKET_BYTES + ETHERNET_HEADER_BYTES) // IP_PACKET_BYTES
        # Bucket: two full frames, or 1 ms at the rate if more; a smaller one starves htb's timer at high rates.
        burst = max(2 * (IP_PACKET_BYTES + ETHERNET_HEADER_BYTES), htb_rate // 8 // 1000)
        tc = ("tc", "-n", c.middle)
        _run(*tc, "qdisc", "replace", "dev", "mid-r", "root", "handle", "1:", "htb", "default", "1")
        _run(*tc, "class", "add", "dev", "mid-r", "parent", "1:", "classid", "1:1", "htb", "rate", f"{htb_rate}bit",
             "ceil", f"{htb_rate}bit", "burst", f"{burst}b", "cburst", f"{burst}b")
        _run(*tc, "qdisc", "add", "dev", "mid-r", "parent", "1:1", "handle", "10:", "pfifo", "limit",
             str(c.buffer_packets))

    # --- while running -----------------------------------------------------------------------------

    def bottleneck_counters(self) -> dict:
        """The bottleneck pfifo's counters: packets and bytes sent, drops, backlog (tc -s)."""
        if self.config.rate_bps is None:
            return {}
        done = _run("tc", "-n", self.config.middle, "-s", "-j", "qdisc", "show", "dev", "mid-r")
        for qdisc in json.loads(done.stdout or "[]"):
            if qdisc.get("kind") == "pfifo":
                return {"packets": qdisc.get("packets", 0), "bytes": qdisc.get("bytes", 0),
                        "drops": qdisc.get("drops", 0), "backlog_packets": qdisc.get("qlen", 0)}
        return {}

    def delay_line_stats(self) -> dict:
        """The delay line's counters, as of its last write (every second, and now: SIGUSR1 asks for one)."""
        if self.delay_line_pid is None or self.stats_path is None:
            return {}
        before = self.stats_path.stat().st_mtime_ns if self.stats_path.exists() else 0
        try:
            os.kill(self.delay_line_pid, signal.SIGUSR1)
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            if self.stats_path.exists() and self.stats_path.stat().st_mtime_ns != before:
                break
            time.sleep(0.01)
        try:
            return json.loads(self.stats_path.read_text())
        except (OSError, ValueError):
            return {}


def running(name: str) -> Testbed | None:
    """The testbed `name` started by `up` (maybe in another process), or None."""
    try:
        state = json.loads(_state_path(name).read_text())
    except (OSError, ValueError):
        return None
    return Testbed(TestbedConfig(**state["config"]), state.get("delay_line_pid"),
                   Path(state["stats_path"]) if state.get("stats_path") else None)


def _alive(pid: int) -> bool:
    """Running (a zombie, a child of ours not yet waited for, has finished)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def down(name: str) -> dict:
    """Stop the delay line and remove the namespaces of testbed `name`; returns the delay line's last counters."""
    state_path = _state_path(name)
    stats: dict = {}
    bed = running(name)
    if bed is not None and bed.delay_line_pid:
        try:
            os.kill(bed.delay_line_pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        for _ in range(150):   # it writes its last counters and exits within 0.1 s; 3 s at most
            if not _alive(bed.delay_line_pid):
                break
            time.sleep(0.02)
        try:
            stats = json.loads(Path(bed.stats_path).read_text()) if bed.stats_path else {}
            Path(bed.stats_path).unlink(missing_ok=True)
        except (OSError, ValueError, TypeError):
            pass
    for suffix in ("snd", "mid", "rcv"):
        if Path(f"/run/netns/{name}-{suffix}").exists():
            _run("ip", "netns", "del", f"{name}-{suffix}", check=False)
    state_path.unlink(missing_ok=True)
    return stats
