"""Feeds a package's fMP4 segments to Media Source Extensions in headless Chromium (Debian's chromium and
chromium-driver, Selenium from PyPI), from a page of another origin, as a web player does.

Usage: package_mse.py PAGE_URL RENDITIONS_JSON

PAGE_URL is any page of an origin other than the segments' (the test uses http://localhost:<port>/healthz
for a server on 127.0.0.1). RENDITIONS_JSON is a list of {"codecs", "mime", "urls"}: the initialization
segment's URL first, then media segments'. For each rendition: `MediaSource.isTypeSupported` of its type with
its codecs, then every segment fetched (CORS) and appended to one SourceBuffer, waiting for `updateend`.
Prints `{"problems": [...], "results": [...]}`; the Swift test judges them.
"""

import json
import sys

import browser_temporaries  # noqa: F401 - first: the environment Selenium and Chromium start with
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402

page, renditions = sys.argv[1], json.loads(sys.argv[2])
problems = []
results = []

SCRIPT = """
const [rendition, done] = arguments;
(async () => {
  const type = `${rendition.mime}; codecs="${rendition.codecs}"`;
  const supported = MediaSource.isTypeSupported(type);
  if (!supported) return done({type, supported, appended: 0, buffered: 0, error: null});
  const source = new MediaSource();
  const media = document.createElement(rendition.mime.startsWith("audio") ? "audio" : "video");
  media.src = URL.createObjectURL(source);
  await new Promise((resolve) => source.addEventListener("sourceopen", resolve, { once: true }));
  const buffer = source.addSourceBuffer(type);
  let appended = 0;
  for (const url of rendition.urls) {
    const response = await fetch(url, { mode: "cors" });
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    const bytes = await response.arrayBuffer();
    await new Promise((resolve, reject) => {
      buffer.addEventListener("updateend", resolve, { once: true });
      buffer.addEventListener("error", () => reject(new Error(`appending ${url} failed`)), { once: true });
      buffer.appendBuffer(bytes);
    });
    appended += 1;
  }
  const buffered = buffer.buffered.length ? buffer.buffered.end(buffer.buffered.length - 1) : 0;
  done({ type, supported, appended, buffered, error: media.error ? media.error.message || "media error" : null });
})().catch((error) => done({ error: String(error) }));
"""

options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--mute-audio", "--no-first-run"]:
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
try:
    driver.set_script_timeout(60)
    driver.get(page)
    for rendition in renditions:
        result = driver.execute_async_script(SCRIPT, rendition)
        results.append(result)
        if result.get("error"):
            problems.append(f"{rendition['codecs']}: {result['error']}")
        elif not result.get("supported"):
            problems.append(f"{result['type']} is not supported")
        elif result.get("appended") != len(rendition["urls"]):
            problems.append(f"{rendition['codecs']}: appended {result.get('appended')} of {len(rendition['urls'])}")
except Exception as error:  # a browser that fails is a problem to report
    problems.append(f"{type(error).__name__}: {error}")
finally:
    driver.quit()
print(json.dumps({"problems": problems, "results": results}))
