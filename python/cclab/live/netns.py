"""Entering a network namespace from one thread.

A socket belongs to the namespace it was created in, for its whole life, whatever thread uses it later.
So one process can hold the testbed's server socket (receiver namespace) and the client's sockets (sender
namespace) at once: each is created inside `entered(name)`, which moves only the calling thread
(setns(2) changes the namespace of the calling task; other threads stay where they are) and moves it back.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from .system import LiveError

NETNS_DIR = Path("/run/netns")   # where `ip netns add` mounts the named namespaces
CLONE_NEWNET = 0x40000000

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def _setns(fd: int) -> None:
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        error = ctypes.get_errno()
        raise LiveError(f"cannot enter the network namespace: {os.strerror(error)} (entering a namespace "
                        "needs root, CAP_SYS_ADMIN)")


@contextmanager
def entered(name: str | None) -> Iterator[None]:
    """Run the body in network namespace `name` (None: stay where we are)."""
    if name is None:
        yield
        return
    path = NETNS_DIR / name
    try:
        target = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        raise LiveError(f"network namespace {name!r} does not exist; start the testbed first "
                        "(`cclab live testbed up`)") from None
    home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    try:
        _setns(target)
        try:
            yield
        finally:
            _setns(home)
    finally:
        os.close(target)
        os.close(home)
