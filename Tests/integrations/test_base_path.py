"""`seek serve` under a base path behind nginx (DESIGN, "Integrations"): with `SEEK_BASE_PATH=/books`
(or `--base-path /books`) and nginx's `location /books/ { proxy_pass http://127.0.0.1:PORT; }` — no
rewriting — every page, link, asset, image and stream of the web UI answers 200 under /books/, none
points outside it, and the API, the OpenSearch description and the suggestions work there.

Needs: nginx (Debian's nginx-light), a seek binary (SEEK_BIN, default .build/debug/seek, seek-hosts
beside it), Pillow for the fixture providers' covers (Tests/web/fixture_server.py); selenium and
Chromium for the script's part (skipped without them, saying so).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "web"))
from fixture_server import FixtureServer  # noqa: E402

BASE = "/books"


def seek_binary() -> str:
    path = Path(os.environ.get("SEEK_BIN") or ROOT / ".build" / "debug" / "seek")
    path = path if path.is_absolute() else ROOT / path
    if not path.exists():
        pytest.fail(f"no seek binary at {path} (swift build --product seek && swift build --product seek-hosts, or set SEEK_BIN)")
    return str(path)


def nginx_binary() -> str:
    found = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(p, os.X_OK)), None)
    if not found:
        pytest.fail("nginx is not installed (Debian: apt-get install nginx-light; .ci/run installs it)")
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`seek serve --port 0` with the fixture providers, folders of its own and `arguments`/`environment`."""

    def __init__(self, fixture: FixtureServer, home: Path, arguments: list[str], environment: dict[str, str]) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SEEK_")}
        env.update(fixture.environment())
        env.update(HOME=str(home), SEEK_CACHE_DIR=str(home / "cache"), SEEK_DATA_DIR=str(home / "data"),
                   SEEK_PROVIDERS="openlibrary,giphy,aladin", NO_COLOR="1")
        env.update(environment)
        self.log: list[str] = []
        self.process = subprocess.Popen([seek_binary(), "serve", "--port", "0", *arguments], env=env, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        found = threading.Event()
        self.port = 0

        def read() -> None:
            for line in self.process.stderr:
                self.log.append(line)
                match = re.search(r"serving on http://127\.0\.0\.1:(\d+)", line)
                if match and not found.is_set():
                    self.port = int(match.group(1))
                    found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(60):
            self.stop()
            pytest.fail("seek serve did not say where it listens:\n" + "".join(self.log))

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Nginx:
    """nginx with one `location /books/ { proxy_pass http://127.0.0.1:PORT; }` and nothing else: a request
    outside /books/ gets nginx's own 404."""

    def __init__(self, prefix: Path, upstream: int) -> None:
        self.prefix = prefix
        prefix.mkdir(parents=True, exist_ok=True)
        prefix.chmod(0o755)
        (prefix / "html").mkdir(exist_ok=True)
        self.port = free_port()
        built = subprocess.run([nginx_binary(), "-V"], capture_output=True, text=True).stderr
        temps = [("client_body_temp_path", "client_body"), ("proxy_temp_path", "proxy")]
        for module in ("fastcgi", "uwsgi", "scgi"):
            if f"--without-http_{module}_module" not in built:
                temps.append((f"{module}_temp_path", module))
        temp_lines = "\n".join(f"    {d} {prefix / f};" for d, f in temps)
        (prefix / "nginx.conf").write_text(f"""worker_processes 1;
pid {prefix / "nginx.pid"};
error_log {prefix / "error.log"} info;
events {{ worker_connections 256; }}
http {{
    access_log {prefix / "access.log"};
{temp_lines}
    server {{
        listen 127.0.0.1:{self.port};
        root {prefix / "html"};
        location {BASE}/ {{
            proxy_pass http://127.0.0.1:{upstream};
            proxy_set_header Host $http_host;
        }}
    }}
}}
""")
        self.process = subprocess.Popen([nginx_binary(), "-p", str(prefix), "-c", str(prefix / "nginx.conf"), "-g", "daemon off;"],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        self.stop()
        log = (prefix / "error.log").read_text(errors="replace") if (prefix / "error.log").exists() else ""
        raise AssertionError(f"nginx did not listen on 127.0.0.1:{self.port}:\n{log[-3000:]}")

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture(scope="module")
def fixture():
    server = FixtureServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="module", params=["environment", "flag"])
def site(request, fixture):
    """The instance under /books (SEEK_BASE_PATH, or --base-path), and nginx in front of it."""
    home = Path(tempfile.mkdtemp(prefix="seek-basepath-"))
    if request.param == "environment":
        seek = Server(fixture, home, [], {"SEEK_BASE_PATH": BASE})
    else:
        seek = Server(fixture, home, ["--base-path", BASE + "/"], {})
    try:
        nginx = Nginx(home / "nginx", seek.port)
    except AssertionError:
        seek.stop()
        raise
    yield nginx, seek
    nginx.stop()
    seek.stop()
    shutil.rmtree(home, ignore_errors=True)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are answers to look at, not to follow."""

    def redirect_request(self, *arguments, **keywords):
        return None


OPENER = urllib.request.build_opener(NoRedirect)


def get(url: str, method: str = "GET", headers: dict | None = None, data: bytes | None = None) -> tuple[int, dict, bytes]:
    request = urllib.request.Request(url, method=method, headers=headers or {}, data=data)
    try:
        with OPENER.open(request, timeout=30) as answer:
            return answer.status, {k.lower(): v for k, v in answer.headers.items()}, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


class Links(HTMLParser):
    """Every URL a page names in href, src, action and formaction, with the tag naming it."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        for name in ("href", "src", "action", "formaction"):
            if values.get(name) is not None:
                self.links.append((tag, values[name]))


def test_every_page_link_asset_image_and_stream_is_under_the_base_path_and_answers(site):
    nginx, _ = site
    start = [f"{BASE}/", f"{BASE}/search?q=river", f"{BASE}/search?q=quiet", f"{BASE}/trending", f"{BASE}/favorites", f"{BASE}/history"]
    queue = [nginx.origin + path for path in start]
    seen: set[str] = set(queue)
    checked: dict[str, int] = {}
    outside: list[tuple[str, str]] = []
    pages = 0
    while queue and pages < 40:
        url = queue.pop(0)
        status, headers, body = get(url)
        checked[url] = status
        if status != 200 or not headers.get("content-type", "").startswith("text/html"):
            continue
        pages += 1
        parser = Links()
        parser.feed(body.decode("utf-8", errors="replace"))
        for tag, link in parser.links:
            if link.startswith("#"):
                continue
            absolute = urljoin(url, link)
            parts = urlsplit(absolute)
            if f"{parts.scheme}://{parts.netloc}" != nginx.origin:
                continue  # a source's own page (rel=external)
            if not parts.path.startswith(BASE + "/"):
                outside.append((url, link))
                continue
            if tag == "form" or absolute in seen:  # a form's action is checked for its path, not fetched bare
                continue
            seen.add(absolute)
            if tag in ("img", "script", "link") or "/api/" in parts.path or parts.path.endswith((".xml", ".yaml", ".png")):
                checked[absolute] = get(absolute)[0]
            elif parts.path.startswith(BASE + "/items/") or parts.path.startswith(BASE + "/search") or parts.path in (BASE + "/",):
                if len(queue) < 60:
                    queue.append(absolute)
            else:
                checked[absolute] = get(absolute)[0]
    assert not outside, f"links outside {BASE}/: {outside[:10]}"
    failed = {url: status for url, status in checked.items() if status != 200}
    assert not failed, failed
    assert pages >= 6
    paths = {urlsplit(url).path for url in checked}
    assert f"{BASE}/static/app.js" in paths and f"{BASE}/static/app.css" in paths
    assert f"{BASE}/opensearch.xml" in paths
    assert any(p.startswith(f"{BASE}/items/") for p in paths), "the crawl reached no item page"
    images = [url for url in checked if "/image" in urlsplit(url).path]
    assert images, "the crawl found no image"
    for url in images[:5]:
        status, headers, body = get(url)
        assert status == 200 and headers.get("content-type", "").startswith("image/") and len(body) > 0, url


def test_outside_the_base_path_nothing_answers_and_the_bare_path_redirects(site):
    nginx, seek = site
    direct = f"http://127.0.0.1:{seek.port}"
    for path in ("/", "/search?q=river", "/static/app.js", "/api/v1/search?q=river", "/opensearch.xml"):
        assert get(direct + path)[0] == 404, path
        assert get(nginx.origin + path)[0] in (403, 404), path  # nginx's own answer: no location there
    status, headers, _ = get(direct + BASE)
    assert status == 308
    assert headers["location"] == BASE + "/"


def test_the_api_stream_and_redirects_work_under_the_base_path(site):
    nginx, _ = site
    status, headers, body = get(nginx.origin + f"{BASE}/api/v1/search?q=river&limit=5")
    assert status == 200 and headers["content-type"].startswith("application/json")
    document = json.loads(body)
    assert document["items"], document
    item = document["items"][0]["id"]
    assert get(nginx.origin + f"{BASE}/api/v1/items/{item}")[0] == 200
    status, headers, body = get(nginx.origin + f"{BASE}/api/v1/search/stream?q=river&limit=5")
    lines = [json.loads(line) for line in body.decode().splitlines() if line.strip()]
    assert status == 200 and headers["content-type"].startswith("application/x-ndjson")
    assert len(lines) >= 2 and "items" in lines[-1]
    status, _, body = get(nginx.origin + f"{BASE}/openapi.yaml")
    assert status == 200 and f"servers:\n  - url: {BASE}/\n" in body.decode()
    # The no-script favourite form posts and is sent back to a page under the base path.
    status, headers, _ = get(nginx.origin + f"{BASE}/favorites/toggle", method="POST", data=f"id={item}".encode(),
                             headers={"Content-Type": "application/x-www-form-urlencoded"})
    location = headers.get("location")
    assert status == 303 and location and location.startswith(BASE + "/"), (status, location)


def test_opensearch_and_suggestions_name_urls_under_the_base_path(site):
    nginx, _ = site
    status, headers, body = get(nginx.origin + f"{BASE}/opensearch.xml")
    assert status == 200 and headers["content-type"].startswith("application/opensearchdescription+xml")
    text = body.decode()
    assert f'template="{nginx.origin}{BASE}/search?q={{searchTerms}}"' in text
    assert f'template="{nginx.origin}{BASE}/suggest.json?q={{searchTerms}}"' in text
    assert f">{nginx.origin}{BASE}/icon.png</Image>" in text
    status, headers, body = get(nginx.origin + f"{BASE}/suggest.json?q=riv")
    assert status == 200 and headers["content-type"].startswith("application/x-suggestions+json")
    prefix, suggestions = json.loads(body)
    assert prefix == "riv" and isinstance(suggestions, list)
    assert get(nginx.origin + f"{BASE}/icon.png")[0] == 200


def test_the_script_makes_every_request_under_the_base_path(site):
    """In Chromium: the streamed results page, its covers and links, the suggestions box."""
    pytest.importorskip("selenium", reason="selenium is not installed (the script's part of this test needs it and Chromium)")
    if not (shutil.which("chromium") and os.path.exists("/usr/bin/chromedriver")):
        pytest.skip("Chromium and chromedriver are not installed (apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    nginx, _ = site
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.get(nginx.origin + f"{BASE}/search?q=river")
        deadline = time.monotonic() + 20
        links: list[str] = []
        while time.monotonic() < deadline:
            links = driver.execute_script("return Array.from(document.querySelectorAll('#results .title a')).map(a => a.getAttribute('href'))")
            loaded = driver.execute_script("return Array.from(document.querySelectorAll('#results img')).filter(i => i.complete && i.naturalWidth > 0).length")
            if len(links) >= 10 and loaded >= 3:
                break
            time.sleep(0.2)
        assert len(links) >= 10, links
        assert all(link.startswith(BASE + "/items/") for link in links), links[:5]
        box = driver.find_element(By.CSS_SELECTOR, "input[name=q]")
        box.clear()
        box.send_keys("riv")
        time.sleep(1.5)
        requested = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
        own = [url for url in requested if url.startswith(nginx.origin)]
        assert own, requested
        assert all(urlsplit(url).path.startswith(BASE + "/") for url in own), [u for u in own if not urlsplit(u).path.startswith(BASE + "/")]
        assert any(f"{BASE}/api/v1/suggest?" in url for url in own), own
        errors = [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]
        assert not errors, errors
    finally:
        driver.quit()
