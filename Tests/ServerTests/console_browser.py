"""Drives the web console in headless Chromium (Debian's chromium and chromium-driver, Selenium from PyPI).

Usage: console_browser.py OPEN_URL TOKEN_URL TOKEN MEDIA ARTIFACTS

OPEN_URL is a server without tokens, TOKEN_URL one with `--auth-tokens` that knows TOKEN. On each: open the
page, (give the token,) choose MEDIA, pick remux, submit, see the job reach `succeeded` in the list without
reloading, open it, and play the output until its media element has data (`readyState` >= 2); between the
two, the list in a 375 px window (no sideways scrolling) with `prefers-color-scheme: dark`. The browser's
console must stay free of errors. Screenshots go to ARTIFACTS. Prints `{"problems": [...], "screenshots":
[...]}` and exits 0; the Swift test judges the problems.
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

open_url, token_url, token, media, artifacts = sys.argv[1:6]
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


def submit_and_play(driver, label):
    """Uploads MEDIA as a remux job, waits for it to succeed live, opens it and plays its output."""
    wait = WebDriverWait(driver, 90)
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "select[name=kind] option[value=remux]"))
    # A mark the page keeps only while it is not reloaded.
    driver.execute_script("window.notReloaded = true")
    Select(driver.find_element(By.CSS_SELECTOR, "select[name=kind]")).select_by_value("remux")
    driver.find_element(By.CSS_SELECTOR, "input[type=file][name=file]").send_keys(media)
    Select(driver.find_element(By.CSS_SELECTOR, "select[name=format]")).select_by_value("mp4")
    driver.find_element(By.CSS_SELECTOR, "#upload-form button[type=submit]").click()
    row = wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#jobs tr [data-state=succeeded]"))
    if not driver.execute_script("return window.notReloaded === true"):
        problems.append(f"{label}: the page reloaded")
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
    wait.until(lambda d: d.execute_script("return document.querySelector('#job video').currentTime > 0.5"))
    driver.execute_script("document.querySelector('#job video').pause()")
    wait.until(lambda d: d.execute_script("return document.querySelector('#job pre.log').textContent !== ''"))
    shoot(driver, f"{label}-job")
    console_errors(driver, label)


driver = browser()
try:
    driver.set_page_load_timeout(30)
    driver.get(open_url + "/")
    submit_and_play(driver, "open")
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
