"""What a reader meets (issue 46), in headless Chromium: `seek serve --demo` says it is a demo on every
page and offers the recorded queries; every <img> answers 200 with an image (Seek draws a cover where a
source has none); pages speak in words, not commands, variables or field names; an unknown path is a
page; Korean readers get Korean pages and titles that wrap between words; the strip's counts follow
infinite scroll. Screenshots of each page, light and dark, wide and 390 px, go to Tests/web/screenshots."""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from conftest import SCREENSHOTS, Seek, make_browser, wait_until

# What no reader's page may say: commands, shell variables, raw field names of the sources.
ENGINEERS_WORDS = ("seek ", "SEEK_", "export ", "--reset", "openlibraryWork", "openlibraryEdition", "aladinItemId",
                   "categoryName", "mallType", "priceSales", "priceStandard", "salesPoint", "customerReviewRank",
                   "127.0.0.1", "localhost")
CAMEL_CASE = re.compile(r"\b[a-z]+[A-Z][A-Za-z]*\b")

# Every page the issue names, by a short name (the screenshots' too).
PAGES = {
    "results": "/search?q=the%20lord%20of%20the%20rings",
    "results-ko": "/search?q=%EC%9C%84%EB%8C%80%ED%95%9C%20%EC%9D%B4%EC%95%BC%EA%B8%B0",
    "detail": None,  # the first result's page, found at run time
    "favorites": "/favorites",
    "trending": "/trending",
    "error": "/no/such/page",
}


@pytest.fixture(scope="module")
def demo(fixture, tmp_path_factory) -> Seek:
    """`seek serve --demo`: the recorded real answers, no network."""
    server = Seek(fixture, tmp_path_factory.mktemp("seek-demo"), arguments=["--demo"]).start()
    # A favourite, so the favourites page has a cover to load.
    first = json.loads(fetch(server.url(PAGES["results"].replace("/search", "/api/v1/search")))[2])["items"][0]["id"]
    request = urllib.request.Request(server.url(f"/api/v1/favorites/{first}"), method="PUT")
    with urllib.request.urlopen(request, timeout=20) as answer:
        assert answer.status == 200
    yield server
    server.stop()


def fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict, str]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=20) as answer:
            return answer.status, dict(answer.headers), answer.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode("utf-8", "replace")


def first_detail(server: Seek) -> str:
    _, _, html = fetch(server.url(PAGES["results"]))
    match = re.search(r'<h2 class="title"><a href="([^"]+)"', html)
    assert match, "no result on the demo's results page"
    return match.group(1).replace("&amp;", "&")


def page_paths(server: Seek) -> dict[str, str]:
    return {name: path or first_detail(server) for name, path in PAGES.items()}


def images(driver) -> list[dict]:
    return driver.execute_script("""
        return Array.from(document.images).map(i => ({src: i.currentSrc || i.src, complete: i.complete, width: i.naturalWidth}));""")


def load_every_image(driver) -> None:
    """Loads every lazy image now (as scrolling to it would), then waits for every one."""
    driver.execute_script("for (const i of document.querySelectorAll('img[loading=lazy]')) i.loading = 'eager';")
    wait_until(lambda: all(image["complete"] for image in images(driver)), timeout=20)
    driver.execute_script("window.scrollTo(0, 0)")


# ---- The demo says so ----------------------------------------------------------------------------------

def test_every_page_of_the_demo_shows_the_banner_with_the_recorded_queries(demo):
    for name, path in page_paths(demo).items():
        _, _, html = fetch(demo.url(path))
        assert "data-demo" in html, name
        assert "This is a demo." in html, name
        queries = re.findall(r'<a href="(/search\?q=[^"]+)" data-demo-query>([^<]+)</a>', html)
        assert ("/search?q=the%20lord%20of%20the%20rings", "the lord of the rings") in queries, name
        assert len(queries) >= 3, name


def test_a_recorded_query_of_the_banner_opens_its_results(demo):
    driver = make_browser()
    try:
        driver.get(demo.url("/"))
        link = driver.find_element(By.CSS_SELECTOR, "[data-demo] a[data-demo-query]")
        query = link.text
        link.click()
        wait_until(lambda: driver.find_elements(By.CSS_SELECTOR, "#results [data-item-id]"), timeout=15)
        assert driver.find_element(By.CSS_SELECTOR, "input[name=q]").get_attribute("value") == query
    finally:
        driver.quit()


