"""The web UI of `seek serve` in a real browser (headless Chromium through selenium), against
fixture providers on 127.0.0.1. Each test names one behaviour a person relies on."""

from __future__ import annotations

import re
import threading
import time
from datetime import datetime, timezone
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import pytest
from selenium.common.exceptions import UnexpectedAlertPresentException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import SCREENSHOTS, Seek, make_browser, wait_until

CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"


def ids(driver) -> list[str]:
    return driver.execute_script("return Array.from(document.querySelectorAll('#results [data-item-id]')).map(e => e.dataset.itemId)")


def status(driver, provider: str) -> str | None:
    return driver.execute_script(
        "const e = document.querySelector(`[data-provider='${arguments[0]}']`); return e ? e.dataset.status : null", provider)


def search_from_box(driver, seek: Seek, text: str) -> None:
    driver.get(seek.url("/"))
    box = driver.find_element(By.CSS_SELECTOR, "input[name=q]")
    box.send_keys(text)
    box.send_keys(Keys.ENTER)


def loaded_images(driver) -> list[int]:
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#results [data-item-id] img')).map(i => i.complete ? i.naturalWidth : -1)")


def fetch(url: str) -> tuple[int, dict, str]:
    with urllib.request.urlopen(url, timeout=20) as answer:
        return answer.status, dict(answer.headers), answer.read().decode()


def shoot(driver, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


# ---- Results -----------------------------------------------------------------------------------------


def test_search_shows_results_with_their_covers_loaded(browser, seek):
    browser.get(seek.url("/search?q=river"))
    assert len(ids(browser)) >= 20
    for item_id in ids(browser)[:6]:
        browser.execute_script("document.querySelector(`[data-item-id='${arguments[0]}']`).scrollIntoView()", item_id)
    wait_until(lambda: all(width > 0 for width in loaded_images(browser)[:6]))
    assert status(browser, "openlibrary") == "ok" and status(browser, "aladin") == "ok" and status(browser, "giphy") == "ok"
    browser.execute_script("window.scrollTo(0, 0)")
    shoot(browser, "results-list")


def test_every_result_has_a_title_link_to_its_detail_page(browser, seek):
    browser.get(seek.url("/search?q=river"))
    for result in browser.find_elements(By.CSS_SELECTOR, "#results [data-item-id]")[:10]:
        link = result.find_element(By.CSS_SELECTOR, ".title a")
        assert link.text.strip()
        assert "/items/" in link.get_attribute("href")


def test_the_grid_switch_is_remembered(browser, seek):
    browser.get(seek.url("/search?q=river"))
    browser.find_element(By.CSS_SELECTOR, "[data-view=grid]").click()
    browser.get(seek.url("/search?q=river"))
    assert "grid" in browser.find_element(By.ID, "results").get_attribute("class")
    browser.execute_script("window.scrollTo(0, 0)")
    wait_until(lambda: all(width > 0 for width in loaded_images(browser)[:8]))
    shoot(browser, "results-grid")
    browser.find_element(By.CSS_SELECTOR, "[data-view=list]").click()
    assert "grid" not in browser.find_element(By.ID, "results").get_attribute("class")


def test_scrolling_to_the_end_appends_the_next_page_without_repeats(browser, seek):
    browser.get(seek.url("/search?q=river%20scroll"))
    first = ids(browser)
    assert first
    browser.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    wait_until(lambda: len(ids(browser)) > len(first))
    browser.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    time.sleep(1)
    shown = ids(browser)
    assert shown[:len(first)] == first
    assert len(shown) == len(set(shown))


def test_a_result_opens_its_detail_page(browser, seek):
    browser.get(seek.url("/search?q=quiet"))
    merged = browser.find_element(By.CSS_SELECTOR, "#results [data-item-id]")
    title = merged.find_element(By.CSS_SELECTOR, ".title a").text
    merged.find_element(By.CSS_SELECTOR, ".title a").click()
    wait_until(lambda: "/items/" in browser.current_url)
    assert browser.find_element(By.TAG_NAME, "h1").text == title
    sources = browser.find_elements(By.CSS_SELECTOR, ".source-list li")
    assert len(sources) == 2  # Open Library and Aladin, merged by ISBN
    assert browser.find_elements(By.CSS_SELECTOR, ".provenance tbody tr")
    wait_until(lambda: browser.execute_script("const i = document.querySelector('.detail-cover img'); return i && i.complete && i.naturalWidth > 0"))
    shoot(browser, "detail")


def test_an_item_the_provider_no_longer_has_is_told_in_words_without_the_upstream(browser, seek):
    # The fixture's Open Library answers every edition with 404 {"error": "notfound", ...}.
    browser.get(seek.url("/items/openlibrary:OL5M"))
    alert = browser.find_element(By.CSS_SELECTOR, "[role=alert]")
    assert "Open Library no longer has this book." in alert.text
    for leak in ("127.0.0.1", "/books/OL5M", "notfound", "HTTP 404"):
        assert leak not in browser.page_source, leak


def test_enter_on_a_result_reached_with_the_arrow_keys_opens_it(browser, seek):
    browser.get(seek.url("/search?q=river"))
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_DOWN)
    browser.switch_to.active_element.send_keys(Keys.ARROW_DOWN)
    focused = browser.switch_to.active_element
    assert focused.get_attribute("href") == browser.find_elements(By.CSS_SELECTOR, "#results .title a")[1].get_attribute("href")
    focused.send_keys(Keys.ENTER)
    wait_until(lambda: "/items/" in browser.current_url)


