#!/usr/bin/env python3
"""Lints live responses of a mediad server with httplint (the engine of REDbot).

Usage: http_lint.py PORT REQUESTS, where REQUESTS is a JSON list of
{"method": "GET", "path": "/jobs", "headers": ["Range: bytes=0-9"]}. For each request the raw response
is read from a fresh connection and linted together with the request; prints a JSON list of
{"request", "status", "notes": [{"level", "summary"}]}, subnotes flattened. Level "bad" is what the
linter holds to be a violation of a requirement; "warning" and "info" are advice.
"""
import json
import socket
import sys
import time

from httplint import HttpRequestLinter, HttpResponseLinter


def exchange(port, method, path, headers):
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close"] + headers
    with socket.create_connection(("127.0.0.1", port), timeout=60) as connection:
        connection.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        data = b""
        while chunk := connection.recv(65536):
            data += chunk
    return data


def fields(lines):
    pairs = []
    for line in lines:
        name, _, value = line.partition(b":")
        pairs.append((name, value.strip()))
    return pairs


def lint(port, method, path, headers):
    raw = exchange(port, method, path, headers)
    head, _, body = raw.partition(b"\r\n\r\n")
    top, *lines = head.split(b"\r\n")
    version, status, phrase = (top.split(b" ", 2) + [b""])[:3]
    now = time.time()
    request = HttpRequestLinter(start_time=now)
    request.process_request_topline(method.encode(), f"http://127.0.0.1:{port}{path}".encode(), b"HTTP/1.1")
    request.process_headers(fields(h.encode() for h in [f"Host: 127.0.0.1:{port}"] + headers))
    request.finish_content(True)
    response = HttpResponseLinter(start_time=now, _related=request)
    response.is_head_response = method == "HEAD"
    response.process_response_topline(version, status, phrase)
    response.process_headers(fields(lines))
    if response.can_have_content():
        response.feed_content(body)
    response.finish_content(True)
    notes = []
    pending = list(response.notes)
    while pending:
        note = pending.pop(0)
        notes.append({"level": note.level.value, "summary": note.summary})
        pending.extend(note.subnotes)
    return {"request": f"{method} {path} {headers}", "status": int(status), "notes": notes}


def main():
    port = int(sys.argv[1])
    requests = json.loads(sys.argv[2])
    print(json.dumps([lint(port, r["method"], r["path"], r.get("headers", [])) for r in requests]))


if __name__ == "__main__":
    main()
