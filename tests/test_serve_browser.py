"""The page in a real browser: headless Chromium (Debian's `chromium` and
`chromium-driver`) driven by Selenium types a sentence into `senna serve`'s page and checks
what it draws.  Skipped cleanly where Chromium, its driver or Selenium is missing.

The screenshot goes to pytest's tmp dir, or to $SENNA_SCREENSHOT (the README's picture:
`SENNA_SCREENSHOT=docs/serve.png python -m pytest -q tests/test_serve_browser.py`)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
webdriver = pytest.importorskip("selenium.webdriver")

from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as ec  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (CHROMIUM and DRIVER),
                                reason="needs Debian's chromium and chromium-driver")
SENTENCE = "John Smith flew to Paris on Monday to meet the board of Airbus."


@pytest.fixture(scope="module")
def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                "--window-size=1300,580", "--force-device-scale-factor=1"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=DRIVER),
                              options=opts)
    yield driver
    driver.quit()


def test_page_shows_tags_entities_and_frames(server, browser, tmp_path):  # noqa: F811
    url, _ = server
    browser.get(url + "/")
    wait = WebDriverWait(browser, 30)
    wait.until(ec.presence_of_element_located((By.ID, "task-srl")))
    box = browser.find_element(By.ID, "text")
    box.clear()
    box.send_keys(SENTENCE)
    browser.find_element(By.ID, "tag").click()
    wait.until(ec.text_to_be_present_in_element((By.ID, "status"), "tokens"))
    assert browser.find_element(By.ID, "status").text == "1 sentence(s), 14 tokens"

    words = [w.text for w in browser.find_elements(By.CSS_SELECTOR, ".sentence .word")]
    assert words == ["John", "Smith", "flew", "to", "Paris", "on", "Monday", "to", "meet",
                     "the", "board", "of", "Airbus", "."]
    pos = [t.text for t in browser.find_elements(By.CSS_SELECTOR, ".sentence .tag.pos")]
    assert pos[:3] == ["NNP", "NNP", "VBD"] and len(pos) == 14
    ents = {(e.get_attribute("data-label"), e.get_attribute("data-text"))
            for e in browser.find_elements(By.CSS_SELECTOR, ".entity")}
    assert {("PER", "John Smith"), ("LOC", "Paris")} <= ents
    heads = [h.text for h in browser.find_elements(By.CSS_SELECTOR, ".rowname.pred")]
    assert heads == ["flew", "meet"]
    roles = {(r.get_attribute("data-label"), r.get_attribute("data-text"))
             for r in browser.find_elements(By.CSS_SELECTOR, ".role")}
    assert {("V", "flew"), ("V", "meet")} <= roles
    # the flyer: ARG0 or ARG1 by the model (PropBank's fly.01 allows both readings)
    assert roles & {("ARG0", "John Smith"), ("ARG1", "John Smith")}
    chunk = browser.find_element(By.CSS_SELECTOR, ".chunk")
    assert chunk.is_displayed() and chunk.size["width"] > 0

    shot = Path(os.environ.get("SENNA_SCREENSHOT") or tmp_path / "serve.png")
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000


def test_page_reports_an_error_and_recovers(server, browser):  # noqa: F811
    url, _ = server
    browser.get(url + "/")
    wait = WebDriverWait(browser, 30)
    wait.until(ec.presence_of_element_located((By.ID, "task-pos")))
    for box in browser.find_elements(By.CSS_SELECTOR, "#tasks input"):   # every task served
        if box.is_selected():
            box.click()
    browser.find_element(By.ID, "tag").click()
    wait.until(ec.text_to_be_present_in_element((By.ID, "status"), "error"))
    assert "'tasks' must be a non-empty list" in browser.find_element(By.ID, "status").text
    browser.find_element(By.ID, "task-pos").click()
    browser.find_element(By.ID, "tag").click()
    wait.until(ec.text_to_be_present_in_element((By.ID, "status"), "tokens"))
    assert not browser.find_elements(By.CSS_SELECTOR, ".role")