def test_slash_focuses_the_search_box(browser, seek):
    browser.get(seek.url("/trending"))
    browser.find_element(By.TAG_NAME, "body").send_keys("/")
    assert browser.switch_to.active_element.get_attribute("name") == "q"


# ---- Streaming, failures, empty --------------------------------------------------------------------


def test_the_first_providers_results_show_before_the_slowest_answers(browser, seek, fixture):
    fixture.delays["giphy"] = 2.5
    search_from_box(browser, seek, "river stream")
    started = time.monotonic()
    wait_until(lambda: len(ids(browser)) > 0, timeout=1.0, interval=0.02)
    assert time.monotonic() - started < 1.0
    assert status(browser, "giphy") == "pending"
    wait_until(lambda: status(browser, "giphy") == "ok", timeout=10)
    assert any(item.startswith("giphy:") for item in ids(browser))


def test_a_hung_provider_shows_timeout_while_the_others_results_show(fixture, home):
    fixture.delays["giphy"] = 4
    server = Seek(fixture, home, config={"providers": {"giphy": {"timeout": 1}}}).start()
    driver = make_browser()
    try:
        search_from_box(driver, server, "river hung")
        wait_until(lambda: status(driver, "giphy") == "timeout", timeout=8)
        assert status(driver, "openlibrary") == "ok" and status(driver, "aladin") == "ok"
        # The other providers' results may still be on their way when GIPHY is already cooling down.
        shown = wait_until(lambda: ids(driver), timeout=8)
        assert not any(item.startswith("giphy:") for item in shown)
    finally:
        driver.quit()
        server.stop()


def test_a_search_nobody_matches_shows_the_empty_message(browser, seek):
    search_from_box(browser, seek, "nothing matches this")
    empty = wait_until(lambda: browser.find_elements(By.CSS_SELECTOR, "[data-empty]"))
    assert "No results" in empty[0].text
    browser.get(seek.url("/search?q=nothing%20at%20all"))
    assert browser.find_elements(By.CSS_SELECTOR, "[data-empty]")


def test_the_results_page_works_without_javascript(seek):
    status_code, headers, html = fetch(seek.url("/search?q=river%20nojs"))
    assert status_code == 200
    assert len(re.findall(r'data-item-id="', html)) >= 20
    next_link = re.search(r'<a id="next-page" rel="next" href="([^"]+)"', html)
    assert next_link and "cursor=" in next_link.group(1)
    _, _, second = fetch(seek.url(next_link.group(1).replace("&amp;", "&")))
    first_ids = set(re.findall(r'data-item-id="([^"]+)"', html))
    second_ids = set(re.findall(r'data-item-id="([^"]+)"', second))
    assert second_ids and not first_ids & second_ids


def test_the_no_script_browser_sees_results_and_a_next_page_link(seek):
    driver = make_browser(javascript=False)
    try:
        driver.get(seek.url("/search?q=river"))
        assert len(driver.find_elements(By.CSS_SELECTOR, "[data-item-id]")) >= 20
        assert driver.find_element(By.CSS_SELECTOR, "a[rel=next]").get_attribute("href")
    finally:
        driver.quit()


