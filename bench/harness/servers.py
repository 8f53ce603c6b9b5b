"""The servers the cases measure and compare with: a real `mediad serve` and nginx, both on loopback."""

import http.client
import json
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
import time

from harness.processes import CaseFailure, free_port, start, stop

## The nginx binary (`--nginx`); `make bench` passes Debian's nginx unpacked under .build, never installed.
NGINX = "nginx"


class Server:
    """A real `mediad serve` on a free loopback port with its own data directory, or with `data`, one that
    replicas share (left for its maker to remove); `environment` replaces the inherited one."""

    def __init__(self, binary, scratch, *arguments, data=None, environment=None):
        self.owns_data = data is None
        self.data = data or tempfile.mkdtemp(prefix="server-", dir=scratch)
        self.process = start(
            [binary, "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", self.data, *arguments],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=environment)
        line = self.process.stdout.readline()
        if not line.strip().rsplit(":", 1)[-1].isdigit():
            stop(self.process)
            raise CaseFailure(f"mediad serve did not start: {line!r}")
        self.base = "http://127.0.0.1:" + line.strip().rsplit(":", 1)[-1]

    @property
    def pid(self):
        return self.process.pid

    def url(self, path):
        return self.base + path

    def close(self):
        stop(self.process)
        if self.owns_data:
            shutil.rmtree(self.data, ignore_errors=True)


class Nginx:
    """nginx on a free loopback port, as the current user, with its config and files in a temp dir.

    PUT /upload/<name> writes the request body to disk (the dav module: body to a temp file, then
    renamed); everything else is served statically from <dir>/www.
    """

    def __init__(self, scratch):
        self.dir = tempfile.mkdtemp(prefix="nginx-", dir=scratch)
        self.www = os.path.join(self.dir, "www")
        os.makedirs(os.path.join(self.www, "upload"))
        self.port = free_port()
        # As root, nginx would hand its workers to "nobody", who cannot write here: keep the current user.
        user = f"user {pwd.getpwuid(os.geteuid()).pw_name};" if os.geteuid() == 0 else ""
        config = f"""
{user}
worker_processes 2;
daemon off;
pid {self.dir}/nginx.pid;
error_log {self.dir}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {self.dir}/body;
    proxy_temp_path {self.dir}/proxy;
    fastcgi_temp_path {self.dir}/fastcgi;
    uwsgi_temp_path {self.dir}/uwsgi;
    scgi_temp_path {self.dir}/scgi;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    server {{
        listen 127.0.0.1:{self.port};
        root {self.www};
        default_type application/json;
        location /upload/ {{
            dav_methods PUT;
            client_max_body_size 0;
            client_body_buffer_size 1m;
        }}
    }}
}}
"""
        path = os.path.join(self.dir, "nginx.conf")
        with open(path, "w") as file:
            file.write(config)
        self.process = start([NGINX, "-p", self.dir, "-c", path, "-e", os.path.join(self.dir, "error.log")],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if self.process.poll() is not None or time.time() > deadline:
                    error = self.process.stderr.read().decode() if self.process.poll() is not None else ""
                    stop(self.process)
                    raise CaseFailure(f"nginx did not start: {error.strip()}")
                time.sleep(0.05)
        self.base = f"http://127.0.0.1:{self.port}"

    def close(self):
        stop(self.process)
        shutil.rmtree(self.dir, ignore_errors=True)


def submit_jobs(server, body, jobs, clients=4, records=None):
    """Posts `jobs` remux jobs of `body` from `clients` keep-alive connections, each waiting for its job to
    end; the wall time of them all, in seconds. `server` may be a list of replicas, which the clients take
    in turn; each job's JSON is appended to `records` when given."""
    errors = []
    remaining = iter(range(jobs))
    lock = threading.Lock()
    replicas = server if isinstance(server, list) else [server]

    def client(index):
        port = int(replicas[index % len(replicas)].base.rsplit(":", 1)[1])
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        while True:
            with lock:
                if next(remaining, None) is None or errors:
                    break
            connection.request("POST", "/jobs/remux?format=mp4&wait=60", body=body)
            response = connection.getresponse()
            data = response.read()
            if response.status != 200 or json.loads(data)["state"] != "succeeded":
                errors.append(f"{response.status}: {data[:300]!r}")
            elif records is not None:
                records.append(json.loads(data))
        connection.close()

    threads = [threading.Thread(target=client, args=(index,)) for index in range(clients)]
    start_time = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise CaseFailure(errors[0])
    return time.perf_counter() - start_time
