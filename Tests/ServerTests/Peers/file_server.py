"""A directory served over HTTP on loopback by Python's http.server, for the URL-input tests.

Besides the files of the directory (argv[1]) it answers three paths of its own: /redirect?to=URL with a
302 to that URL, /loop with a 302 to itself, and /stall with a head promising a megabyte, a kilobyte of
it, then nothing for a minute; /trickle?… promises a megabyte and sends one byte of it every half second
until the connection closes; /slow-once/NAME?… sends the head and a kilobyte of file NAME, waits a minute and
sends the rest the first time its whole target (query included) is asked for, and all of it at once after;
/pause/NAME sends the head and a kilobyte of file NAME, waits 3 seconds and sends the rest.
PUT is the target of output deliveries: /put/NAME stores the body as NAME and answers 201 with an ETag
(its MD5, as S3's); /fail-once/NAME answers 503 to its first PUT, then stores; /hold/NAME never answers its
first PUT (for a minute), then stores; /cut-once/NAME reads a kilobyte of its first PUT and drops the connection
without an answer, then stores; any other path is 403.
Prints the port it listens on, then serves until it is killed.
"""

import functools
import hashlib
import http.server
import os
import socket
import sys
import time
import urllib.parse


class Handler(http.server.SimpleHTTPRequestHandler):
    # HTTP/1.1, so that a PUT with Expect: 100-continue gets its 100 Continue.
    protocol_version = "HTTP/1.1"
    seen = set()

    def do_PUT(self):
        path = urllib.parse.urlsplit(self.path).path
        first = path not in Handler.seen
        Handler.seen.add(path)
        kind, _, name = path.lstrip("/").partition("/")
        if kind == "hold" and first:
            time.sleep(60)
            return
        if kind == "cut-once" and first:
            self.rfile.read(min(1024, int(self.headers.get("Content-Length", "0"))))
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if kind not in ("put", "fail-once", "hold", "cut-once") or not name or "/" in name:
            self.answer(403)
        elif kind == "fail-once" and first:
            self.answer(503)
        else:
            with open(os.path.join(self.directory, name), "wb") as file:
                file.write(body)
            self.answer(201, '"%s"' % hashlib.md5(body).hexdigest())

    def answer(self, status, etag=None):
        self.send_response(status)
        if etag:
            self.send_header("ETag", etag)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        parsed = urllib.parse.urlsplit(self.path)
        if parsed.path in ("/redirect", "/loop"):
            self.send_response(302)
            target = urllib.parse.parse_qs(parsed.query)["to"][0] if parsed.path == "/redirect" else "/loop"
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif parsed.path.startswith("/slow-once/"):
            first = self.path not in Handler.seen
            Handler.seen.add(self.path)
            with open(os.path.join(self.directory, parsed.path[len("/slow-once/"):]), "rb") as file:
                body = file.read()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if first:
                self.wfile.write(body[:1024])
                self.wfile.flush()
                time.sleep(60)
                body = body[1024:]
            self.wfile.write(body)
        elif parsed.path.startswith("/pause/"):
            with open(os.path.join(self.directory, parsed.path[len("/pause/"):]), "rb") as file:
                body = file.read()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[:1024])
            self.wfile.flush()
            time.sleep(3)
            self.wfile.write(body[1024:])
        elif parsed.path == "/trickle":
            self.send_response(200)
            self.send_header("Content-Length", str(1 << 20))
            self.end_headers()
            try:
                while True:
                    self.wfile.write(b"x")
                    self.wfile.flush()
                    time.sleep(0.5)
            except OSError:
                self.close_connection = True
        elif parsed.path == "/stall":
            self.send_response(200)
            self.send_header("Content-Length", str(1 << 20))
            self.end_headers()
            self.wfile.write(b"x" * 1024)
            self.wfile.flush()
            time.sleep(60)
        else:
            super().do_GET()

    def log_message(self, format, *args):
        sys.stderr.write("%s\n" % (format % args))


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=sys.argv[1]))
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