# ---- Favourites ---------------------------------------------------------------------------------


def test_a_favourite_survives_a_server_restart(fixture, home):
    server = Seek(fixture, home).start()
    driver = make_browser()
    try:
        driver.get(server.url("/search?q=quiet"))
        star = driver.find_element(By.CSS_SELECTOR, "[data-item-id^='openlibrary:'] [data-favorite-toggle]")
        assert star.get_attribute("aria-pressed") == "false"
        star.click()
        wait_until(lambda: star.get_attribute("aria-pressed") == "true")
        server.stop()
        server = Seek(fixture, home).start()
        driver.get(server.url("/search?q=quiet"))
        star = driver.find_element(By.CSS_SELECTOR, "[data-item-id^='openlibrary:'] [data-favorite-toggle]")
        assert star.get_attribute("aria-pressed") == "true"
        driver.get(server.url("/favorites"))
        assert driver.find_elements(By.CSS_SELECTOR, "[data-item-id^='openlibrary:']")
    finally:
        driver.quit()
        server.stop()


def test_the_favourites_page_works_when_the_providers_are_down(fixture, home):
    server = Seek(fixture, home).start()
    try:
        urllib.request.urlopen(urllib.request.Request(server.url("/api/v1/favorites/openlibrary:OL1W"), method="PUT"), timeout=20)
        server.stop()
        fixture.delays["openlibrary"] = 30  # nothing needs Open Library now
        server = Seek(fixture, home).start()
        _, _, html = fetch(server.url("/favorites"))
        assert 'data-item-id="openlibrary:OL1W"' in html and "Quiet" in html
    finally:
        server.stop()


# ---- Safety ------------------------------------------------------------------------------------


def test_a_query_with_a_script_tag_is_shown_as_text(browser, seek):
    hostile = "<script>alert('q')</script> script"
    try:
        search_from_box(browser, seek, hostile)
        wait_until(lambda: status(browser, "openlibrary") in ("ok", "empty"))
        wait_until(lambda: browser.execute_script("return document.querySelector('#results').dataset.stream") == "0")
        browser.get(seek.url("/search?q=" + urllib.request.quote(hostile)))
    except UnexpectedAlertPresentException:
        pytest.fail("a script from the query ran")
    assert browser.execute_script("return window.__pwned === undefined")
    assert browser.find_element(By.CSS_SELECTOR, "input[name=q]").get_attribute("value") == hostile
    titles = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "#results .title a")]
    assert any("<script>window.__pwned=1</script>" in t for t in titles)
    assert browser.execute_script("return document.querySelectorAll('main script, #results img[src=x]').length") == 0


def test_every_page_carries_the_strict_content_security_policy(seek):
    for path in ["/", "/search?q=river", "/items/openlibrary:OL101W", "/favorites", "/history", "/trending", "/static/app.js"]:
        _, headers, _ = fetch(seek.url(path))
        assert headers.get("Content-Security-Policy") == CSP, path
        assert headers.get("X-Content-Type-Options") == "nosniff", path


# ---- Pages, screenshots, accessibility ---------------------------------------------------------------


def test_trending_shows_gifs_and_bestseller_covers(browser, seek):
    browser.get(seek.url("/trending"))
    shown = ids(browser)
    assert any(i.startswith("giphy:") for i in shown) and any(i.startswith("aladin:") for i in shown)
    wait_until(lambda: all(width > 0 for width in loaded_images(browser)[:6]))
    shoot(browser, "trending")


def test_korean_titles_render_at_360_pixels(seek):
    driver = make_browser()
    try:
        driver.set_window_size(360, 800)
        driver.get(seek.url("/search?q=river&providers=aladin"))
        titles = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#results .title a")]
        assert any("강의 노래" in t for t in titles)
        assert driver.execute_script("return document.documentElement.scrollWidth") <= 360
        wait_until(lambda: all(width > 0 for width in loaded_images(driver)[:2]))
        shoot(driver, "narrow-360-korean")
    finally:
        driver.quit()


class AxeResult:
    def __init__(self, violations: list[dict]) -> None:
        self.serious = [v for v in violations if v.get("impact") in ("serious", "critical")]