def test_every_img_of_the_demo_answers_200_with_an_image(demo):
    driver = make_browser()
    try:
        checked = 0
        for name, path in page_paths(demo).items():
            if name == "error":
                continue
            for layout in (["list", "grid"] if name.startswith("results") else ["page"]):
                driver.get(demo.url(path))
                if layout == "grid":
                    driver.find_element(By.CSS_SELECTOR, "[data-view=grid]").click()
                    wait_until(lambda: "grid" in driver.find_element(By.ID, "results").get_attribute("class"))
                load_every_image(driver)
                shown = images(driver)
                assert shown, f"{name} ({layout}) has no image"
                for image in shown:
                    assert image["width"] > 0, f"{name} ({layout}): {image['src']} did not load"
                    status, headers, _ = fetch(image["src"])
                    assert status == 200, image["src"]
                    assert headers.get("Content-Type", "").startswith("image/"), (image["src"], headers.get("Content-Type"))
                    checked += 1
                # No bare letter stands in for a cover.
                assert not driver.find_elements(By.CSS_SELECTOR, ".noimage"), name
            driver.execute_script("localStorage.clear()")
        assert checked >= 30
    finally:
        driver.quit()


# ---- Words for readers ---------------------------------------------------------------------------------

def test_no_page_shows_commands_variables_or_raw_field_names(demo):
    driver = make_browser()
    try:
        for name, path in page_paths(demo).items():
            driver.get(demo.url(path))
            time.sleep(0.5)
            text = driver.find_element(By.TAG_NAME, "body").text
            for word in ENGINEERS_WORDS:
                assert word not in text, f"{name} shows {word!r}"
            # Labels, statuses and notices are words; titles may be anything a source wrote.
            labels = driver.execute_script("""
                return Array.from(document.querySelectorAll('dt, .provenance td:first-child, .pstate, .puntil, .notice, [data-demo] p, h1, h2:not(.title)'))
                    .map(e => e.textContent);""")
            for label in labels:
                assert not CAMEL_CASE.search(label), f"{name}: {label!r}"
    finally:
        driver.quit()


def test_the_detail_page_shows_a_demo_note_apart_from_the_description(demo):
    _, _, html = fetch(demo.url(first_detail(demo)))
    assert "data-note" in html
    description = re.search(r'<p class="description">(.*?)</p>', html, re.S)
    assert description is None or "demo" not in description.group(1).lower()


def test_an_unknown_path_is_an_html_page_and_an_unknown_api_path_json(demo):
    status, headers, html = fetch(demo.url("/no/such/page"))
    assert status == 404
    assert headers["Content-Type"].startswith("text/html")
    assert "Page not found" in html and 'name="q"' in html
    status, headers, _ = fetch(demo.url("/api/v1/no-such-thing"))
    assert status == 404
    assert headers["Content-Type"].startswith("application/json")


# ---- Korean ---------------------------------------------------------------------------------------------

def test_accept_language_ko_gives_korean_pages(demo):
    _, headers, html = fetch(demo.url("/"), {"Accept-Language": "ko-KR,ko;q=0.9,en;q=0.5"})
    assert '<html lang="ko">' in html
    assert ">검색</button>" in html and "체험판입니다." in html
    assert headers.get("Content-Language") == "ko"
    _, _, english = fetch(demo.url("/"), {"Accept-Language": "en-GB"})
    assert '<html lang="en">' in english


