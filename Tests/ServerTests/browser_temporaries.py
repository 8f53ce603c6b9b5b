"""Imported first by the Selenium scripts: Chromium leaves its singleton sockets in TMPDIR, so it gets a
folder of this run's own, removed at exit. Selenium Manager is told not to look for drivers online or send
usage statistics."""

import atexit
import os
import shutil
import tempfile
import time

os.environ["SE_AVOID_STATS"] = "true"
os.environ["TMPDIR"] = tempfile.mkdtemp(prefix="mediad-chromium-")


@atexit.register
def remove_browser_temporaries():
    """Chromium's last processes may still be writing there a moment after quit: try for two seconds."""
    for _ in range(10):
        shutil.rmtree(os.environ["TMPDIR"], ignore_errors=True)
        if not os.path.exists(os.environ["TMPDIR"]):
            return
        time.sleep(0.2)
