#!/usr/bin/env python3
"""Slow-body and slow-read load check for `seek serve` (issue 52; DESIGN "Server", "Slow clients").

Starts `seek serve --public --demo --port 0` with its open-file limit at 512 (soft and hard, so it
cannot raise it), then runs two attacks one after the other, as slowhttptest's slow-body (`-B -c 1000
-r 200 -i 10 -s 8192 -t POST`) and slow-read (`-X -c 1000 -r 200 -k 3 -n 2 -w 1 -y 64 -z 16`) modes do:

- bodies: 1000 connections, opened 200 a second, each POSTs the no-JavaScript favourite form
  (`/favorites/toggle`) with `Content-Length: 8192` and then sends 4 bytes of it every `--interval` s;
- reads: 1000 connections with a receive buffer of 1 KiB, each asks for `/openapi.yaml` three times
  (pipelined) and reads 16 bytes every 2 s.

Each connection is opened once, as slowhttptest does (`--reconnect` opens a closed one again, to keep
the pressure up all along). Meanwhile /healthz is asked once a second with a 1 s limit. Passes, for
each attack, when:

- /healthz misses at most `--max-misses` of its `--checks` checks;
- the slow connections were there (a peak of at least 400 at once, 512 being the server's limit);
- by the attack's end the server holds none of them: its sockets (/proc) are back to what it had
  before, each slow connection having been closed once its deadline passed (`SEEK_BODY_TIMEOUT`;
  `SEEK_SEND_TIMEOUT`, or `SEEK_IDLE_TIMEOUT` for a response the kernel took whole), or earlier to
  free a descriptor; a reader cannot see its close behind the bytes it has not read, so this is
  counted on the server's side;
- the server logs no `error` line (an aborted body is a debug line) and still answers afterwards,
  and stops on SIGTERM.

Standard library only; Linux (prlimit, /proc). Runnable by hand (the issue's numbers):

    SEEK_BIN=.build/release/seek python3 Tests/slowclients/slow_bodies_reads.py --checks 35

Prints what it saw, then `slowclients: N passed, N failed`; exits 1 on any failure. Options: --help.
"""

from __future__ import annotations

import argparse
import os
import resource
import selectors
import socket
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from slow_headers import Server, finish, probe_healthz, seek_binary  # noqa: E402