def axe(driver) -> AxeResult:
    from axe_selenium_python import Axe

    checker = Axe(driver)
    checker.inject()
    return AxeResult(checker.run()["violations"])


@pytest.mark.parametrize("path", ["/", "/search?q=river", "/items/openlibrary:OL101W", "/items/aladin:2001", "/favorites", "/history", "/trending"])
def test_axe_finds_no_serious_violations(browser, seek, path):
    browser.get(seek.url(path))
    time.sleep(0.3)
    result = axe(browser)
    assert not result.serious, [(v["id"], v["help"], [n["target"] for n in v["nodes"][:3]]) for v in result.serious]


def test_typing_in_the_search_box_offers_suggestions(browser, seek):
    browser.get(seek.url("/"))
    browser.find_element(By.CSS_SELECTOR, "input[name=q]").send_keys("riv")
    options = wait_until(lambda: browser.execute_script(
        "return Array.from(document.querySelectorAll('#suggestions option')).map(o => o.value)"), timeout=5)
    assert "riv tag" in options


def test_a_favourite_toggles_off_in_place(browser, seek):
    browser.get(seek.url("/search?q=quiet"))
    star = browser.find_element(By.CSS_SELECTOR, "[data-item-id^='giphy:'] [data-favorite-toggle]")
    star.click()
    wait_until(lambda: star.get_attribute("aria-pressed") == "true")
    star.click()
    wait_until(lambda: star.get_attribute("aria-pressed") == "false")
    _, _, html = fetch(seek.url("/favorites"))
    assert star.get_attribute("data-id") not in html


def test_a_cooled_down_provider_says_when_it_is_back(fixture, home):
    fixture.rate_limited["giphy"] = 120
    server = Seek(fixture, home).start()
    driver = make_browser()
    try:
        search_from_box(driver, server, "river limited")
        wait_until(lambda: status(driver, "giphy") == "rateLimited", timeout=8)
        search_from_box(driver, server, "river again")
        wait_until(lambda: status(driver, "giphy") == "suspended", timeout=8)
        # The other providers' results may still be on their way when GIPHY is already cooling down.
        shown = wait_until(lambda: ids(driver), timeout=8)
        assert not any(item.startswith("giphy:") for item in shown)
        # The strip marks the provider suspended first, then asks /api/v1/providers when it is back.
        back = wait_until(lambda: next(iter(driver.find_elements(By.CSS_SELECTOR, '[data-provider="giphy"] .puntil time')), None),
                          timeout=5)
        until = datetime.fromisoformat(back.get_attribute("datetime").replace("Z", "+00:00"))
        assert 60 < (until - datetime.now(timezone.utc)).total_seconds() <= 125
        assert "back at" in driver.find_element(By.CSS_SELECTOR, '[data-provider="giphy"] .puntil').text
        # The page rendered on the server says the same without JavaScript.
        _, _, html = fetch(f"{server.base}/search?q=river+third")
        assert re.search(r'data-provider="giphy" data-status="suspended".*?<time datetime="[^"]+">back at \d\d:\d\d</time>', html)
    finally:
        driver.quit()
        server.stop()


def test_many_merged_detail_pages_at_once_keep_the_server_up(fixture, home):
    """Sixteen readers opening a merged record at once, each detail fetched anew. A task group that
    fetched the other sources crashed the release build here (SIGSEGV inside the Swift runtime's
    task-group result copy); the page asks them one after another instead."""
    server = Seek(fixture, home, config={"SEEK_DETAIL_CACHE_TTL": "0"}).start()
    url = f"{server.base}/items/openlibrary:OL1W?also=aladin:9780307352149,giphy:quiet1,giphy:quiet2"
    failures: list[str] = []

    def reader() -> None:
        for _ in range(25):
            try:
                status_code, _, html = fetch(url)
                if status_code != 200 or "data-item-id" not in html:
                    failures.append(f"HTTP {status_code}")
            except Exception as error:  # a dropped connection is what a crash looks like from here
                failures.append(repr(error))

    try:
        readers = [threading.Thread(target=reader) for _ in range(16)]
        for thread in readers:
            thread.start()
        for thread in readers:
            thread.join(timeout=120)
        assert server.process is not None and server.process.poll() is None, "seek serve died:\n" + "".join(server.log[-20:])
        assert not failures, failures[:5]
    finally:
        server.stop()
