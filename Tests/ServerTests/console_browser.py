"""Drives the web console in headless Chromium (Debian's chromium and chromium-driver, Selenium from PyPI).

Usage: console_browser.py OPEN_URL TOKEN_URL TOKEN MEDIA AUDIO VIDEO EARLIER ARTIFACTS JOBS

OPEN_URL is a server without tokens, TOKEN_URL one with `--auth-tokens` that knows TOKEN. On each: open the
page, (give the token,) choose MEDIA, pick remux, submit, see the job reach `succeeded` in the list without
reloading, open it, see its tracks (the h264 one among them), and play the output until its media element
has data (`readyState` >= 2). On the open server also: a mux of the two files AUDIO (ADTS AAC) and VIDEO
(H.264 Annex-B) that plays; the list a page at a time ("Older jobs" adds the next page of the EARLIER jobs made before the page opened, each row once)
and filtered by kind and by state; the list in a 375 px window (no sideways scrolling) with
`prefers-color-scheme: dark`. JOBS is a JSON object naming jobs made on the open server beforehand: `audio`
(an m4a output, whose <audio> preview must play), `picture` (a waveform, whose PNG must show) and `stall`
(a URL that never finishes sending: a remux of it, made here just before, runs until the page's Cancel ends
it, and the page's Delete removes it). With the event stream
blocked, a job must still reach `succeeded` without a reload (the page falls back to long-polls). Every
control of the upload form must have a label. The browser's console must stay free of errors (but for the
blocked stream's own). Each kind's form must be the one `GET /catalog` describes. Screenshots go to
ARTIFACTS.
Prints `{"problems": [...], "screenshots": [...]}` and exits 0; the Swift test judges the problems.
"""

import json
import os
import sys
import traceback
import urllib.parse
import urllib.request

import browser_temporaries  # noqa: F401 - first: the environment Selenium and Chromium start with
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

open_url, token_url, token, media, audio, video, earlier, artifacts, made = sys.argv[1:10]
earlier = int(earlier)
made = json.loads(made)
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


def console_errors(driver, step, allowed=None):
    for entry in driver.get_log("browser"):
        if entry["level"] == "SEVERE" and not (allowed and allowed in entry["message"]):
            problems.append(f"{step}: browser console: {entry['message']}")


def submit_and_play(driver, label, kind="remux", files=None, badge="live"):
    """Uploads `files` (part name to path; MEDIA as `file` by default) as a `kind` job with an mp4 output,
    waits for it to succeed live, opens it and plays its output."""
    wait = WebDriverWait(driver, 90, ignored_exceptions=(StaleElementReferenceException,))
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, f"select[name=kind] option[value={kind}]"))
    # A mark the page keeps only while it is not reloaded.
    driver.execute_script("window.notReloaded = true; performance.clearResourceTimings()")
    before = set(rows(driver))
    Select(driver.find_element(By.CSS_SELECTOR, "select[name=kind]")).select_by_value(kind)
    for part, path in (files or {"file": media}).items():
        driver.find_element(By.CSS_SELECTOR, f"input[type=file][name={part}]").send_keys(path)
    Select(driver.find_element(By.CSS_SELECTOR, "select[name=format]")).select_by_value("mp4")
    driver.find_element(By.CSS_SELECTOR, "#upload-form button[type=submit]").click()
    # The new job's row, once it shows `succeeded` (a full first page keeps its length: count by id).
    new_row = f"return [...document.querySelectorAll('#jobs tr')].filter((r) => !{json.dumps(sorted(before))}" \
        ".includes(r.dataset.id) && r.querySelector('[data-state=succeeded]'))"
    row = wait.until(lambda d: d.execute_script(new_row))
    if not driver.execute_script("return window.notReloaded === true"):
        problems.append(f"{label}: the page reloaded")
    # A single file goes up through tus (POST /uploads, then PATCH), mux's two files in one request.
    tus = driver.execute_script(
        "return performance.getEntriesByType('resource').some((e) => /[/]uploads[/]/.test(e.name))")
    if tus != (files is None):
        problems.append(f"{label}: the upload {'did not go' if files is None else 'went'} through /uploads")
    live = driver.find_element(By.ID, "live").text
    if live != badge:
        problems.append(f"{label}: the list's badge says {live!r}, not {badge!r}")
    shoot(driver, f"{label}-jobs")
    row[0].find_element(By.CSS_SELECTOR, "a").click()
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
    console_errors(driver, label, allowed="ERR_BLOCKED_BY_CLIENT" if badge == "polling" else None)
    driver.find_element(By.CSS_SELECTOR, "#job-view a[href='#/']").click()
    wait.until(lambda d: d.find_element(By.ID, "jobs").is_displayed())


def open_job(driver, job_id):
    driver.get(f"{open_url}/#/jobs/{job_id}")
    WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#job-view:not([hidden]) [data-state]"))