SECRET = "slowclients-secret-that-is-long-enough-0123456789"
BODY_HEAD = (b"POST /favorites/toggle HTTP/1.1\r\nHost: 127.0.0.1\r\n"
             b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 8192\r\n\r\n")
READ_REQUESTS = b"GET /openapi.yaml HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 3


class Client:
    def __init__(self, mode: str, port: int, now: float) -> None:
        self.mode = mode
        self.opened = now
        self.connected: float | None = None
        self.closed: float | None = None
        self.next_tick = now
        self.registered = True
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if mode == "read":
            # Before connecting, so the window the server is offered is small from the start.
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        self.sock.setblocking(False)
        self.sock.connect_ex(("127.0.0.1", port))


class Attack:
    """`count` slow clients of `mode`, opened `rate` a second and opened again when closed."""

    def __init__(self, mode: str, port: int, count: int, rate: float, interval: float, reconnect: bool) -> None:
        self.mode = mode
        self.reconnect = reconnect
        self.port = port
        self.count = count
        self.rate = rate
        self.interval = interval
        self.selector = selectors.DefaultSelector()
        self.open: dict[int, Client] = {}
        self.finished: list[Client] = []
        self.opened = 0
        self.open_failures = 0
        self.peak_connected = 0
        self.opening = True
        self.stop = threading.Event()

    def _open(self, now: float) -> None:
        try:
            client = Client(self.mode, self.port, now)
        except OSError:
            self.open_failures += 1
            return
        self.opened += 1
        self.open[client.sock.fileno()] = client
        self.selector.register(client.sock, selectors.EVENT_WRITE, client)

    def _close(self, client: Client, now: float, by_server: bool) -> None:
        if by_server:
            client.closed = now
        if client.registered:
            self.selector.unregister(client.sock)
        del self.open[client.sock.fileno()]
        client.sock.close()
        self.finished.append(client)

    def _tick(self, client: Client, now: float) -> None:
        """A body's next 4 bytes, or a reader's next 16; a close or reset by the server is noted."""
        try:
            if client.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
                self._close(client, now, by_server=True)
                return
            if self.mode == "body":
                client.sock.send(b"a=bc")
            else:
                data = client.sock.recv(16)
                if not data:
                    self._close(client, now, by_server=True)
                    return
        except BlockingIOError:
            pass
        except OSError:
            self._close(client, now, by_server=True)
            return
        client.next_tick = now + self.interval

    def run(self, duration: float, drain: float) -> None:
        """Opens clients for `duration` seconds, then only ticks them for up to `drain` more."""
        start = time.monotonic()
        budget = 0.0
        last = start
        # Bounded: ends at duration + drain, at most one select per 20 ms or event batch.
        for _ in range(int((duration + drain) / 0.02) + 10_000_000):
            now = time.monotonic()
            if now - start >= duration + drain or self.stop.is_set():
                break
            if self.opening and now - start >= duration:
                self.opening = False
            if not self.opening and not self.open:
                break
            if self.opening:
                budget = min(budget + (now - last) * self.rate, self.rate)
                while budget >= 1 and len(self.open) < self.count and (self.reconnect or self.opened < self.count):
                    self._open(now)
                    budget -= 1
            last = now
            for key, events in self.selector.select(timeout=0.02):
                client: Client = key.data
                now = time.monotonic()
                if client.connected is None and events & selectors.EVENT_WRITE:
                    if client.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
                        self._close(client, now, by_server=True)
                        continue
                    client.connected = now
                    if self.mode == "body":
                        self.selector.modify(client.sock, selectors.EVENT_READ, client)
                    else:
                        # A reader is not woken by what arrives: it reads on its own schedule.
                        self.selector.unregister(client.sock)
                        client.registered = False
                    try:
                        client.sock.send(BODY_HEAD if self.mode == "body" else READ_REQUESTS)
                    except OSError:
                        self._close(client, now, by_server=True)
                        continue
                    client.next_tick = now + (self.interval if self.mode == "body" else 2.0)
                    continue
                if self.mode == "body" and events & selectors.EVENT_READ:
                    # An answer (or the close) to a body: drain it; EOF or an error is the close.
                    try:
                        data = client.sock.recv(65536)
                    except BlockingIOError:
                        continue
                    except OSError:
                        data = b""
                    if not data:
                        self._close(client, now, by_server=True)
            now = time.monotonic()
            for client in list(self.open.values()):
                if client.connected is not None and now >= client.next_tick and client.sock.fileno() in self.open:
                    self._tick(client, now)
            self.peak_connected = max(self.peak_connected, sum(1 for c in self.open.values() if c.connected is not None))

    def connected_now(self) -> int:
        return sum(1 for c in self.open.values() if c.connected is not None)

    def close_all(self) -> list[Client]:
        """Closes what is still open; those are returned (the server never closed them)."""
        still = list(self.open.values())
        for client in still:
            if client.registered:
                self.selector.unregister(client.sock)
            client.sock.close()
        self.open.clear()
        self.selector.close()
        return still


def server_sockets(pid: int) -> int | None:
    """How many sockets the server process holds open (/proc/PID/fd)."""
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return None
    count = 0
    for fd in fds:
        try:
            count += os.readlink(fd).startswith("socket:")
        except OSError:
            pass
    return count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=["body", "read", "both"], default="both")
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=200, help="connections opened a second")
    parser.add_argument("--interval", type=float, default=10.0, help="seconds between a slow body's 4-byte pieces")
    parser.add_argument("--checks", type=int, default=35, help="/healthz checks, one a second, in each attack")
    parser.add_argument("--max-misses", type=int, default=3, help="/healthz checks each attack may miss")
    parser.add_argument("--body-timeout", type=float, default=10.0, help="SEEK_BODY_TIMEOUT given to the server")
    parser.add_argument("--send-timeout", type=float, default=30.0, help="SEEK_SEND_TIMEOUT given to the server")
    parser.add_argument("--idle-timeout", type=float, default=60.0, help="SEEK_IDLE_TIMEOUT given to the server")
    parser.add_argument("--soft", type=int, default=512, help="the server's soft open-file limit")
    parser.add_argument("--hard", type=int, default=512, help="the server's hard open-file limit")
    parser.add_argument("--grace", type=float, default=3.0, help="seconds past a deadline a close may take")
    parser.add_argument("--probe-limit", type=float, default=1.0, help="seconds a /healthz may take")
    parser.add_argument("--reconnect", action="store_true", help="open a closed slow connection again")
    args = parser.parse_args()
    if not (1 <= args.connections <= 5000 and 0 < args.rate <= 5000 and 0 < args.interval <= 60 and 1 <= args.checks <= 600
            and 0 <= args.max_misses and 0 < args.body_timeout <= 120 and 0 < args.send_timeout <= 120
            and 0 < args.idle_timeout <= 600 and 0 < args.probe_limit <= 30):
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

    extra = {
        "SEEK_SECRET": SECRET,
        "SEEK_BODY_TIMEOUT": f"{args.body_timeout:g}",
        "SEEK_SEND_TIMEOUT": f"{args.send_timeout:g}",
        "SEEK_IDLE_TIMEOUT": f"{args.idle_timeout:g}",
    }
    server = Server(seek_binary(), args.soft, args.hard, 10.0, extra_env=extra, serve_args=["--public", "--demo"])
    try:
        if not server.wait_listening():
            check(False, "seek serve did not start within 30 s: " + " | ".join(server.log[-5:]))
            return finish(passed, failed)
        print(f"server: pid {server.process.pid}, port {server.port}, started as: {' '.join(server.command)}", flush=True)
        limits = server.limits()
        check(limits is not None and limits[0] == str(args.soft) and limits[1] == str(args.hard),
              f"open-file limit: soft {limits[0] if limits else '?'}, hard {limits[1] if limits else '?'}")

        modes = ["body", "read"] if args.mode == "both" else [args.mode]
        for mode in modes:
            baseline = server_sockets(server.process.pid)
            attack = Attack(mode, server.port, args.connections, args.rate, args.interval if mode == "body" else 2.0,
                            args.reconnect)
            lead = 2.0
            duration = lead + args.checks
            cpu_before = server.cpu_seconds()
            started = time.monotonic()
            # Past the checks, the clients go on (opening none) while the server's sockets are watched.
            deadline = args.body_timeout if mode == "body" else max(1.5 * args.send_timeout, args.idle_timeout)
            drain = deadline + args.grace
            thread = threading.Thread(target=attack.run, args=(duration, drain), daemon=True)
            thread.start()
            time.sleep(lead)
            probes: list[tuple[float, bool, float, str]] = []
            peak_sockets = 0
            # Bounded: one probe a second, `checks` of them.
            for _ in range(args.checks):
                at = time.monotonic() - started
                ok, took, what = probe_healthz(server.port, args.probe_limit)
                probes.append((at, ok, took, what))
                peak_sockets = max(peak_sockets, server_sockets(server.process.pid) or 0)
                time.sleep(max(0.0, 1.0 - took))
            held = server_sockets(server.process.pid)
            drained = time.monotonic()
            # Bounded: at most `drain` seconds, a look every 0.5 s.
            for _ in range(int(drain / 0.5) + 1):
                held = server_sockets(server.process.pid)
                if baseline is None or held is None or held <= baseline + 2 or time.monotonic() - drained >= drain:
                    break
                time.sleep(0.5)
            waited = time.monotonic() - drained
            attack.stop.set()
            thread.join(10)
            cpu_after = server.cpu_seconds()
            elapsed = time.monotonic() - started
            attack.close_all()

            misses = [p for p in probes if not p[1]]
            worst = max((p[2] for p in probes), default=0.0)
            check(len(misses) <= args.max_misses,
                  f"{mode}: /healthz once a second: {len(probes) - len(misses)}/{len(probes)} answered 200 within "
                  f"{args.probe_limit:g} s, {len(misses)} missed (at most {args.max_misses}; slowest {worst:.3f} s)"
                  + (f"; misses: {[(round(a, 1), w, round(t, 2)) for a, _, t, w in misses[:5]]}" if misses else ""))
            check(attack.peak_connected >= min(400, args.connections),
                  f"{mode}: slow connections: {attack.opened} opened, peak {attack.peak_connected} connected at once "
                  f"(the server holding up to {peak_sockets} sockets), {attack.open_failures} could not be opened")
            closed = [c for c in attack.finished if c.closed is not None and c.connected is not None]
            lifetimes = sorted(c.closed - c.connected for c in closed)
            if lifetimes:
                print(f"{mode}: closes seen by the clients: {len(closed)}, after {lifetimes[0]:.2f}-{lifetimes[-1]:.2f} s "
                      f"(median {lifetimes[len(lifetimes) // 2]:.2f} s)", flush=True)
            check(baseline is not None and held is not None and held <= baseline + 2,
                  f"{mode}: {waited:.1f} s after the checks the server holds {held} sockets, as before the attack ({baseline}): "
                  f"every slow connection closed (waited at most its {deadline:g} s deadline and a grace of {args.grace:g} s)")
            if cpu_before is not None and cpu_after is not None:
                print(f"{mode}: server CPU during the attack: {100 * (cpu_after - cpu_before) / elapsed:.0f} % of one core",
                      flush=True)

        last = probe_healthz(server.port, args.probe_limit)
        check(last[0], f"/healthz after the attacks: {last[2]} in {last[1]:.3f} s")
        code = server.stop()
        check(code == 0, f"seek serve stopped on SIGTERM with exit code {code}")
        errors = [line for line in server.log if " error " in line or line.startswith("error")]
        check(not errors, f"no error line in the server's log ({len(server.log)} lines)"
              + (f"; first: {errors[:3]}" if errors else ""))
        for line in [line for line in server.log if "descriptor" in line][:3]:
            print(f"server log: {line}", flush=True)
    finally:
        server.stop()
        server.cleanup()
    return finish(passed, failed)


if __name__ == "__main__":
    sys.exit(main())
