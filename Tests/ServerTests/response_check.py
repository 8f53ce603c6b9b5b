#!/usr/bin/env python3
"""Validates responses a live server gave against openapi.yaml's own schemas.

Usage: response_check.py RESPONSES.json [path/to/openapi.yaml]

RESPONSES.json is a list of exchanges, each
  {"label": "...", "method": "GET", "path": "/jobs/{id}", "status": 200,
   "content_type": "application/json", "body": "<the body as text>"}
with `path` the route's template as openapi.yaml spells it. For each, the response the document gives for
that operation and status (a `$ref` to `#/components/responses/...` followed) must exist and list the
content type (its parameters, e.g. `; charset=utf-8`, aside); a body is then parsed by its type (JSON,
YAML, or kept as text) and validated against that media type's schema as JSON Schema draft 2020-12, with
references resolved against the whole document (`openapi_check.make_validator`). A response without a
body (204, 304) is checked for being documented only.

Prints one JSON object, {"checked": N, "problems": ["<label>: <what is wrong>", ...]}; the exit status is
0 whenever the check itself ran, and the caller judges `problems`.
"""

import json
import sys
from pathlib import Path

import yaml

from openapi_check import make_validator, pointer, resolve_local


def documented_media(document, exchange):
    """The pointer parts of the documented media type object, or a problem as a string."""
    item = (document.get("paths") or {}).get(exchange["path"])
    operation = (item or {}).get(exchange["method"].lower())
    if not isinstance(operation, dict):
        return f"{exchange['method']} {exchange['path']} is not in openapi.yaml"
    responses = operation.get("responses") or {}
    status = str(exchange["status"])
    key = status if status in responses else f"{status[0]}XX" if f"{status[0]}XX" in responses else "default"
    if key not in responses:
        return f"status {status} is not documented for {exchange['method']} {exchange['path']}"
    parts = ["paths", exchange["path"], exchange["method"].lower(), "responses", key]
    response = responses[key]
    while isinstance(response, dict) and "$ref" in response:
        parts = [token.replace("~1", "/").replace("~0", "~") for token in response["$ref"][2:].split("/")]
        response = resolve_local(document, response["$ref"])
    content = (response or {}).get("content") or {}
    if not exchange.get("body"):
        return parts
    media_type = (exchange.get("content_type") or "").split(";")[0].strip().lower()
    if media_type not in content:
        return f"status {status} documents {sorted(content)}, not {media_type or 'no content type'}"
    return parts + ["content", media_type]


def parse(exchange):
    """The body as the schema describes it: JSON and YAML parsed, an event stream as its events."""
    media_type = (exchange.get("content_type") or "").split(";")[0].strip().lower()
    text = exchange["body"]
    if media_type == "application/json" or media_type.endswith("+json"):
        return json.loads(text)
    if media_type in ("application/yaml", "application/x-yaml", "text/yaml"):
        return yaml.safe_load(text)
    if media_type == "text/event-stream":
        return events(text)
    return text


def events(text):
    """The events of a `text/event-stream` body: blocks with `data`, as {event, data, id?, retry?}."""
    found = []
    for block in text.split("\n\n"):
        fields = {}
        data = []
        for line in block.split("\n"):
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "data":
                data.append(value)
            elif name in ("event", "id"):
                fields[name] = value
            elif name == "retry" and value.isdigit():
                fields[name] = int(value)
        if data:
            found.append({"event": "message", **fields, "data": "\n".join(data)})
    return found


def check(document, exchanges):
    problems = []
    for exchange in exchanges:
        label = exchange.get("label") or f"{exchange['method']} {exchange['path']} {exchange['status']}"
        found = documented_media(document, exchange)
        if isinstance(found, str):
            problems.append(f"{label}: {found}")
            continue
        media = resolve_local(document, "#" + pointer(found)) if exchange.get("body") else None
        if not isinstance(media, dict) or "schema" not in media:
            continue
        try:
            value = parse(exchange)
        except ValueError as error:
            problems.append(f"{label}: the body does not parse as {exchange.get('content_type')}: {error}")
            continue
        validator = make_validator(document, pointer(found + ["schema"]))
        # OpenAPI 3.1's schema of an event stream describes each event.
        for item in value if isinstance(value, list) and found[-1] == "text/event-stream" else [value]:
            for error in sorted(validator.iter_errors(item), key=lambda e: list(map(str, e.absolute_path))):
                inside = pointer(error.absolute_path) or "(root)"
                problems.append(f"{label}: at {inside}: {error.message}")
    return {"checked": len(exchanges), "problems": problems}


def main(arguments):
    responses_path = Path(arguments[0])
    spec_path = Path(arguments[1]) if len(arguments) > 1 else Path(__file__).resolve().parents[2] / "openapi.yaml"
    with open(spec_path, encoding="utf-8") as file:
        document = yaml.safe_load(file)
    with open(responses_path, encoding="utf-8") as file:
        exchanges = json.load(file)
    json.dump(check(document, exchanges), sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