def job_page(driver):
    """An audio preview that plays, a picture that shows, the curl command, and Cancel then Delete."""
    wait = WebDriverWait(driver, 60, ignored_exceptions=(StaleElementReferenceException,))
    open_job(driver, made["audio"])
    ready = wait.until(lambda d: d.execute_script(
        "const m = document.querySelector('#job audio'); return m && m.readyState >= 2 ? m.readyState : false"))
    if ready < 2:
        problems.append("audio: the <audio> preview never had data")
    curl = driver.find_element(By.CSS_SELECTOR, "#job pre.curl").text
    if not (curl.startswith("curl -T ") and "/jobs/encode?" in curl and "format=m4a" in curl):
        problems.append(f"audio: the job's curl command is not its submission: {curl!r}")
    shoot(driver, "audio-job")

    open_job(driver, made["picture"])
    width = wait.until(lambda d: d.execute_script(
        "const p = document.querySelector('#job img[data-output$=\".png\"]');"
        "return p && p.complete && p.naturalWidth > 0 ? p.naturalWidth : false"))
    if not width:
        problems.append("picture: the waveform PNG does not show")
    shoot(driver, "picture-job")

    query = urllib.parse.urlencode({"format": "mkv", "input_url": made["stall"]})
    with urllib.request.urlopen(urllib.request.Request(f"{open_url}/jobs/remux?{query}", method="POST")) as reply:
        running = json.load(reply)["id"]
    open_job(driver, running)
    buttons = lambda d: {b.text: b for b in d.find_elements(By.CSS_SELECTOR, "#job p.actions button")}

    def click(label):
        """Clicks the job page's button `label`. The page is drawn again as the job's events arrive, so a
        button found a moment ago may be gone by the click: it is looked up again until a click lands."""
        def attempt(d):
            try:
                buttons(d)[label].click()
                return True
            except (StaleElementReferenceException, KeyError):
                return False
        wait.until(attempt)

    click("Cancel")
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#job [data-state=cancelled]"))
    wait.until(lambda d: "Delete" in buttons(d))
    curl = driver.find_element(By.CSS_SELECTOR, "#job pre.curl").text
    if not (curl.startswith("curl -X POST --url-query 'input_url=") and "/stall'" in curl):
        problems.append(f"cancel: the curl command of a job with an input URL is not its submission: {curl!r}")
    shoot(driver, "cancelled-job")
    click("Delete")
    wait.until(lambda d: d.execute_script("return location.hash") in ("#/", ""))
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#jobs [data-state]"))
    if running in rows(driver):
        problems.append("delete: the deleted job is still listed")
    console_errors(driver, "job page")


def labelled_controls(driver, kind):
    """Every control of the upload form, as `kind`'s form, has a label a screen reader announces."""
    unlabelled = driver.execute_script(
        "return [...document.querySelectorAll('#upload-form input, #upload-form select, #upload-form textarea')]"
        ".filter((c) => c.type !== 'hidden' && !c.labels.length && !c.getAttribute('aria-label'))"
        ".map((c) => c.name || c.id)")
    if unlabelled:
        problems.append(f"labels: {kind}'s upload form controls without a label: {unlabelled}")


def forms_follow_the_catalog(driver):
    """Each kind's form is the catalog's (`GET /catalog`, which ConsoleTests holds to the engine's): a file input
    per upload part, and a field per option in its order, a select of the allowed values (booleans: true,
    false) after an empty choice for the server's default, a text field for the rest; every control labelled."""
    with urllib.request.urlopen(open_url + "/catalog", timeout=30) as response:
        catalog = json.load(response)
    driver.get(open_url + "/")
    WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, "select[name=kind] option"))
    offered = driver.execute_script("return [...document.querySelectorAll('select[name=kind] option')].map((o) => o.value)")
    if offered != [kind["name"] for kind in catalog["kinds"]]:
        problems.append(f"forms: the kind select offers {offered}")
    for kind in catalog["kinds"]:
        Select(driver.find_element(By.CSS_SELECTOR, "select[name=kind]")).select_by_value(kind["name"])
        form = driver.execute_script(
            "return {inputs: [...document.querySelectorAll('#inputs input[type=file]')].map((i) => i.name),"
            " options: [...document.querySelectorAll('#options [name]')].map((f) => ({name: f.name,"
            " tag: f.tagName.toLowerCase(), values: f.tagName === 'SELECT' ? [...f.options].map((o) => o.value) : null}))}")
        if form["inputs"] != [part["name"] for part in kind["inputs"]]:
            problems.append(f"forms: {kind['name']} has the file inputs {form['inputs']}")
        expected = []
        for option in kind["options"]:
            values = ["true", "false"] if option["type"] == "boolean" else option["allowed"]
            chosen = option["type"] in ("choice", "boolean")
            expected.append({"name": option["name"], "tag": "select" if chosen else "input",
                             "values": [""] + values if chosen else None})
        if form["options"] != expected:
            problems.append(f"forms: {kind['name']} has the fields {form['options']}, the catalog says {expected}")
        labelled_controls(driver, kind["name"])


def rows(driver):
    """The job ids the list shows, in order."""
    return driver.execute_script(
        "return [...document.querySelectorAll('#jobs tr')].map((row) => row.dataset.id)")


def page_and_filter(driver):
    """The list a page at a time, then filtered by kind and by state."""
    wait = WebDriverWait(driver, 30, ignored_exceptions=(StaleElementReferenceException,))
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
    forms_follow_the_catalog(driver)
    job_page(driver)
    # Without the event stream the list long-polls, and a job still reaches `succeeded` without a reload.
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/events*"]})
    driver.get(open_url + "/")
    submit_and_play(driver, "polling", badge="polling")
    driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
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
