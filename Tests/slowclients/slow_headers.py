#!/usr/bin/env python3
"""Slow-header load check for `seek serve` (issue 28, item 6; DESIGN "Server", "Slow clients").

Starts the release `seek serve --port 0` with its soft open-file limit at 512 (the hard limit left as
the system sets it), opens 700 connections that each send one header line every 5 s and never end
their head, and meanwhile asks /healthz every 0.5 s. Passes when:

- the server raised its soft open-file limit to the hard limit;
- every /healthz answers 200 within 1 s, throughout;
- the server closes every slow connection once the header timeout passes (SEEK_HEADER_TIMEOUT,
  3 s here for a short run), give or take a grace of 2 s;
- the server still answers, and stops on SIGTERM, afterwards.

A closed slow connection is opened again (the attack keeps its 700), so the pressure lasts the whole
run. Standard library only; Linux (reads /proc). Runnable by hand:

    SEEK_BIN=.build/release/seek python3 Tests/slowclients/slow_headers.py

Prints what it saw, then `slowclients: N passed, N failed`; exits 1 on any failure. Options: --help.
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import resource
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def seek_binary() -> str:
    given = os.environ.get("SEEK_BIN")
    if given:
        return given
    for candidate in (ROOT / ".build" / "release" / "seek", ROOT / ".build" / "debug" / "seek"):
        if os.access(candidate, os.X_OK):
            return str(candidate)
    sys.exit("slow_headers.py: no seek binary: set SEEK_BIN or build .build/release/seek")


class Server:
    """`seek serve --port 0` over a temporary HOME, with its soft open-file limit at `soft`."""

    def __init__(self, binary: str, soft: int, hard: int | None, header_timeout: float,
                 extra_env: dict[str, str] | None = None, serve_args: list[str] | None = None) -> None:
        self.home = Path(tempfile.mkdtemp(prefix="seek-slowclients-"))
        env = {key: value for key, value in os.environ.items() if not key.startswith("SEEK_")}
        env.update({
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.home / "config"),
            "XDG_CACHE_HOME": str(self.home / "xdg-cache"),
            "XDG_DATA_HOME": str(self.home / "xdg-data"),
            "SEEK_CACHE_DIR": str(self.home / "cache"),
            "SEEK_DATA_DIR": str(self.home / "data"),
            "SEEK_HEADER_TIMEOUT": f"{header_timeout:g}",
            "NO_COLOR": "1",
        })
        env.update(extra_env or {})
        system_hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        self.hard = hard if hard is not None else system_hard
        command = [binary, "serve", "--port", "0", *(serve_args or [])]
        prlimit = shutil.which("prlimit")
        if prlimit:
            command = [prlimit, f"--nofile={soft}:{self.hard}", *command]
            preexec = None
        else:
            limits = (soft, self.hard)
            preexec = lambda: resource.setrlimit(resource.RLIMIT_NOFILE, limits)  # noqa: E731
        self.command = command
        self.process = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, text=True, preexec_fn=preexec)
        self.log: list[str] = []
        self.port = 0
        self.listening = threading.Event()
        threading.Thread(target=self._read_log, daemon=True).start()

    def _read_log(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            if len(self.log) < 10_000:
                self.log.append(line.rstrip("\n"))
            match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
            if match and not self.listening.is_set():
                self.port = int(match.group(1))
                self.listening.set()

    def wait_listening(self, timeout: float = 30) -> bool:
        return self.listening.wait(timeout)

    def limits(self) -> tuple[str, str] | None:
        """The server's open-file limits as /proc shows them (soft, hard)."""
        try:
            text = Path(f"/proc/{self.process.pid}/limits").read_text()
        except OSError:
            return None
        for line in text.splitlines():
            if line.startswith("Max open files"):
                fields = line.split()
                return fields[3], fields[4]
        return None

    def cpu_seconds(self) -> float | None:
        """User plus system CPU time of the server so far."""
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> int | None:
        """SIGTERM, then the exit code (None if it had to be killed)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                return self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
                return None
        return self.process.returncode

    def cleanup(self) -> None:
        shutil.rmtree(self.home, ignore_errors=True)


class SlowConnection:
    def __init__(self, number: int, port: int, now: float) -> None:
        self.number = number
        self.opened = now
        self.connected: float | None = None
        self.closed: float | None = None
        self.lines = 0
        self.next_send = now
        self.answered = b""
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setblocking(False)
        self.sock.connect_ex(("127.0.0.1", port))


class SlowClients:
    """`count` connections that send one header line every `interval` seconds and never finish their head."""

    def __init__(self, port: int, count: int, interval: float, reconnect: bool) -> None:
        self.port = port
        self.count = count
        self.interval = interval
        self.reconnect = reconnect
        self.selector = selectors.DefaultSelector()
        self.open: dict[int, SlowConnection] = {}
        self.finished: list[SlowConnection] = []
        self.opened = 0
        self.open_failures = 0
        self.peak_connected = 0
        self.stop = threading.Event()

    def _open(self, now: float) -> None:
        try:
            connection = SlowConnection(self.opened, self.port, now)
        except OSError:
            self.open_failures += 1
            return
        self.opened += 1
        self.open[connection.sock.fileno()] = connection
        self.selector.register(connection.sock, selectors.EVENT_READ | selectors.EVENT_WRITE, connection)

    def _close(self, connection: SlowConnection, now: float, by_server: bool) -> None:
        if by_server:
            connection.closed = now
        self.selector.unregister(connection.sock)
        del self.open[connection.sock.fileno()]
        connection.sock.close()
        self.finished.append(connection)

    def _send(self, connection: SlowConnection, now: float) -> None:
        line = b"GET /healthz HTTP/1.1\r\n" if connection.lines == 0 else f"X-Slow-{connection.lines}: 1\r\n".encode()
        try:
            connection.sock.send(line)
        except BlockingIOError:
            return
        except OSError:
            self._close(connection, now, by_server=True)
            return
        connection.lines += 1
        connection.next_send = now + self.interval

    def run(self, duration: float) -> None:
        start = time.monotonic()
        for _ in range(self.count):
            self._open(time.monotonic())
        # Bounded: ends at `duration`, at most one select per 20 ms or event batch.
        for _ in range(int(duration / 0.02) + 10_000_000):
            now = time.monotonic()
            if now - start >= duration or self.stop.is_set():
                break
            for key, events in self.selector.select(timeout=0.02):
                connection: SlowConnection = key.data
                now = time.monotonic()
                if connection.connected is None and events & selectors.EVENT_WRITE:
                    if connection.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
                        self._close(connection, now, by_server=True)
                        continue
                    connection.connected = now
                    self.selector.modify(connection.sock, selectors.EVENT_READ, connection)
                    self._send(connection, now)
                    continue
                if events & selectors.EVENT_READ:
                    try:
                        data = connection.sock.recv(4096)
                    except BlockingIOError:
                        continue
                    except OSError:
                        data = b""
                    if data:
                        connection.answered += data[:200]
                    else:
                        self._close(connection, now, by_server=True)
            now = time.monotonic()
            for connection in list(self.open.values()):
                if connection.connected is not None and now >= connection.next_send:
                    self._send(connection, now)
            self.peak_connected = max(self.peak_connected, sum(1 for c in self.open.values() if c.connected is not None))
            if self.reconnect and now - start < duration:
                for _ in range(self.count - len(self.open)):
                    self._open(now)

    def close_all(self) -> list[SlowConnection]:
        """Closes what is still open; those are returned (the server never closed them)."""
        still = list(self.open.values())
        for connection in still:
            self.selector.unregister(connection.sock)
            connection.sock.close()
        self.open.clear()
        self.selector.close()
        return still


def probe_healthz(port: int, limit: float) -> tuple[bool, float, str]:
    started = time.monotonic()
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=limit)
        connection.request("GET", "/healthz")
        response = connection.getresponse()
        response.read()
        connection.close()
        took = time.monotonic() - started
        ok = response.status == 200 and took <= limit
        return ok, took, f"{response.status}"
    except (OSError, http.client.HTTPException) as error:
        return False, time.monotonic() - started, type(error).__name__


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=700)
    parser.add_argument("--interval", type=float, default=5.0, help="seconds between a slow connection's header lines")
    parser.add_argument("--header-timeout", type=float, default=3.0, help="SEEK_HEADER_TIMEOUT given to the server")
    parser.add_argument("--soft", type=int, default=512, help="the server's soft open-file limit")
    parser.add_argument("--hard", type=int, default=None, help="the server's hard limit (default: the system's)")
    parser.add_argument("--duration", type=float, default=20.0, help="seconds of slow clients and probes")
    parser.add_argument("--grace", type=float, default=2.0, help="seconds past the header timeout a close may take")
    parser.add_argument("--probe-every", type=float, default=0.5)
    parser.add_argument("--probe-limit", type=float, default=1.0, help="seconds a /healthz may take")
    parser.add_argument("--no-reconnect", action="store_true", help="open the slow connections once, not again when closed")
    args = parser.parse_args()
    if not (1 <= args.connections <= 5000 and 0 < args.duration <= 600 and 0 < args.interval <= 60
            and 0 < args.header_timeout <= 60 and 0 < args.probe_every <= 10 and 0 < args.probe_limit <= 30):
        parser.error("a value is out of range")
    own_soft, own_hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = args.connections + 200
    if own_soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, own_hard), own_hard))

    passed = failed = 0

    def check(ok: bool, text: str) -> None:
        nonlocal passed, failed
        passed += ok
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {text}", flush=True)

    server = Server(seek_binary(), args.soft, args.hard, args.header_timeout)
    try:
        if not server.wait_listening():
            check(False, "seek serve did not start within 30 s: " + " | ".join(server.log[-5:]))
            return finish(passed, failed)
        print(f"server: pid {server.process.pid}, port {server.port}, started as: {' '.join(server.command)}", flush=True)
        limits = server.limits()
        check(limits is not None and limits[0] == limits[1],
              f"open-file limit raised to the hard limit: soft {limits[0] if limits else '?'}, "
              f"hard {limits[1] if limits else '?'} (started with soft {args.soft})")
        first = probe_healthz(server.port, args.probe_limit)
        check(first[0], f"/healthz before the slow clients: {first[2]} in {first[1]:.3f} s")

        clients = SlowClients(server.port, args.connections, args.interval, reconnect=not args.no_reconnect)
        cpu_before = server.cpu_seconds()
        started = time.monotonic()
        thread = threading.Thread(target=clients.run, args=(args.duration,), daemon=True)
        thread.start()
        probes: list[tuple[float, bool, float, str]] = []
        # Bounded: one probe per interval for the run's duration.
        for _ in range(int(args.duration / args.probe_every) + 1):
            at = time.monotonic() - started
            if at >= args.duration:
                break
            ok, took, what = probe_healthz(server.port, args.probe_limit)
            probes.append((at, ok, took, what))
            time.sleep(max(0.0, args.probe_every - took))
        thread.join(args.duration + 30)
        clients.stop.set()
        thread.join(10)
        elapsed = time.monotonic() - started
        cpu_after = server.cpu_seconds()
        still_open = clients.close_all()

        slow = [p for p in probes if not p[1]]
        worst = max((p[2] for p in probes), default=0.0)
        check(bool(probes) and not slow,
              f"/healthz every {args.probe_every:g} s for {args.duration:g} s: {len(probes) - len(slow)}/{len(probes)} "
              f"answered 200 within {args.probe_limit:g} s (slowest {worst:.3f} s)"
              + (f"; first failures: {[(round(a, 1), w, round(t, 2)) for a, _, t, w in slow[:5]]}" if slow else ""))

        check(clients.peak_connected >= min(args.connections, args.soft),
              f"slow connections established: {clients.opened} opened, peak {clients.peak_connected} at once "
              f"(wanted {args.connections}), {clients.open_failures} could not be opened")

        closed = [c for c in clients.finished if c.closed is not None and c.connected is not None]
        lifetimes = [c.closed - c.connected for c in closed]
        bound = args.header_timeout + args.grace
        late = [life for life in lifetimes if life > bound]
        early = [life for life in lifetimes if life < args.header_timeout - 0.5]
        answered = [c for c in clients.finished + still_open if c.answered]
        overdue = [c for c in still_open if c.connected is not None and time.monotonic() - c.connected > bound]
        if lifetimes:
            print(f"closed by the server: {len(closed)}, after {min(lifetimes):.2f}-{max(lifetimes):.2f} s "
                  f"(median {sorted(lifetimes)[len(lifetimes) // 2]:.2f} s)", flush=True)
        check(bool(closed) and not late and not overdue,
              f"slow connections closed once the {args.header_timeout:g} s header timeout passed (within {bound:g} s): "
              f"{len(closed)} closed, {len(late)} closed late, {len(overdue)} still open past it at the end")
        check(not early and not answered,
              f"none closed before the header timeout or answered: {len(early)} early, {len(answered)} answered")

        if cpu_before is not None and cpu_after is not None:
            print(f"server CPU during the run: {100 * (cpu_after - cpu_before) / elapsed:.0f} % of one core "
                  f"({cpu_after - cpu_before:.1f} s in {elapsed:.1f} s)", flush=True)
        last = probe_healthz(server.port, args.probe_limit)
        check(last[0], f"/healthz after the slow clients: {last[2]} in {last[1]:.3f} s")
        code = server.stop()
        check(code == 0, f"seek serve stopped on SIGTERM with exit code {code}")
        warnings = [line for line in server.log if "descriptor" in line or "open-file" in line]
        for line in warnings[:5]:
            print(f"server log: {line}", flush=True)
    finally:
        server.stop()
        server.cleanup()
    return finish(passed, failed)


def finish(passed: int, failed: int) -> int:
    print(f"slowclients: {passed} passed, {failed} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
