"""Drives the web console in headless Chromium (Debian's chromium and chromium-driver, Selenium from PyPI).

Usage: console_browser.py OPEN_URL TOKEN_URL TOKEN MEDIA AUDIO VIDEO EARLIER ARTIFACTS

OPEN_URL is a server without tokens, TOKEN_URL one with `--auth-tokens` that knows TOKEN. On each: open the
page, (give the token,) choose MEDIA, pick remux, submit, see the job reach `succeeded` in the list without
reloading, open it, see its tracks (the h264 one among them), and play the output until its media element
has data (`readyState` >= 2). On the open server also: a mux of the two files AUDIO (ADTS AAC) and VIDEO
(H.264 Annex-B) that plays; the list a page at a time ("Older jobs" adds the next page of the EARLIER jobs made before the page opened, each row once)
and filtered by kind and by state; the list in a 375 px window (no sideways scrolling) with
`prefers-color-scheme: dark`. The browser's console must stay free of errors. Screenshots go to ARTIFACTS.
Prints `{"problems": [...], "screenshots": [...]}` and exits 0; the Swift test judges the problems.
"""

import json
import os
import sys
import traceback

# Selenium Manager would otherwise look for drivers online and send usage statistics.
os.environ["SE_AVOID_STATS"] = "true"

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

open_url, token_url, token, media, audio, video, earlier, artifacts = sys.argv[1:9]
earlier = int(earlier)
problems = []
screenshots = []


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000",
                     "--mute-audio", "--autoplay-policy=no-user-gesture-required", "--no-first-run"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)


def shoot(driver, name):
    path = os.path.join(artifacts, name + ".png")
    driver.save_screenshot(path)
    screenshots.append(path)


def console_errors(driver, step):
    for entry in driver.get_log("browser"):
        if entry["level"] == "SEVERE":
            problems.append(f"{step}: browser console: {entry['message']}")


def submit_and_play(driver, label, kind="remux", files=None):
    """Uploads `files` (part name to path; MEDIA as `file` by default) as a `kind` job with an mp4 output,
    waits for it to succeed live, opens it and plays its output."""
    wait = WebDriverWait(driver, 90)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, f"select[name=kind] option[value={kind}]"))
    # A mark the page keeps only while it is not reloaded.
    driver.execute_script("window.notReloaded = true; performance.clearResourceTimings()")
    before = len(driver.find_elements(By.CSS_SELECTOR, "#jobs tr [data-state=succeeded]"))
    Select(driver.find_element(By.CSS_SELECTOR, "select[name=kind]")).select_by_value(kind)
    for part, path in (files or {"file": media}).items():
        driver.find_element(By.CSS_SELECTOR, f"input[type=file][name={part}]").send_keys(path)
    Select(driver.find_element(By.CSS_SELECTOR, "select[name=format]")).select_by_value("mp4")
    driver.find_element(By.CSS_SELECTOR, "#upload-form button[type=submit]").click()
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#jobs tr [data-state=succeeded]")) > before)
    row = driver.find_elements(By.CSS_SELECTOR, f"#jobs tr [data-state=succeeded]")
    if not driver.execute_script("return window.notReloaded === true"):
        problems.append(f"{label}: the page reloaded")
    # A single file goes up through tus (POST /uploads, then PATCH), mux's two files in one request.
    tus = driver.execute_script(
        "return performance.getEntriesByType('resource').some((e) => /[/]uploads[/]/.test(e.name))")
    if tus != (files is None):
        problems.append(f"{label}: the upload {'did not go' if files is None else 'went'} through /uploads")
    live = driver.find_element(By.ID, "live").text
    if live != "live":
        problems.append(f"{label}: the list is not following events (badge {live!r})")
    shoot(driver, f"{label}-jobs")
    row[0].find_element(By.XPATH, "ancestor::tr").find_element(By.CSS_SELECTOR, "a").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#job-view:not([hidden]) video"))
    ready = wait.until(lambda d: d.execute_script(
        "const m = document.querySelector('#job video'); return m && m.readyState >= 2 ? m.readyState : false"))
    if ready < 2:
        problems.append(f"{label}: the video never had data")
    driver.execute_script("const m = document.querySelector('#job video'); m.scrollIntoView(); m.play()")
    wait.until(lambda d: d.execute_script(
        "const m = document.querySelector('#job video'); return m.ended || m.currentTime > Math.min(0.5, m.duration / 2)"))
    driver.execute_script("document.querySelector('#job video').pause()")
    wait.until(lambda d: d.execute_script("return document.querySelector('#job pre.log').textContent !== ''"))
    codecs = driver.execute_script(
        "return [...document.querySelectorAll('#job table.tracks td')].map((cell) => cell.textContent)")
    if kind == "remux" and "h264" not in codecs:
        problems.append(f"{label}: the job's track table does not show the h264 track: {codecs}")
    shoot(driver, f"{label}-job")
    console_errors(driver, label)
    driver.find_element(By.CSS_SELECTOR, "#job-view a[href='#/']").click()
    wait.until(lambda d: d.find_element(By.ID, "jobs").is_displayed())


