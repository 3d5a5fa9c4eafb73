"""The harness of the fleet tests (conftest.py holds the fixtures): a fleet of `seek serve` instances
on one PostgreSQL database, behind nginx, against the fixture providers of Tests/web on 127.0.0.1.

- `SEEK_TEST_DATABASE_URL`: a PostgreSQL server the tests may make databases on (as .ci/run gives,
  from Tests/support/postgres.sh). Each test gets a fresh database of its own, dropped afterwards,
  so nothing the Swift tests (or another test) stored is seen.
- The tests that break the database (`pg_ctl stop -m immediate`, `kill -STOP`) do it to a cluster of
  their own, made once per session with Tests/support/postgres.sh in a temp folder, never to the
  server named by `SEEK_TEST_DATABASE_URL`.
- `SEEK_BIN`: the `seek` executable (`seek serve` execs `seek-hosts` beside it); default
  .build/release/seek, else .build/debug/seek.
- nginx is started by the tests as a plain process with its own prefix folder (`nginx -p DIR -c
  DIR/nginx.conf -g 'daemon off;'`); Debian's `nginx-light` is enough.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import parse_qs, urlsplit, urlunsplit

import pytest
import requests

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "web"))
from fixture_server import FixtureServer  # noqa: E402

POSTGRES_SH = ROOT / "Tests" / "support" / "postgres.sh"
DATABASE_URL = os.environ.get("SEEK_TEST_DATABASE_URL", "")

SEARCH_PATHS = {
    "openlibrary": ("/ol/search.json", "q"),
    "giphy": ("/giphy/v1/gifs/search", "q"),
    "aladin": ("/aladin/ttb/api/ItemSearch.aspx", "Query"),
}


# ---------------------------------------------------------------- fixture providers


class RecordingFixture(FixtureServer):
    """The web suite's fixture providers, also noting when each request arrived (monotonic clock)."""

    def __init__(self) -> None:
        super().__init__()
        self.arrivals: list[tuple[float, str]] = []

    def answer(self, raw_path: str):
        with self.lock:
            self.arrivals.append((time.monotonic(), raw_path))
        return super().answer(raw_path)

    def search_calls(self, provider: str, containing: str = "") -> list[tuple[float, str]]:
        """(arrival, query) of each search call made to `provider` whose query contains `containing`."""
        path, parameter = SEARCH_PATHS[provider]
        with self.lock:
            arrivals = list(self.arrivals)
        calls = []
        for arrived, raw in arrivals:
            url = urlsplit(raw)
            if url.path != path:
                continue
            query = (parse_qs(url.query).get(parameter) or [""])[0]
            if containing.lower() in query.lower():
                calls.append((arrived, query))
        return calls


# ---------------------------------------------------------------- seek


def seek_binary() -> str:
    candidates = [os.environ.get("SEEK_BIN", "")] if os.environ.get("SEEK_BIN") else [
        str(ROOT / ".build" / "release" / "seek"), str(ROOT / ".build" / "debug" / "seek")]
    for candidate in candidates:
        path = Path(candidate)
        if not path.is_absolute():
            path = ROOT / path
        if path.exists():
            if not (path.parent / "seek-hosts").exists():
                pytest.fail(f"no seek-hosts beside {path}: `seek serve` runs there (build the seek-hosts product)")
            return str(path)
    pytest.fail(f"no seek binary at {' or '.join(candidates)} (build it, or set SEEK_BIN)")


