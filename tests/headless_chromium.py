"""Open a page in headless Chromium and look at it as a person would (tests/test_report_browser.py).

Chromium (Debian's ``chromium`` package) is driven over its DevTools protocol, the protocol that
Puppeteer and Playwright speak, through ``websocket-client``.  Playwright or Selenium would each bring
their own driver (a Node runtime, or the ``chromium-driver`` package pinned to the browser's
version); the four things the test needs — load a file, collect console errors and failed loads,
evaluate a script, take a full-page screenshot — are five protocol commands.

:func:`ensure_chromium` installs the Debian package where it is missing (root and apt-get needed,
as the SLURM test does for SLURM); :class:`Chromium` is one browser with one page.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import websocket  # websocket-client

CANDIDATES = ("chromium", "chromium-browser", "google-chrome")


def find_chromium() -> str | None:
    return next((path for name in CANDIDATES if (path := shutil.which(name))), None)


def ensure_chromium() -> str:
    """The browser's path, after ``apt-get install chromium`` where none is found; raises
    RuntimeError (with the reason) when it cannot be had."""
    found = find_chromium()
    if found:
        return found
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise RuntimeError("no chromium on PATH, and installing Debian's package needs root and apt-get")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (["apt-get", "update", "-qq"],
                ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "chromium"]):
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
        if proc.returncode:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
    found = find_chromium()
    if not found:
        raise RuntimeError("apt-get installed chromium but no browser is on PATH")
    return found


def start_group(args: list[str]) -> subprocess.Popen:
    """Start a program in a process group of its own (its children inherit it), stderr piped."""
    return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes of a process group, from /proc."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # the process ended meanwhile
            continue
        fields = text[text.rindex(")") + 2:].split()  # state, ppid, pgrp, ...
        if fields[0] != "Z" and int(fields[2]) == pgid:
            found.append(int(stat.parent.name))
    return found


def stop_group(proc: subprocess.Popen, timeout: float = 10.0) -> None:
    """End a program started by :func:`start_group` and every process of its group: SIGTERM to the group,
    then SIGKILL to whatever is left after ``timeout`` s; returns once none is left."""
    pgid = proc.pid
    for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, timeout)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            pass
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if proc.poll() is not None and not group_members(pgid):
                break
            time.sleep(0.05)
        else:
            continue
        break
    proc.wait()
    if proc.stderr:
        proc.stderr.close()
    left = group_members(pgid)
    if left:
        raise RuntimeError(f"processes {left} of the browser's group survived SIGKILL")


class Chromium:
    """A headless Chromium with one page, as a context manager.

    ``events`` holds every protocol event received so far (method, params); :meth:`problems`
    turns the ones a reader would notice into messages: console errors, uncaught exceptions,
    browser log errors (a resource that failed to load) and failed network loads.
    """

    def __init__(self, binary: str, *, width: int = 1280, height: int = 900, timeout: float = 60.0):
        self.binary, self.width, self.height, self.timeout = binary, width, height, timeout
        self.events: list[tuple[str, dict]] = []
        self._ids = itertools.count(1)

    def __enter__(self) -> Chromium:
        self._profile = tempfile.TemporaryDirectory(prefix="chromium-profile-")
        args = [self.binary, "--headless=new", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--remote-debugging-port=0", "--remote-allow-origins=*",
                f"--user-data-dir={self._profile.name}", f"--window-size={self.width},{self.height}", "about:blank"]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")  # Chromium refuses to start its sandbox as root
        self._proc = start_group(args)
        try:
            port = self._devtools_port()
            pages = [t for t in self._json(port, "/json/list") if t.get("type") == "page"]
            assert pages, "Chromium opened no page"
            self._ws = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=self.timeout,
                                                   suppress_origin=True)
            for domain in ("Page", "Runtime", "Log", "Network"):
                self.send(f"{domain}.enable")
            self.send("Emulation.setDeviceMetricsOverride",
                      width=self.width, height=self.height, deviceScaleFactor=1, mobile=False)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc) -> None:
        try:
            self._ws.close()
        except Exception:
            pass
        # The browser's helpers (zygote, GPU, network, renderers) are its children, in its process group;
        # they keep writing into the profile after the main process has gone, so end the whole group and
        # wait for it before removing the profile ("OSError: Directory not empty: 'Default'").
        stop_group(self._proc)
        self._profile.cleanup()

    def _devtools_port(self) -> int:
        deadline = time.monotonic() + self.timeout
        seen = []
        while time.monotonic() < deadline:
            line = self._proc.stderr.readline()
            if not line:
                if self._proc.poll() is not None:
                    break
                continue
            seen.append(line)
            m = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
            if m:
                return int(m[1])
        raise RuntimeError("Chromium did not report its DevTools port:\n" + "".join(seen[-20:]))

    @staticmethod
    def _json(port: int, path: str):
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as resp:
            return json.load(resp)

    def send(self, method: str, **params) -> dict:
        """Send one command and return its result; events that arrive meanwhile are kept."""
        ident = next(self._ids)
        self._ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            msg = json.loads(self._ws.recv())
            if msg.get("id") == ident:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            if "method" in msg:
                self.events.append((msg["method"], msg.get("params", {})))

    def wait_for(self, method: str) -> dict:
        """Wait for the next event ``method`` (or return one already received)."""
        for i, (name, params) in enumerate(self.events):
            if name == method:
                del self.events[i]
                self.events.append(("(consumed) " + name, params))
                return params
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            msg = json.loads(self._ws.recv())
            if "method" in msg:
                self.events.append((msg["method"], msg.get("params", {})))
                if msg["method"] == method:
                    return msg.get("params", {})
        raise TimeoutError(f"no {method} within {self.timeout} s")

    def open(self, path: Path) -> None:
        """Load a local file and wait for its load event (images included)."""
        self.send("Page.navigate", url=Path(path).resolve().as_uri())
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (JSON-serialisable)."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def problems(self) -> list[str]:
        """Console errors, uncaught exceptions, browser log errors and failed loads seen so far."""
        found = []
        for method, p in self.events:
            if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                found.append("console." + p["type"] + ": " + " ".join(str(a.get("value", a.get("description")))
                                                                     for a in p.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                details = p.get("exceptionDetails", {})
                found.append("uncaught: " + str(details.get("exception", {}).get("description", details.get("text"))))
            elif method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                entry = p["entry"]
                found.append(f"log ({entry.get('source')}): {entry.get('text')} {entry.get('url', '')}".strip())
            elif method == "Network.loadingFailed" and not p.get("canceled"):
                found.append(f"failed load: {p.get('errorText')} (request {p.get('requestId')})")
        return found

    def screenshot(self, dest: Path) -> tuple[int, int]:
        """A PNG of the whole page (not only the window) at ``dest``; returns its CSS size (w, h)."""
        metrics = self.send("Page.getLayoutMetrics")
        size = metrics.get("cssContentSize") or metrics["contentSize"]
        width, height = max(1, round(size["width"])), max(1, round(size["height"]))
        shot = self.send("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                         clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 1})
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(dest.name + ".part")
        tmp.write_bytes(base64.b64decode(shot["data"]))
        tmp.replace(dest)
        return width, height
