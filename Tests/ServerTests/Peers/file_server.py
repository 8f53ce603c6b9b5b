"""A directory served over HTTP on loopback by Python's http.server, for the URL-input tests.

Besides the files of the directory (argv[1]) it answers three paths of its own: /redirect?to=URL with a
302 to that URL, /loop with a 302 to itself, and /stall with a head promising a megabyte, a kilobyte of
it, then nothing for a minute.
Prints the port it listens on, then serves until it is killed.
"""

import functools
import http.server
import sys
import time
import urllib.parse


class Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        parsed = urllib.parse.urlsplit(self.path)
        if parsed.path in ("/redirect", "/loop"):
            self.send_response(302)
            target = urllib.parse.parse_qs(parsed.query)["to"][0] if parsed.path == "/redirect" else "/loop"
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()
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
