"""Imported first by the Selenium scripts: Chromium leaves its singleton sockets in TMPDIR, so it gets a
folder of this run's own, removed at exit once the browser's last process (whose command line names the
folder) has exited: the scripts take turns (`BrowserScript.swift`), and a turn ends with its browser gone.
Selenium Manager is told not to look for drivers online or send usage statistics."""

import atexit
import os
import shutil
import tempfile
import time

os.environ["SE_AVOID_STATS"] = "true"
os.environ["TMPDIR"] = tempfile.mkdtemp(prefix="mediad-chromium-")


def browser_processes():
    """PIDs of the processes whose command line names this run's folder: Chromium's, after quit too."""
    folder = os.environ["TMPDIR"].encode()
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                if folder in cmdline.read():
                    found.append(int(entry))
        except OSError:
            pass
    return found


@atexit.register
def remove_browser_temporaries():
    """Waits up to ten seconds for Chromium's last processes to exit, then removes the folder (trying for
    two seconds: they may still be writing there a moment after quit)."""
    for _ in range(50):
        if not browser_processes():
            break
        time.sleep(0.2)
    for _ in range(10):
        shutil.rmtree(os.environ["TMPDIR"], ignore_errors=True)
        if not os.path.exists(os.environ["TMPDIR"]):
            return
        time.sleep(0.2)