def test_the_language_switch_changes_the_page_and_is_remembered(demo):
    driver = make_browser()
    try:
        driver.get(demo.url("/trending"))
        assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en"
        driver.find_element(By.CSS_SELECTOR, ".languages a[lang=ko]").click()
        wait_until(lambda: driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "ko")
        assert "/trending" in driver.current_url
        driver.get(demo.url("/favorites"))
        assert driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "ko"
        assert "즐겨찾기" in driver.find_element(By.TAG_NAME, "h1").text
        driver.find_element(By.CSS_SELECTOR, ".languages a[lang=en]").click()
        wait_until(lambda: driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en")
    finally:
        driver.quit()


# Words of a title that wrap across lines: each word's text as a range has one box per line it is on.
SPLIT_WORDS = """
const split = [];
for (const title of document.querySelectorAll(arguments[0])) {
  const node = title.firstChild;
  if (!node || node.nodeType !== Node.TEXT_NODE) continue;
  const text = node.textContent;
  for (const match of text.matchAll(/[^\\s]+/g)) {
    const range = document.createRange();
    range.setStart(node, match.index);
    range.setEnd(node, match.index + match[0].length);
    const lines = new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top)));
    if (lines.size > 1) split.push(match[0]);
  }
}
return split;"""


@pytest.mark.parametrize("layout", ["list", "grid"])
def test_korean_titles_wrap_between_words_at_390_pixels(demo, layout):
    driver = make_browser(arguments=("--lang=ko-KR",))
    try:
        driver.set_window_size(390, 900)
        driver.get(demo.url(PAGES["results-ko"]))
        wait_until(lambda: driver.find_elements(By.CSS_SELECTOR, "#results .title a"), timeout=15)
        if layout == "grid":
            driver.find_element(By.CSS_SELECTOR, "[data-view=grid]").click()
            wait_until(lambda: "grid" in driver.find_element(By.ID, "results").get_attribute("class"))
        assert driver.execute_script("return getComputedStyle(document.querySelector('#results .title')).wordBreak") == "keep-all"
        assert driver.execute_script("return document.documentElement.scrollWidth") <= 390
        assert driver.execute_script(SPLIT_WORDS, "#results .title a, #results .subtitle") == []
        driver.execute_script("localStorage.clear()")
    finally:
        driver.quit()


# ---- Infinite scroll -------------------------------------------------------------------------------------

def test_the_strips_counts_follow_infinite_scroll(browser, seek):
    browser.get(seek.url("/search?q=river%20scroll&providers=openlibrary"))
    wait_until(lambda: browser.find_elements(By.CSS_SELECTOR, "#results [data-item-id]"))

    def counts():
        return browser.execute_script("""
            const shown = document.querySelectorAll('#results [data-item-id]').length;
            const strip = Array.from(document.querySelectorAll('#providers [data-provider]')).map(n => Number(n.dataset.count || 0));
            const label = document.querySelector('[data-provider=openlibrary] .pstate').textContent;
            return {shown, strip: strip.reduce((a, b) => a + b, 0), label, count: document.getElementById('count').textContent};""")

    first = counts()
    assert first["shown"] == first["strip"]
    browser.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    wait_until(lambda: counts()["shown"] > first["shown"], timeout=15)
    time.sleep(0.5)
    after = counts()
    # One source: the strip's count, its label and the total all say how many rows are shown.
    assert after["strip"] == after["shown"], after
    assert str(after["shown"]) in after["label"], after
    assert str(after["shown"]) in after["count"], after


# ---- Screenshots -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("language", ["en", "ko"])
def test_screenshots_of_every_page(demo, scheme, width, language):
    driver = make_browser()
    try:
        if scheme == "dark":
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shots = dict(page_paths(demo))
        shots["grid"] = PAGES["results"]
        if language == "ko":
            # The Korean pages: the switch's ?lang=ko, then its cookie.
            driver.get(demo.url("/?lang=ko"))
            shots = {f"ko-{name}": shots[name] for name in ("results-ko", "detail", "trending", "error")}
        for name, path in shots.items():
            driver.set_window_size(width, 1000)
            driver.get(demo.url(path))
            if name == "grid":
                driver.find_element(By.CSS_SELECTOR, "[data-view=grid]").click()
            load_every_image(driver)
            height = driver.execute_script("return Math.min(document.documentElement.scrollHeight, 3000)")
            # The window's frame takes some of its height: the whole page, footer included, fits.
            driver.set_window_size(width, max(700, height + 200))
            time.sleep(0.3)
            path = SCREENSHOTS / f"demo-{name}-{scheme}-{width}.png"
            driver.save_screenshot(str(path))
            assert path.stat().st_size > 10_000
            driver.execute_script("localStorage.clear()")
    finally:
        driver.quit()


# ---- Accessibility of what this issue added ---------------------------------------------------------------

@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", ["results", "results-ko", "detail", "error"])
def test_axe_finds_no_serious_violations_on_the_demo_pages(demo, name, scheme):
    from test_web_ui import axe

    driver = make_browser()
    try:
        if scheme == "dark":
            driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        driver.get(demo.url(page_paths(demo)[name] + ("&lang=ko" if name == "results-ko" else "")))
        time.sleep(0.5)
        result = axe(driver)
        assert not result.serious, [(v["id"], v["help"], [n["target"] for n in v["nodes"][:3]]) for v in result.serious]
    finally:
        driver.quit()
