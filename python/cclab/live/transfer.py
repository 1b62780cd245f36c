"""Bulk and fixed-size transfers between `cclab live client` (the sender) and `cclab live server`.

The protocol, one TCP connection per flow:

1. The client sets the flow's congestion control (TCP_CONGESTION) before it connects, so the handshake and
   the first window are already the algorithm's, and TCP_NOTSENT_LOWAT, so that at most NOTSENT_LOWAT
   bytes wait in the socket beyond what the window lets out: a duration-limited flow then stops writing
   when its time is up, not seconds later when a 4 MB send buffer has drained over a slow path.
2. It sends one header line, JSON: {"cclab": 1, "run": ..., "flow": i}, then payload bytes (zeros) until
   its duration is over or its size is sent, and shuts its side (FIN).
3. The server counts the payload bytes it receives, and when it reads the end of the stream answers with
   one JSON line: {"bytes": n, "first_byte_ns": ..., "last_byte_ns": ...} (its own monotonic clock, so only
   differences mean anything), then closes. Goodput = bytes x 8 / (last_byte - first_byte), the
   receiver's view, as seed 002 measured it.

The server serves each connection in a thread of its own, so flows are independent: a client killed mid-
transfer ends only its own connections (reset or an early end of stream), which the server logs and forgets.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from dataclasses import dataclass, field

from .system import LiveError, check_congestion_control
from .tcpinfo import TCP_CONGESTION, TCP_NOTSENT_LOWAT

DEFAULT_PORT = 5301
HEADER_LIMIT = 4096                # bytes; a header longer than this is not ours
CHUNK = 256 * 1024                 # bytes per send()/recv_into()
NOTSENT_LOWAT = 128 * 1024         # bytes allowed to wait unsent in the socket
IDLE_TIMEOUT_S = 60.0              # the server drops a connection silent for this long
REPLY_TIMEOUT_S = 30.0             # the client waits this long for the answer after its last byte
PAYLOAD = bytes(CHUNK)

log = logging.getLogger("cclab.live")


# --- server ------------------------------------------------------------------------------------------

class Server:
    """Accepts flows and counts their bytes; `serve_forever` until `close`."""

    def __init__(self, host: str = "0.0.0.0", port: int = DEFAULT_PORT):
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self.listener.bind((host, port))
        except OSError as exc:
            self.listener.close()
            raise LiveError(f"the server cannot listen on {host}:{port} ({exc.strerror}); choose another --port"
                            ) from None
        self.listener.listen(128)
        self.port = self.listener.getsockname()[1]
        self.completed = 0            # flows answered
        self.broken = 0               # flows that ended without a clean end of stream (client killed, reset)
        self.receiving = 0            # flows past their header, not yet ended
        self._closing = threading.Event()
        self._lock = threading.Lock()

    def serve_forever(self) -> None:
        while not self._closing.is_set():
            try:
                connection, peer = self.listener.accept()
            except OSError:
                if self._closing.is_set():
                    return
                continue
            threading.Thread(target=self._serve, args=(connection, peer), daemon=True,
                             name=f"flow-from-{peer[0]}:{peer[1]}").start()

    def start(self) -> "Server":
        threading.Thread(target=self.serve_forever, daemon=True, name="live-server").start()
        return self

    def close(self) -> None:
        self._closing.set()
        try:
            self.listener.shutdown(socket.SHUT_RDWR)   # wakes accept()
        except OSError:
            pass
        self.listener.close()

    def _serve(self, connection: socket.socket, peer) -> None:
        received, first_ns, last_ns, header = 0, 0, 0, None
        buffer = bytearray(CHUNK)
        view = memoryview(buffer)
        counted = False
        try:
            connection.settimeout(IDLE_TIMEOUT_S)
            pending = b""
            while header is None:
                n = connection.recv_into(buffer)
                if n == 0:
                    raise ConnectionError("the client closed before its header")
                pending += bytes(view[:n])
                line, newline, rest = pending.partition(b"\n")
                if newline:
                    header = json.loads(line)
                    if rest:
                        first_ns = last_ns = time.monotonic_ns()
                        received = len(rest)
                elif len(pending) > HEADER_LIMIT:
                    raise ConnectionError("no cclab header")
            self._count(+1)
            counted = True
            while True:
                n = connection.recv_into(buffer)
                if n == 0:
                    break
                last_ns = time.monotonic_ns()
                if not first_ns:
                    first_ns = last_ns
                received += n
            reply = {"bytes": received, "first_byte_ns": first_ns, "last_byte_ns": last_ns}
            connection.sendall((json.dumps(reply) + "\n").encode())
            self.completed += 1
        except (OSError, ValueError, ConnectionError) as exc:
            self.broken += 1
            what = f"flow {header.get('flow')} of run {header.get('run')}" if isinstance(header, dict) else "a flow"
            log.warning("%s from %s:%s ended after %d bytes: %s", what, peer[0], peer[1], received, exc)
        finally:
            if counted:
                self._count(-1)
            connection.close()

    def _count(self, change: int) -> None:
        with self._lock:
            self.receiving += change


# --- client ------------------------------------------------------------------------------------------

@dataclass
class Flow:
    """One sending connection of a run."""

    index: int
    kernel_cc: str                      # the kernel's name, as TCP_CONGESTION takes it
    sock: socket.socket
    bytes_sent: int = 0
    write_end_ns: int = 0               # monotonic: last payload byte handed to the kernel
    end_ns: int = 0                     # monotonic: the server's answer arrived
    reply: dict = field(default_factory=dict)
    error: str | None = None


def open_flow(index: int, cc: str, host: str, port: int, run_id: str) -> Flow:
    """Connect one flow with congestion control `cc` (cclab's or the kernel's name) and send its header."""
    kernel_cc = check_congestion_control(cc)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, kernel_cc.encode())
    except OSError as exc:
        sock.close()
        raise LiveError(f"the kernel refused congestion control {kernel_cc!r} ({exc.strerror}); "
                        f"`modprobe tcp_{kernel_cc}`, or run as root") from None
    sock.setsockopt(socket.IPPROTO_TCP, TCP_NOTSENT_LOWAT, NOTSENT_LOWAT)
    sock.settimeout(10.0)
    try:
        sock.connect((host, port))
    except OSError as exc:
        sock.close()
        raise LiveError(f"cannot connect to {host}:{port} ({exc.strerror or exc}); is `cclab live server` "
                        "running there, and the port open?") from None
    sock.sendall((json.dumps({"cclab": 1, "run": run_id, "flow": index}) + "\n").encode())
    return Flow(index=index, kernel_cc=kernel_cc, sock=sock)


def send(flow: Flow, deadline_ns: int | None, size_bytes: int | None) -> None:
    """Send until the deadline (monotonic ns) or `size_bytes`, shut the sending side, read the answer.
    Errors end this flow only (recorded in flow.error)."""
    sock = flow.sock
    try:
        sock.settimeout(0.05)   # a blocked send wakes to look at the clock
        while True:
            if deadline_ns is not None and time.monotonic_ns() >= deadline_ns:
                break
            want = CHUNK if size_bytes is None else min(CHUNK, size_bytes - flow.bytes_sent)
            if want <= 0:
                break
            try:
                flow.bytes_sent += sock.send(PAYLOAD[:want])
            except TimeoutError:
                continue
        flow.write_end_ns = time.monotonic_ns()
        sock.shutdown(socket.SHUT_WR)
        sock.settimeout(REPLY_TIMEOUT_S)
        answer = b""
        while not answer.endswith(b"\n"):
            chunk = sock.recv(4096)
            if not chunk:
                raise ConnectionError("the server closed without an answer")
            answer += chunk
        flow.end_ns = time.monotonic_ns()
        flow.reply = json.loads(answer)
    except (OSError, ValueError, ConnectionError) as exc:
        flow.error = f"{type(exc).__name__}: {exc}"
        flow.end_ns = flow.end_ns or time.monotonic_ns()
