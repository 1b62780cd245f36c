"""A headless Chromium driven through the DevTools protocol, for tests of the HTML reports.

The protocol runs over a pipe (`--remote-debugging-pipe`: Chromium reads commands on its fd 3 and answers
on its fd 4, each message JSON ended by a NUL byte), so no port is opened and no client library is needed.
`load(path)` opens a page and returns what a person would have seen: the console errors and uncaught
exceptions, every <img> with its decoded size, and a screenshot.

Chromium is found as $CCLAB_CHROMIUM, else `chromium` (Debian's package, which .ci/run installs through
scripts/setup-browser.sh), `chromium-browser` or `google-chrome` on the PATH.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

NAMES = ("chromium", "chromium-browser", "google-chrome")
TIMEOUT_S = 30.0


def find_chromium() -> str | None:
    configured = os.environ.get("CCLAB_CHROMIUM")
    if configured:
        return configured
    return next((found for found in map(shutil.which, NAMES) if found), None)


class BrowserError(RuntimeError):
    """Chromium did not answer, or answered a command with an error."""


@dataclass
class PageLoad:
    errors: list[str] = field(default_factory=list)     # console errors, exceptions, failed loads
    images: list[dict] = field(default_factory=list)    # {alt, src (first 40 characters), width, height, complete}
    title: str = ""
    screenshot: bytes = b""                             # PNG of the top of the page


# Every <img> decoded (or its failure), then what each one is: run in the page once it has loaded.
IMAGES_SCRIPT = """
Promise.all(Array.from(document.images, img => img.decode().catch(() => null))).then(() =>
  Array.from(document.images, img => ({alt: img.alt, src: img.src.slice(0, 40), width: img.naturalWidth,
                                       height: img.naturalHeight, complete: img.complete})))
"""


class Chromium:
    """One headless Chromium process; use as a context manager."""

    def __init__(self, executable: str, width: int = 1280, height: int = 1600):
        self.width, self.height = width, height
        self._profile = tempfile.TemporaryDirectory(prefix="cclab-chromium-")
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()

        def on_fds_3_and_4() -> None:
            # Moved out of the way first, so the second dup2 cannot overwrite the first's source.
            read, write = os.dup(to_browser_read), os.dup(from_browser_write)
            os.dup2(read, 3)
            os.dup2(write, 4)

        args = [executable, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--hide-scrollbars",
                "--mute-audio", f"--user-data-dir={self._profile.name}", f"--window-size={width},{height}",
                "about:blank"]
        # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
        self._process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.PIPE, preexec_fn=on_fds_3_and_4, pass_fds=(3, 4))
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict] = []

    def __enter__(self) -> "Chromium":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._process.poll() is None:
            try:
                self._send("Browser.close")
            except (BrowserError, OSError):
                pass
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        for descriptor in (self._to_browser, self._from_browser):
            try:
                os.close(descriptor)
            except OSError:
                pass
        self._profile.cleanup()

    # --- the protocol ---

    def _send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._receive()
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._events.append(reply)

    def _receive(self, deadline: float | None = None) -> dict:
        deadline = deadline or time.monotonic() + TIMEOUT_S
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError(f"Chromium did not answer within {TIMEOUT_S:g} s")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                stderr = self._process.stderr.read().decode(errors="replace") if self._process.stderr else ""
                raise BrowserError(f"Chromium closed the pipe (exit status {self._process.poll()}): {stderr[-2000:]}")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def _wait_for(self, method: str, session: str) -> None:
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            for event in self._events:
                if event.get("method") == method and event.get("sessionId") == session:
                    return
            self._events.append(self._receive(deadline))

    # --- what a test uses ---

    def load(self, path: Path) -> PageLoad:
        """Open the file, wait for it and its images, and report what went wrong and what it showed."""
        target = self._send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self._send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self._send(f"{domain}.enable", session=session)
        self._send("Emulation.setDeviceMetricsOverride",
                   {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False},
                   session=session)
        self._events.clear()
        self._send("Page.navigate", {"url": path.resolve().as_uri()}, session=session)
        self._wait_for("Page.loadEventFired", session)
        images = self._send("Runtime.evaluate", {"expression": IMAGES_SCRIPT, "awaitPromise": True,
                                                 "returnByValue": True}, session=session)
        title = self._send("Runtime.evaluate", {"expression": "document.title", "returnByValue": True},
                           session=session)
        shot = self._send("Page.captureScreenshot", {"format": "png"}, session=session)
        result = PageLoad(images=images["result"]["value"], title=title["result"]["value"],
                          screenshot=base64.b64decode(shot["data"]))
        for event in self._events:
            if event.get("sessionId") != session:
                continue
            params = event.get("params", {})
            if event.get("method") == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                text = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
                result.errors.append(f"console.{params['type']}: {text}")
            elif event.get("method") == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                described = details.get("exception", {}).get("description") or details.get("text")
                result.errors.append(f"exception: {described}")
            elif event.get("method") == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                entry = params["entry"]
                result.errors.append(f"{entry.get('source')}: {entry.get('text')} {entry.get('url', '')}".rstrip())
        self._send("Target.closeTarget", {"targetId": target})
        return result