def rows(driver):
    """The job ids the list shows, in order."""
    return driver.execute_script(
        "return [...document.querySelectorAll('#jobs tr')].map((row) => row.dataset.id)")


def page_and_filter(driver):
    """The list a page at a time, then filtered by kind and by state."""
    wait = WebDriverWait(driver, 30)
    driver.get(open_url + "/")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#jobs [data-state]"))
    first = rows(driver)
    if len(first) != 20:
        problems.append(f"paging: the first page shows {len(first)} jobs, not 20")
    more = driver.find_element(By.ID, "more")
    if not more.is_displayed():
        problems.append("paging: no 'Older jobs' button with more jobs to show")
        return
    more.click()
    wait.until(lambda d: len(rows(d)) > len(first))
    shown = rows(driver)
    if len(shown) != len(set(shown)):
        problems.append("paging: a job is shown twice")
    if shown[:len(first)] != first:
        problems.append("paging: the next page changed the rows already shown")
    if len(shown) < earlier:
        problems.append(f"paging: {len(shown)} jobs shown after the second page, {earlier} made")
    Select(driver.find_element(By.ID, "filter-kind")).select_by_value("mux")
    wait.until(lambda d: d.execute_script(
        "const k = [...document.querySelectorAll('#jobs tr td:nth-child(3)')].map((c) => c.textContent);"
        "return k.length > 0 && k.every((text) => text === 'mux')"))
    Select(driver.find_element(By.ID, "filter-kind")).select_by_value("")
    Select(driver.find_element(By.ID, "filter-state")).select_by_visible_text("failed")
    wait.until(lambda d: d.execute_script(
        "const s = [...document.querySelectorAll('#jobs [data-state]')].map((c) => c.dataset.state);"
        "return s.length > 0 && s.every((state) => state === 'failed')"))
    driver.execute_script("document.getElementById('jobs-title').scrollIntoView()")
    shoot(driver, "filtered-failed")
    console_errors(driver, "paging")


driver = browser()
try:
    driver.set_page_load_timeout(30)
    driver.get(open_url + "/")
    submit_and_play(driver, "open")
    submit_and_play(driver, "mux", kind="mux", files={"audio": audio, "video": video})
    page_and_filter(driver)
    driver.set_window_size(375, 812)
    driver.get(open_url + "/")
    WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#jobs [data-state]"))
    overflow = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    if overflow > 0:
        problems.append(f"narrow: the page is {overflow} px wider than a 375 px window")
    driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    background = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
    if background != "rgb(18, 20, 23)":
        problems.append(f"dark: prefers-color-scheme: dark leaves the background {background}")
    driver.execute_script("document.getElementById('jobs-title').scrollIntoView()")
    shoot(driver, "narrow-dark")
    console_errors(driver, "narrow")

    driver.set_window_size(1280, 1000)
    driver.get(token_url + "/")
    WebDriverWait(driver, 30).until(lambda d: d.find_element(By.ID, "token-view").is_displayed())
    shoot(driver, "token-prompt")
    field = driver.find_element(By.CSS_SELECTOR, "input[name=token]")
    field.send_keys(token)
    driver.find_element(By.CSS_SELECTOR, "#token-form button[type=submit]").click()
    submit_and_play(driver, "token")
    if driver.execute_script("return sessionStorage.getItem('mediad.token')") != token:
        problems.append("token: the token is not kept in sessionStorage")
except Exception:  # noqa: BLE001 - any failure is reported with the page as it was
    problems.append(traceback.format_exc())
    try:
        shoot(driver, "failure")
        console_errors(driver, "failure")
    except Exception:  # noqa: BLE001
        pass
finally:
    driver.quit()

print(json.dumps({"problems": problems, "screenshots": screenshots}))
