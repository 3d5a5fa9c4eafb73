"""`seek serve --public` as its visitors and a forger see it: two browser profiles (two cookie jars) in
headless Chromium, a browser without JavaScript, a client past its search budget, and forged requests
sent by hand. DESIGN.md, "A public instance (`seek serve --public`)" and "Web UI". Each test names
one behaviour; every wait is bounded."""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from conftest import SCREENSHOTS, Seek, make_browser, seek_binary, wait_until

SECRET = "public-mode-web-test-secret-0123456789abcdef"
EVIL = "http://evil.example"


def public(fixture, home: Path, **environment: str) -> Seek:
    """A `seek serve --public` over `home`, with the fixtures' providers and `environment` added."""
    return Seek(fixture, home, arguments=["--public"], environment={"SEEK_SECRET": SECRET, **environment}).start()


@pytest.fixture()
def instance(fixture, home):
    server = public(fixture, home)
    yield server
    server.stop()


@pytest.fixture()
def visitor():
    driver = make_browser()
    yield driver
    driver.quit()


@pytest.fixture()
def other_visitor():
    driver = make_browser()
    yield driver
    driver.quit()


@pytest.fixture()
def no_script_visitor():
    driver = make_browser(javascript=False)
    yield driver
    driver.quit()


# ---- helpers --------------------------------------------------------------------------------------------


def send(server: Seek, method: str, path: str, headers: dict[str, str] | None = None, body: bytes | None = None):
    """One request exactly as given (no cookie jar, no redirects): (status, headers by lower-case name, text)."""
    url = urlsplit(server.base)
    connection = http.client.HTTPConnection(url.hostname, url.port, timeout=20)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        answer = connection.getresponse()
        text = answer.read().decode()
        found: dict[str, list[str]] = {}
        for name, value in answer.getheaders():
            found.setdefault(name.lower(), []).append(value)
        return answer.status, found, text
    finally:
        connection.close()


def listed(server: Seek, path: str, cookie: str | None) -> list:
    """The entries of `GET path` (`/api/v1/favorites` or `/api/v1/history`) for the visitor `cookie` names."""
    status, _, text = send(server, "GET", path, {"Cookie": f"seek_visitor={cookie}"} if cookie else {})
    assert status == 200, text
    return json.loads(text)["entries"]


def favourite_ids(server: Seek, cookie: str | None) -> list[str]:
    return [entry["id"] for entry in listed(server, "/api/v1/favorites", cookie)]


def history_queries(server: Seek, cookie: str | None) -> list[str]:
    return [entry["query"] for entry in listed(server, "/api/v1/history", cookie)]


def cookie_of(driver) -> str:
    cookie = driver.get_cookie("seek_visitor")
    assert cookie, "the instance gave this browser no seek_visitor cookie"
    return cookie["value"]


def star(driver, item_id: str):
    return driver.find_element(By.CSS_SELECTOR, f"[data-item-id='{item_id}'] [data-favorite-toggle], [data-favorite-toggle][data-id='{item_id}']")


def pressed(driver) -> dict[str, str]:
    """Each star on the page: its item id and aria-pressed."""
    return driver.execute_script(
        "return Object.fromEntries(Array.from(document.querySelectorAll('[data-favorite-toggle]')).map(s => [s.dataset.id, s.getAttribute('aria-pressed')]))")


def page_favourites(driver, server: Seek) -> list[str]:
    """The ids the browser's /favorites page lists."""
    driver.get(server.url("/favorites"))
    return [e.get_attribute("data-item-id") for e in driver.find_elements(By.CSS_SELECTOR, "#results [data-item-id]")]


def page_history(driver, server: Seek) -> list[str]:
    """The queries the browser's /history page lists."""
    driver.get(server.url("/history"))
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".history-list li a")]


