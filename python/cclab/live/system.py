"""What live measurement needs from the machine, checked up front, with errors that say what to do."""

from __future__ import annotations

import os
import platform
import socket
from pathlib import Path

from ..errors import CclabError

AVAILABLE_CC = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")
ALLOWED_CC = Path("/proc/sys/net/ipv4/tcp_allowed_congestion_control")
# cclab's names of the algorithms the kernel also has, and the kernel's name for each.
KERNEL_NAMES = {"newreno": "reno", "reno": "reno", "cubic": "cubic", "bbr": "bbr", "bbr1": "bbr",
                "bic": "bic", "htcp": "htcp", "westwood": "westwood", "vegas": "vegas",
                "highspeed": "highspeed", "scalable": "scalable", "hstcp": "highspeed", "stcp": "scalable"}
# The kernel's name -> cclab's, so that stored live runs and simulations share the `cc` column.
CCLAB_NAMES = {"reno": "newreno", "cubic": "cubic", "bbr": "bbr", "bic": "bic", "htcp": "htcp",
               "westwood": "westwood", "vegas": "vegas", "highspeed": "highspeed", "scalable": "scalable"}


class LiveError(CclabError):
    """Live measurement cannot go on: the machine does not allow it, or the peer did not answer."""


def kernel_cc_name(name: str) -> str:
    """The kernel's name of an algorithm named the cclab way (newreno -> reno) or the kernel's way."""
    return KERNEL_NAMES.get(name.lower(), name.lower())


def cclab_cc_name(kernel_name: str) -> str:
    return CCLAB_NAMES.get(kernel_name, kernel_name)


def available_congestion_controls() -> list[str]:
    try:
        return AVAILABLE_CC.read_text().split()
    except OSError:
        return []


def check_congestion_control(name: str) -> str:
    """The kernel's name for `name`, once the kernel is known to offer it; else a LiveError saying how."""
    kernel = kernel_cc_name(name)
    available = available_congestion_controls()
    if available and kernel not in available:
        raise LiveError(f"congestion control {kernel!r} is not loaded in this kernel (it offers "
                        f"{', '.join(available)}); load it with `modprobe tcp_{kernel}` as root, or choose "
                        "one of those")
    if os.geteuid() != 0:
        try:
            allowed = ALLOWED_CC.read_text().split()
        except OSError:
            allowed = []
        if allowed and kernel not in allowed:
            raise LiveError(f"congestion control {kernel!r} is loaded but not allowed for unprivileged "
                            f"users (allowed: {', '.join(allowed)}); run as root, or add it to "
                            f"{ALLOWED_CC} (`sysctl net.ipv4.tcp_allowed_congestion_control`)")
    return kernel


def require_root(what: str) -> None:
    if os.geteuid() != 0:
        raise LiveError(f"{what} needs root (it creates network namespaces, links and queueing disciplines);"
                        " run it with sudo, or as root in a container started with --cap-add NET_ADMIN")


def require_namespaces() -> None:
    """Network namespaces and TUN: the testbed's two needs beyond root."""
    if not Path("/proc/self/ns/net").exists():
        raise LiveError("this kernel has no network namespaces (CONFIG_NET_NS); the local testbed cannot run."
                        " Measure between two machines instead: `cclab live server` on the receiver, `cclab live client HOST`"
                        " on the sender")
    if not Path("/dev/net/tun").exists():
        raise LiveError("/dev/net/tun is missing, and the testbed's delay line needs it: `modprobe tun`, or "
                        "in a container pass --device /dev/net/tun")


def host_description() -> dict:
    """Where a live run was measured: recorded with every stored run."""
    uname = platform.uname()
    return {"host": socket.gethostname(), "kernel": uname.release, "machine": uname.machine,
            "cpus": os.cpu_count() or 0}