def seek_environment(fixture: RecordingFixture, home: Path, database_url: str | None, extra: dict | None = None) -> dict:
    """A clean environment (no SEEK_* of the caller) for a seek process over the folder `home`."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("SEEK_")}
    env.update(fixture.environment())
    env.update({
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_CACHE_HOME": str(home / "xdg-cache"),
        "XDG_DATA_HOME": str(home / "xdg-data"),
        "SEEK_CACHE_DIR": str(home / "cache"),
        "SEEK_DATA_DIR": str(home / "data"),
        "NO_COLOR": "1",
    })
    if database_url:
        env["SEEK_DATABASE_URL"] = database_url
    env.update(extra or {})
    return env


def run_cli(fixture: RecordingFixture, home: Path, args: list[str], database_url: str | None,
            timeout: float = 60) -> subprocess.CompletedProcess:
    """Runs `seek ARGS` as a host of its own over `home`, with SEEK_DATABASE_URL set only if given."""
    home.mkdir(parents=True, exist_ok=True)
    return subprocess.run([seek_binary(), *args], env=seek_environment(fixture, home, database_url),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)


class Instance:
    """One `seek serve --port 0` over a folder of its own (HOME, cache, data)."""

    def __init__(self, name: str, fixture: RecordingFixture, home: Path, database_url: str | None,
                 extra_env: dict | None = None) -> None:
        self.name = name
        self.fixture = fixture
        self.home = home
        self.database_url = database_url
        self.extra_env = extra_env or {}
        self.process: subprocess.Popen | None = None
        self.base = ""
        self.port = 0
        self.log: list[str] = []
        self.listening = threading.Event()

    def launch(self) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        env = seek_environment(self.fixture, self.home, self.database_url, self.extra_env)
        self.process = subprocess.Popen([seek_binary(), "serve", "--port", "0"], env=env, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

        def read() -> None:
            assert self.process is not None and self.process.stderr is not None
            for line in self.process.stderr:
                self.log.append(line)
                match = re.search(r"http://([\w.\[\]:]+):(\d+)", line)
                if match and not self.listening.is_set():
                    self.base = match.group(0)
                    self.port = int(match.group(2))
                    self.listening.set()

        threading.Thread(target=read, daemon=True).start()

    def wait_listening(self, timeout: float = 30) -> None:
        if not self.listening.wait(timeout):
            code = self.process.poll() if self.process else None
            raise AssertionError(f"seek serve ({self.name}) did not say where it listens within {timeout} s "
                                 f"(exit code {code}):\n" + "".join(self.log[-40:]))

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)

    def url(self, path: str) -> str:
        return self.base + path


# ---------------------------------------------------------------- nginx


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def nginx_binary() -> str:
    found = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(p, os.X_OK)), None)
    if not found:
        pytest.fail("nginx is not installed: the fleet tests put nginx in front of the instances "
                    "(Debian: apt-get install nginx-light; .ci/run installs it)")
    return found


def nginx_config(prefix: Path, port: int, upstreams: list[int]) -> str:
    """One server on 127.0.0.1:PORT, round robin over the upstreams; everything nginx writes stays in `prefix`.

    proxy_buffering stays on (nginx's default), and gzip is on for JSON and ndjson as a site would have
    it: a buffered response goes through gzip without flushes, so a stream's first line waits for the
    rest. Only the stream's own `X-Accel-Buffering: no` (unbuffered proxying, each read flushed)
    lets it through at once. (Without gzip, buffered proxying still passes a first line longer than
    postpone_output's 1460 bytes as soon as it is read, and so would not tell.)"""
    built = subprocess.run([nginx_binary(), "-V"], capture_output=True, text=True).stderr
    temp_paths = [("client_body_temp_path", "client_body"), ("proxy_temp_path", "proxy")]
    for module in ("fastcgi", "uwsgi", "scgi"):
        if f"--without-http_{module}_module" not in built:
            temp_paths.append((f"{module}_temp_path", module))
    temps = "\n".join(f"    {directive} {prefix / folder};" for directive, folder in temp_paths)
    servers = "\n".join(f"        server 127.0.0.1:{upstream};" for upstream in upstreams)
    return f"""worker_processes 1;
pid {prefix / "nginx.pid"};
error_log {prefix / "error.log"} info;

events {{
    worker_connections 512;
}}

http {{
    access_log {prefix / "access.log"};
{temps}

    gzip on;
    gzip_types application/json application/x-ndjson;

    upstream seek {{
{servers}
    }}

    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://seek;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_read_timeout 60s;
        }}
    }}
}}
"""


class Nginx:
    def __init__(self, prefix: Path, upstreams: list[int]) -> None:
        self.prefix = prefix
        self.upstreams = upstreams
        self.port = 0
        self.process: subprocess.Popen | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return self.base + path

    def command(self, *extra: str) -> list[str]:
        return [nginx_binary(), "-p", str(self.prefix), "-c", str(self.prefix / "nginx.conf"), *extra]

    def write_config(self) -> None:
        self.prefix.mkdir(parents=True, exist_ok=True)
        # Run as root, nginx's workers become `nobody`: they must reach the temp folders under the prefix.
        self.prefix.chmod(0o755)
        self.port = free_port()
        (self.prefix / "nginx.conf").write_text(nginx_config(self.prefix, self.port, self.upstreams))

    def check(self) -> subprocess.CompletedProcess:
        return subprocess.run(self.command("-t", "-g", "daemon off;"), capture_output=True, text=True, timeout=30)

    def start(self) -> "Nginx":
        self.write_config()
        self.process = subprocess.Popen(self.command("-g", "daemon off;"), stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise AssertionError(f"nginx did not listen on 127.0.0.1:{self.port}:\n{self.error_log()}")

    def error_log(self) -> str:
        path = self.prefix / "error.log"
        stderr = ""
        if self.process and self.process.stderr and self.process.poll() is not None:
            stderr = self.process.stderr.read().decode(errors="replace")
        return stderr + (path.read_text(errors="replace")[-4000:] if path.exists() else "")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()  # SIGTERM: nginx's fast shutdown
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


# ---------------------------------------------------------------- PostgreSQL


def psql_binary() -> str:
    found = shutil.which("psql") or next(iter(sorted(Path("/usr/lib/postgresql").glob("*/bin/psql"))), None)
    if not found:
        pytest.fail("psql is not installed (Debian: apt-get install postgresql-client)")
    return str(found)


def database_url(server_url: str, name: str) -> str:
    """`server_url` with its database replaced by `name` (user, host, port and parameters kept)."""
    parts = urlsplit(server_url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


def psql(url: str, sql: str, timeout: float = 30) -> str:
    done = subprocess.run([psql_binary(), "-XAtq", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql],
                          capture_output=True, text=True, timeout=timeout, env={**os.environ, "PGCONNECT_TIMEOUT": "10"})
    if done.returncode != 0:
        raise AssertionError(f"psql failed on {sql!r}: {done.stderr.strip()}")
    return done.stdout.strip()


class Databases:
    """Makes fresh databases on a server (CREATE DATABASE through psql) and drops them afterwards."""

    def __init__(self, server_url: str) -> None:
        self.server_url = server_url
        self.made: list[str] = []

    def fresh(self, label: str) -> str:
        name = "seek_fleet_" + re.sub(r"[^a-z0-9_]", "_", label.lower())[:30] + "_" + uuid.uuid4().hex[:8]
        psql(self.server_url, f'CREATE DATABASE "{name}"')
        self.made.append(name)
        return database_url(self.server_url, name)

    def drop_all(self) -> None:
        for name in self.made:
            try:
                psql(self.server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            except Exception as error:  # noqa: BLE001 — a leftover database must not fail the test
                print(f"could not drop {name}: {error}")
        self.made.clear()


class Cluster:
    """A throwaway cluster of the tests' own (Tests/support/postgres.sh), for breaking on purpose."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.url = ""

    def script(self, *args: str, timeout: float = 120) -> str:
        done = subprocess.run(["bash", str(POSTGRES_SH), *args], capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise AssertionError(f"postgres.sh {' '.join(args)} failed:\n{done.stderr}")
        return done.stdout.strip()

    def start(self) -> str:
        self.url = self.script("start", str(self.folder))
        return self.url

    def stop(self, mode: str = "fast") -> None:
        self.script("stop", str(self.folder), mode)

    def running(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", urlsplit(self.url).port), timeout=1):
                return True
        except OSError:
            return False

    def pids(self) -> list[int]:
        """The postmaster, then every process it started (backends, checkpointer, walwriter, ...)."""
        pid_file = self.folder / "data" / "postmaster.pid"
        if not pid_file.exists():
            return []
        postmaster = int(pid_file.read_text().split("\n", 1)[0])
        children = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            # pid (comm) state ppid ...: comm may hold spaces, so split after its closing parenthesis.
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[1]) == postmaster:
                children.append(int(entry.name))
        return [postmaster, *children]

    def signal_all(self, sig: int) -> list[int]:
        pids = self.pids()
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        return pids


# ---------------------------------------------------------------- the fleet


class Fleet:
    """Instances a and b (started at the same moment) on one database, and nginx over both."""

    def __init__(self, fixture: RecordingFixture, root: Path, database: str, extra_env: dict | None = None) -> None:
        self.root = root
        self.database = database
        self.a = Instance("a", fixture, root / "a", database, extra_env)
        self.b = Instance("b", fixture, root / "b", database, extra_env)
        self.nginx: Nginx | None = None

    @property
    def instances(self) -> list[Instance]:
        return [self.a, self.b]

    def start(self) -> "Fleet":
        nginx_binary()  # fail early and clearly without nginx
        for instance in self.instances:
            instance.launch()
        for instance in self.instances:
            instance.wait_listening()
        self.nginx = Nginx(self.root / "nginx", [self.a.port, self.b.port]).start()
        return self

    def stop(self) -> None:
        if self.nginx:
            self.nginx.stop()
        for instance in self.instances:
            instance.stop()

    def report(self) -> None:
        """Shown by pytest under the failed test: the tail of each log."""
        for instance in self.instances:
            print(f"---- seek serve {instance.name} ({instance.base}) stderr, last lines")
            print("".join(instance.log[-30:]))
        if self.nginx:
            print("---- nginx error.log, last lines")
            print(self.nginx.error_log()[-2000:])


# ---------------------------------------------------------------- helpers for the tests


def tag() -> str:
    """A word no other search of the session contains (the fixtures answer 'river ...' with books)."""
    return "t" + uuid.uuid4().hex[:10]


def get(url: str, timeout: float = 30, **params) -> requests.Response:
    return requests.get(url, params=params or None, timeout=timeout)


def json_of(response: requests.Response) -> dict:
    try:
        return response.json()
    except ValueError:
        raise AssertionError(f"{response.request.method} {response.url} answered {response.status_code} "
                             f"without JSON: {response.text[:500]!r}") from None


def status_of(document: dict, provider: str) -> str | None:
    return next((entry.get("status") for entry in document.get("providers", []) if entry.get("id") == provider), None)


def ids_of(document: dict) -> list[str]:
    return [item["id"] for item in document.get("items", [])]


def entry_ids(document: dict) -> list[str]:
    return [entry["id"] for entry in document.get("entries", [])]


def wait_until(condition, timeout: float, interval: float = 0.2, message=""):
    """Polls `condition` (bounded in time) until it returns something true; that value is returned.
    `message` (a string, or a function giving one when it fails) says what was awaited."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        last = condition()
        if last:
            return last
        if time.monotonic() >= deadline:
            said = message() if callable(message) else message
            raise AssertionError(f"{said or 'condition'}: not true within {timeout} s (last: {last!r})")
        time.sleep(interval)


def cli_json(done: subprocess.CompletedProcess) -> dict:
    assert done.returncode == 0, f"seek exited {done.returncode}:\n{done.stderr[-2000:]}"
    try:
        return json.loads(done.stdout)
    except ValueError:
        raise AssertionError(f"seek printed no JSON document:\n{done.stdout[:1000]}\n{done.stderr[-1000:]}") from None