def favourite_with_the_star(driver, item_id: str) -> None:
    """Clicks the star of `item_id` (JavaScript on: it toggles in place) and waits for it to say pressed."""
    button = star(driver, item_id)
    assert button.get_attribute("aria-pressed") == "false"
    button.click()
    wait_until(lambda: star(driver, item_id).get_attribute("aria-pressed") == "true", timeout=10)


def owner_runs(server: Seek, *arguments: str) -> str:
    """A CLI command over the instance's own data folder, as its owner would run it: what it printed."""
    done = subprocess.run([seek_binary(), *arguments], env=server.env(), stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, (arguments, done.returncode, done.stderr)
    return done.stdout


def owner(server: Seek, *arguments: str) -> dict:
    """A CLI command's JSON document, as the instance's owner gets it."""
    return json.loads(owner_runs(server, *arguments, "--format", "json"))


def images_loaded(driver) -> bool:
    return driver.execute_script("return Array.from(document.querySelectorAll('#results img')).every(i => i.complete && i.naturalWidth > 0)")


def arrive(driver, server: Seek) -> None:
    """The visitor's first page, the home page: it brings the cookie (a request without one records no search)."""
    driver.get(server.url("/"))
    cookie_of(driver)


def shoot(driver, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


def replaced(element):
    """A wait condition: `element`'s page has gone. Mid-navigation chromedriver may report the old
    page's node as "does not belong to the document" (or its frame as gone) instead of as stale."""

    def gone(_driver) -> bool:
        try:
            element.is_enabled()
            return False
        except StaleElementReferenceException:
            return True
        except WebDriverException as error:
            if "does not belong to the document" in str(error) or "Cannot find context" in str(error):
                return True
            raise

    return gone


def submit_no_script_star(driver, item_id: str) -> None:
    """Presses the star of `item_id` in a browser without JavaScript: a form POST, then the page it is sent to."""
    button = star(driver, item_id)
    button.click()
    WebDriverWait(driver, 15).until(replaced(button))
    WebDriverWait(driver, 15).until(lambda d: d.execute_script("return document.readyState") == "complete")


def path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def altered(cookie: str, index: int) -> str:
    """`cookie` with the character at `index` changed to another of the same alphabet."""
    character = cookie[index]
    other = "B" if character != "B" else "C"
    return cookie[:index] + other + cookie[index + 1:]


# ---- 1. two visitors ------------------------------------------------------------------------------------


def test_two_visitors_each_see_only_their_own_favourites_and_history(instance, visitor, other_visitor):
    # The owner has a favourite and a search of their own, from the CLI, before anyone visits.
    owner_runs(instance, "favorites", "add", "giphy:quiet2")
    owner_runs(instance, "search", "river owner")
    owner_favourites = [e["id"] for e in owner(instance, "favorites", "list")["entries"]]
    owner_history = [e["query"] for e in owner(instance, "history")["entries"]]
    assert owner_favourites == ["giphy:quiet2"] and owner_history == ["river owner"]

    a, b = visitor, other_visitor
    arrive(a, instance)
    arrive(b, instance)
    a.get(instance.url("/search?q=quiet%20from%20a"))
    assert set(pressed(a).values()) == {"false"}, "the owner's favourite shows as this visitor's"
    favourite_with_the_star(a, "openlibrary:OL1W")

    # B sees none of it: not on the favourites page, not on the stars of the same results.
    assert page_favourites(b, instance) == []
    assert b.find_elements(By.CSS_SELECTOR, "[data-empty]")
    b.get(instance.url("/search?q=quiet%20from%20b"))
    assert "openlibrary:OL1W" in pressed(b) and set(pressed(b).values()) == {"false"}
    b.get(instance.url("/search?q=river%20from%20b"))
    favourite_with_the_star(b, "openlibrary:OL101W")

    # And A does not see B's.
    a.get(instance.url("/search?q=river%20from%20a"))
    assert pressed(a)["openlibrary:OL101W"] == "false" and set(pressed(a).values()) == {"false"}

    assert page_favourites(a, instance) == ["openlibrary:OL1W"]
    wait_until(lambda: images_loaded(a), timeout=10)
    shoot(a, "public-favourites-visitor-a")
    assert page_favourites(b, instance) == ["openlibrary:OL101W"]
    wait_until(lambda: images_loaded(b), timeout=10)
    shoot(b, "public-favourites-visitor-b")

    assert sorted(page_history(a, instance)) == ["quiet from a", "river from a"]
    assert sorted(page_history(b, instance)) == ["quiet from b", "river from b"]

    # The owner's lists are the owner's alone: nothing of the visitors' entered them.
    assert [e["id"] for e in owner(instance, "favorites", "list")["entries"]] == owner_favourites
    assert [e["query"] for e in owner(instance, "history")["entries"]] == owner_history


def test_a_visitors_favourite_shows_pressed_on_the_streamed_results_page(instance, visitor):
    arrive(visitor, instance)
    visitor.get(instance.url("/search?q=quiet%20kept"))
    favourite_with_the_star(visitor, "openlibrary:OL1W")
    visitor.get(instance.url("/search?q=quiet%20kept&stream=1"))
    wait_until(lambda: visitor.execute_script("return document.querySelector('#results').dataset.stream") == "0", timeout=10)
    assert pressed(visitor)["openlibrary:OL1W"] == "true"


# ---- 2. no cookie, no lists -----------------------------------------------------------------------------


def test_a_visitor_whose_cookies_are_cleared_sees_empty_lists(instance, visitor):
    arrive(visitor, instance)
    visitor.get(instance.url("/search?q=quiet%20before"))
    favourite_with_the_star(visitor, "openlibrary:OL1W")
    assert page_favourites(visitor, instance) == ["openlibrary:OL1W"]
    assert page_history(visitor, instance) == ["quiet before"]
    before = visitor.get_cookie("seek_visitor")

    visitor.delete_all_cookies()
    # The first request without a cookie sees no lists and records no search.
    visitor.get(instance.url("/search?q=quiet%20without%20a%20cookie"))
    assert set(pressed(visitor).values()) == {"false"}
    assert page_favourites(visitor, instance) == []
    assert visitor.find_elements(By.CSS_SELECTOR, "[data-empty]")
    assert page_history(visitor, instance) == []
    assert visitor.find_elements(By.CSS_SELECTOR, "[data-empty]")
    assert cookie_of(visitor) != before["value"], "the cleared browser was given its old identity back"

    # The old cookie is what the old lists belong to (nothing was deleted by clearing it).
    assert favourite_ids(instance, before["value"]) == ["openlibrary:OL1W"]
    assert history_queries(instance, before["value"]) == ["quiet before"]


# ---- 3. the star without JavaScript ---------------------------------------------------------------------


def test_the_no_script_star_toggles_a_favourite_on_the_detail_page(instance, no_script_visitor):
    driver = no_script_visitor
    page = "/items/openlibrary:OL101W"
    driver.get(instance.url(page))
    assert "js" not in (driver.find_element(By.TAG_NAME, "html").get_attribute("class") or "")  # the script did not run
    assert star(driver, "openlibrary:OL101W").get_attribute("aria-pressed") == "false"

    submit_no_script_star(driver, "openlibrary:OL101W")
    assert path_of(driver.current_url) == page
    assert star(driver, "openlibrary:OL101W").get_attribute("aria-pressed") == "true"
    driver.refresh()
    assert star(driver, "openlibrary:OL101W").get_attribute("aria-pressed") == "true"
    assert favourite_ids(instance, cookie_of(driver)) == ["openlibrary:OL101W"]

    submit_no_script_star(driver, "openlibrary:OL101W")
    assert path_of(driver.current_url) == page
    assert star(driver, "openlibrary:OL101W").get_attribute("aria-pressed") == "false"
    driver.refresh()
    assert star(driver, "openlibrary:OL101W").get_attribute("aria-pressed") == "false"
    assert favourite_ids(instance, cookie_of(driver)) == []


def test_the_no_script_star_toggles_a_favourite_from_a_results_page(instance, no_script_visitor):
    driver = no_script_visitor
    results = "/search?q=quiet%20no%20script"
    driver.get(instance.url(results))
    assert star(driver, "openlibrary:OL1W").get_attribute("aria-pressed") == "false"

    submit_no_script_star(driver, "openlibrary:OL1W")
    assert favourite_ids(instance, cookie_of(driver)) == ["openlibrary:OL1W"]
    driver.get(instance.url(results))
    assert star(driver, "openlibrary:OL1W").get_attribute("aria-pressed") == "true"

    submit_no_script_star(driver, "openlibrary:OL1W")
    assert favourite_ids(instance, cookie_of(driver)) == []
    driver.get(instance.url(results))
    assert star(driver, "openlibrary:OL1W").get_attribute("aria-pressed") == "false"


def test_the_no_script_star_ends_on_the_results_page_it_was_pressed_on(instance, no_script_visitor):
    driver = no_script_visitor
    results = "/search?q=quiet%20no%20script"
    driver.get(instance.url(results))
    submit_no_script_star(driver, "openlibrary:OL1W")
    assert path_of(driver.current_url) == results
    assert star(driver, "openlibrary:OL1W").get_attribute("aria-pressed") == "true"


# Chromium sends Sec-Fetch-Site only to a potentially trustworthy origin (HTTPS, or loopback). A public
# instance reached over plain HTTP by a name (http://seek.lan:8080) gets neither it nor a Referer, and
# a no-referrer page policy would make the form's Origin "null" (the pages send same-origin). The name is mapped to 127.0.0.1 inside
# Chromium only: nothing leaves the machine.
PLAIN_HTTP_NAME = "seek-public.test"


@pytest.fixture()
def by_name_browsers(instance):
    mapping = f"--host-resolver-rules=MAP {PLAIN_HTTP_NAME} 127.0.0.1"
    drivers = {"script": make_browser(arguments=(mapping,)), "no-script": make_browser(javascript=False, arguments=(mapping,))}
    yield drivers
    for driver in drivers.values():
        driver.quit()


def by_name(instance: Seek, path: str) -> str:
    return f"http://{PLAIN_HTTP_NAME}:{urlsplit(instance.base).port}{path}"


def test_the_script_star_works_on_an_instance_reached_over_plain_http_by_name(instance, by_name_browsers):
    driver = by_name_browsers["script"]
    driver.get(by_name(instance, "/items/openlibrary:OL101W"))
    favourite_with_the_star(driver, "openlibrary:OL101W")
    driver.refresh()
    assert star(driver, "openlibrary:OL101W").get_attribute("aria-pressed") == "true"


def test_the_no_script_star_works_on_an_instance_reached_over_plain_http_by_name(instance, by_name_browsers):
    driver = by_name_browsers["no-script"]
    page = "/items/openlibrary:OL101W"
    driver.get(by_name(instance, page))
    submit_no_script_star(driver, "openlibrary:OL101W")
    assert path_of(driver.current_url) == page, driver.page_source[:300]
    assert star(driver, "openlibrary:OL101W").get_attribute("aria-pressed") == "true"


# ---- 4. past the search budget --------------------------------------------------------------------------


def test_a_visitor_past_the_search_budget_is_told_so_on_the_results_page(fixture, home, visitor, no_script_visitor):
    server = public(fixture, home, SEEK_CLIENT_RATE_LIMIT="2/min,burst=2")
    try:
        # Both searches of the budget by the API; the next, from the search box (JavaScript on), is
        # refused on its stream (the script's page shell itself searches nothing and does not count).
        for query in ("river", "river two"):
            status, _, _ = send(server, "GET", f"/api/v1/search?q={query.replace(' ', '%20')}")
            assert status == 200
        visitor.get(server.url("/"))
        box = visitor.find_element(By.CSS_SELECTOR, "input[name=q]")
        box.send_keys("river limited")
        box.send_keys(Keys.ENTER)
        count = wait_until(lambda: visitor.find_elements(By.CSS_SELECTOR, "#count[data-rate-limited]"), timeout=10)[0]
        assert re.fullmatch(r"Too many searches from your address: try again in \d+ seconds\.", count.text), count.text
        seconds = int(re.search(r"\d+", count.text).group(0))
        assert 1 <= seconds <= 30
        assert not visitor.find_elements(By.CSS_SELECTOR, "#results [data-item-id]")
        visitor.execute_script("window.scrollTo(0, 0)")
        shoot(visitor, "public-rate-limited-stream")

        # Without JavaScript the results page itself is the 429 page.
        no_script_visitor.get(server.url("/search?q=river%20again"))
        notice = no_script_visitor.find_element(By.CSS_SELECTOR, "[data-rate-limited]")
        assert "Too many searches" in notice.text
        assert re.search(r"Try again in \d+ seconds", notice.text), notice.text
        assert not no_script_visitor.find_elements(By.CSS_SELECTOR, "[data-item-id]")
        shoot(no_script_visitor, "public-rate-limited-page")

        # What the browsers were given, as a client sees it.
        status, headers, text = send(server, "GET", "/search?q=river%20again")
        assert status == 429 and "data-rate-limited" in text and int(headers["retry-after"][0]) >= 1
        status, headers, text = send(server, "GET", "/api/v1/search/stream?q=river")
        assert status == 429 and json.loads(text)["error"]["code"] == "rate_limited" and int(headers["retry-after"][0]) >= 1
    finally:
        server.stop()


# ---- 5. forged requests ---------------------------------------------------------------------------------


def test_writes_from_another_site_are_refused_and_change_nothing(instance, visitor):
    arrive(visitor, instance)
    visitor.get(instance.url("/search?q=quiet%20forged"))
    favourite_with_the_star(visitor, "openlibrary:OL1W")
    cookie = cookie_of(visitor)
    mine = {"Cookie": f"seek_visitor={cookie}"}
    assert favourite_ids(instance, cookie) == ["openlibrary:OL1W"]
    history = history_queries(instance, cookie)
    assert history == ["quiet forged"]

    forged = [
        ("PUT", "/api/v1/favorites/openlibrary:OL101W", {"Origin": EVIL}, None),
        ("PUT", "/api/v1/favorites/openlibrary:OL101W", {"Origin": "null"}, None),
        ("DELETE", "/api/v1/favorites/openlibrary:OL1W", {"Sec-Fetch-Site": "cross-site"}, None),
        ("DELETE", "/api/v1/favorites/openlibrary:OL1W", {"Sec-Fetch-Site": "same-site", "Origin": instance.base}, None),
        ("DELETE", "/api/v1/history", {"Origin": EVIL}, None),
        ("POST", "/favorites/toggle", {"Origin": EVIL, "Content-Type": "application/x-www-form-urlencoded"}, b"id=openlibrary%3AOL1W"),
        ("POST", "/favorites/toggle", {"Sec-Fetch-Site": "cross-site", "Content-Type": "application/x-www-form-urlencoded"},
         b"id=openlibrary%3AOL1W"),
    ]
    for method, path, headers, body in forged:
        status, _, text = send(instance, method, path, {**mine, **headers}, body)
        assert status == 403, (method, path, headers, status, text)
        assert json.loads(text)["error"]["code"] == "forbidden", text
    assert favourite_ids(instance, cookie) == ["openlibrary:OL1W"]
    assert history_queries(instance, cookie) == history

    # The same change from the instance's own origin goes through.
    status, _, text = send(instance, "PUT", "/api/v1/favorites/openlibrary:OL101W", {**mine, "Origin": instance.base})
    assert status in (200, 201, 204), text
    assert sorted(favourite_ids(instance, cookie)) == ["openlibrary:OL101W", "openlibrary:OL1W"]
    visitor.get(instance.url("/search?q=quiet%20forged"))
    assert star(visitor, "openlibrary:OL1W").get_attribute("aria-pressed") == "true"


def test_an_altered_visitor_cookie_is_a_stranger_with_empty_lists(instance, visitor):
    arrive(visitor, instance)
    visitor.get(instance.url("/search?q=quiet%20altered"))
    favourite_with_the_star(visitor, "openlibrary:OL1W")
    cookie = cookie_of(visitor)
    assert re.fullmatch(r"[A-Za-z0-9._-]+", cookie), cookie
    assert favourite_ids(instance, cookie) == ["openlibrary:OL1W"]

    forgeries = {
        "the id, one character": altered(cookie, cookie.index(".") + 2),
        "the signature, one character": altered(cookie, len(cookie) - 3),
        "no signature": cookie.rsplit(".", 1)[0],
        "garbage": "v1.not-a-cookie",
        "huge": "v1." + "A" * 8000,
    }
    for name, forged in forgeries.items():
        for path in ("/api/v1/favorites", "/api/v1/history"):
            status, headers, text = send(instance, "GET", path, {"Cookie": f"seek_visitor={forged}"})
            assert status == 200, (name, path, status, text)
            assert json.loads(text)["entries"] == [], (name, path, text)
            given = [v for v in headers.get("set-cookie", []) if v.startswith("seek_visitor=")]
            assert given and cookie not in given[0], (name, "a forged cookie was not replaced by a new visitor's")
        # A write with it lands on a new visitor, never on the one it was altered from.
        status, _, _ = send(instance, "DELETE", "/api/v1/favorites/openlibrary:OL1W", {"Cookie": f"seek_visitor={forged}"})
        assert status in (200, 204, 404), (name, status)
    assert favourite_ids(instance, cookie) == ["openlibrary:OL1W"]
    assert page_favourites(visitor, instance) == ["openlibrary:OL1W"]


def test_post_mcp_is_not_found_on_a_public_instance_without_a_token(instance):
    initialize = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                             "params": {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    status, _, _ = send(instance, "POST", "/mcp", {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"},
                        initialize.encode())
    assert status == 404
    status, _, _ = send(instance, "POST", "/mcp", {"Content-Type": "application/json", "Authorization": "Bearer anything"},
                        initialize.encode())
    assert status == 404


# ---- 6. who may start it --------------------------------------------------------------------------------


def run_serve(arguments: list[str], environment: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if not key.startswith("SEEK_")}
    env.update(environment or {})
    process = subprocess.Popen([seek_binary(), "serve", *arguments], env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        stdout, stderr = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate(timeout=10)
        pytest.fail(f"seek serve {' '.join(arguments)} did not refuse to start: it ran\n{stderr}")
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def test_a_personal_server_refuses_an_address_others_can_reach(home):
    done = run_serve(["--host", "0.0.0.0", "--port", "0"], {"HOME": str(home), "SEEK_DATA_DIR": str(home / "data")})
    assert done.returncode == 64, done.stderr
    assert "--public" in done.stderr and "--personal" in done.stderr, done.stderr


def test_a_public_server_refuses_to_start_without_a_secret(home):
    for secret in (None, "", "too short for a secret"):
        environment = {"HOME": str(home), "SEEK_DATA_DIR": str(home / "data")}
        if secret is not None:
            environment["SEEK_SECRET"] = secret
        done = run_serve(["--public", "--port", "0"], environment)
        assert done.returncode == 64, (secret, done.stderr)
        assert "SEEK_SECRET" in done.stderr, (secret, done.stderr)
