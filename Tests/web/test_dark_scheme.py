"""The dark colour scheme (DESIGN, "Integrations"): with the system's scheme dark (`prefers-color-scheme`,
emulated in Chromium through the DevTools protocol) every page is dark and still passes axe's checks —
colour contrast included; with it light, the pages stay light."""

from __future__ import annotations

import re
import time

import pytest

from conftest import make_browser, wait_until
from test_web_ui import axe, shoot

PAGES = ["/", "/search?q=river", "/items/openlibrary:OL101W", "/items/aladin:2001", "/favorites", "/history", "/trending"]


def luminance(css: str) -> float:
    """The relative luminance (WCAG) of a computed `rgb(…)`/`rgba(…)` colour."""
    numbers = [float(n) for n in re.findall(r"[\d.]+", css)]
    assert len(numbers) in (3, 4), css
    assert len(numbers) == 3 or numbers[3] == 1, f"{css} is not opaque: the colour behind it decides"
    numbers = numbers[:3]

    def channel(value: float) -> float:
        value /= 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = (channel(n) for n in numbers)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def emulate(driver, scheme: str) -> None:
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})


@pytest.fixture(scope="module")
def dark_browser():
    driver = make_browser()
    # Set before the first page and kept for the session's pages.
    emulate(driver, "dark")
    yield driver
    driver.quit()


def colours(driver) -> dict[str, str]:
    return driver.execute_script("""
        const style = (selector, property) => { const e = document.querySelector(selector); return e ? getComputedStyle(e)[property] : null; };
        return { body: style('html', 'backgroundColor'), text: style('body', 'color'), header: style('header.top', 'backgroundColor'),
                 input: style('input[name=q]', 'backgroundColor'), dark: matchMedia('(prefers-color-scheme: dark)').matches };
    """)


@pytest.mark.parametrize("path", PAGES)
def test_the_dark_scheme_is_dark_and_passes_axe(dark_browser, seek, path):
    dark_browser.get(seek.url(path))
    emulate(dark_browser, "dark")
    time.sleep(0.3)
    seen = colours(dark_browser)
    assert seen["dark"], "Chromium did not report prefers-color-scheme: dark"
    assert luminance(seen["body"]) < 0.05, seen
    assert luminance(seen["text"]) > 0.6, seen
    assert seen["header"] is None or luminance(seen["header"]) < 0.05, seen
    assert seen["input"] is None or luminance(seen["input"]) < 0.1, seen
    result = axe(dark_browser)
    assert not result.serious, [(v["id"], v["help"], [n["target"] for n in v["nodes"][:3]]) for v in result.serious]
    if path == "/search?q=river":
        wait_until(lambda: dark_browser.execute_script("return document.querySelectorAll('#results [data-item-id]').length") > 0)
        shoot(dark_browser, "dark-search")


def test_a_light_system_keeps_the_light_scheme(seek):
    driver = make_browser()
    try:
        emulate(driver, "light")
        driver.get(seek.url("/search?q=river"))
        seen = colours(driver)
        assert not seen["dark"]
        assert luminance(seen["body"]) > 0.8, seen
        assert luminance(seen["text"]) < 0.1, seen
    finally:
        driver.quit()
