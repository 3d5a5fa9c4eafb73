"""Starts the fixture providers, `seek serve` against them, and a headless Chromium."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from fixture_server import FixtureServer  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(__file__).parent / "screenshots"


def seek_binary() -> str:
    candidate = os.environ.get("SEEK_BIN") or str(ROOT / ".build" / "debug" / "seek")
    path = Path(candidate)
    if not path.is_absolute():
        path = ROOT / path
    if not path.exists():
        pytest.fail(f"no seek binary at {path} (build it, or set SEEK_BIN)")
    return str(path)


class Seek:
    """One `seek serve --port 0` process over a data folder. `arguments` go after `serve` (such as
    `--public`), `environment` over the fixture's variables (such as `SEEK_SECRET`)."""

    def __init__(self, fixture: FixtureServer, home: Path, config: dict | None = None,
                 arguments: list[str] | None = None, environment: dict[str, str] | None = None) -> None:
        self.fixture = fixture
        self.home = home
        self.config = config
        self.arguments = list(arguments or [])
        self.environment = dict(environment or {})
        self.process: subprocess.Popen | None = None
        self.base = ""
        self.log: list[str] = []

    def env(self) -> dict[str, str]:
        """The environment this server runs with: the same data folder for `seek` commands run beside it."""
        env = {key: value for key, value in os.environ.items() if not key.startswith("SEEK_")}
        env.update(self.fixture.environment())
        env.update({"HOME": str(self.home), "SEEK_CACHE_DIR": str(self.home / "cache"), "SEEK_DATA_DIR": str(self.home / "data")})
        if self.config is not None:
            path = self.home / "config.json"
            path.write_text(json.dumps(self.config))
            env["SEEK_CONFIG"] = str(path)
        env.update(self.environment)
        return env

    def start(self) -> "Seek":
        env = self.env()
        self.process = subprocess.Popen([seek_binary(), "serve", "--port", "0", *self.arguments], env=env, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        found = threading.Event()

        def read() -> None:
            assert self.process is not None and self.process.stderr is not None
            for line in self.process.stderr:
                self.log.append(line)
                match = re.search(r"http://[\w.\[\]:]+:\d+", line)
                if match and not found.is_set():
                    self.base = match.group(0)
                    found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(30):
            self.stop()
            pytest.fail("seek serve did not say where it listens:\n" + "".join(self.log))
        return self

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def url(self, path: str) -> str:
        return self.base + path


@pytest.fixture(scope="session")
def fixture() -> FixtureServer:
    server = FixtureServer().start()
    yield server
    server.stop()


@pytest.fixture()
def home() -> Path:
    path = Path(tempfile.mkdtemp(prefix="seek-web-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def shared_home() -> Path:
    path = Path(tempfile.mkdtemp(prefix="seek-web-shared-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def seek(fixture: FixtureServer, shared_home: Path) -> Seek:
    server = Seek(fixture, shared_home).start()
    yield server
    server.stop()


def make_browser(javascript: bool = True, arguments: tuple[str, ...] = ()):
    """A headless Chromium with a profile (and so a cookie jar) of its own; `arguments` are added to its command line."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1440,1000",
                     "--lang=en-US", "--no-first-run", "--disable-extensions", *arguments):
        options.add_argument(argument)
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(30)
    return driver


@pytest.fixture(scope="session")
def browser():
    driver = make_browser()
    yield driver
    driver.quit()


@pytest.fixture(autouse=True)
def calm(fixture: FixtureServer):
    """Every test starts with providers that answer at once."""
    fixture.delays.clear()
    fixture.rate_limited.clear()
    yield
    fixture.delays.clear()


def wait_until(condition, timeout: float = 10, interval: float = 0.05):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = condition()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"not true within {timeout} s (last: {last!r})")
