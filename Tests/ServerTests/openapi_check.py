#!/usr/bin/env python3
"""Checks openapi.yaml: the document, its examples, and the routes it describes.

Usage: openapi_check.py [--self-test] [path/to/openapi.yaml]

Prints one JSON object:
  {"routes": ["GET /jobs", ...], "problems": ["<JSON pointer>: <what is wrong>", ...],
   "kinds": {"names": ["encode", ...], "options": {"encode": {"format": ["m4a", ...], ...}, ...}}}
- the document is validated as OpenAPI 3.1 (openapi-spec-validator);
- every example of a media type, parameter or header (inline `example`, or `examples` entries, `$ref`s to
  `#/components/examples/...` followed) is validated against its schema as JSON Schema draft 2020-12, with
  `#/components/...` references resolved against the whole document;
- every JSON response body with a schema must carry at least one example, and every `components/examples`
  entry must be used;
- examples must be plain JSON (YAML dates and the like are reported).

With --self-test the same checks run on a copy of the document with faults planted in it; the output then
also holds `planted`, the pointers under which a problem must be reported for the check to be working.
The exit status is 0 whenever the check itself ran; the caller judges `problems`.
"""

import copy
import json
import sys
from pathlib import Path
from urllib.parse import quote

import yaml
from jsonschema import Draft202012Validator

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
BASE_URI = "urn:mediad:openapi"


def escape(token):
    return str(token).replace("~", "~0").replace("/", "~1")


def pointer(parts):
    return "".join("/" + escape(part) for part in parts)


def resolve_local(document, ref):
    """Follows a local `#/...` reference; None if it does not resolve."""
    if not ref.startswith("#/"):
        return None
    node = document
    for token in ref[2:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node


def spec_problems(document):
    try:
        from openapi_spec_validator import OpenAPIV31SpecValidator

        errors = OpenAPIV31SpecValidator(document).iter_errors()
    except ImportError:  # openapi-spec-validator before 0.7
        from openapi_spec_validator import openapi_v31_spec_validator

        errors = openapi_v31_spec_validator.iter_errors(document)
    problems = []
    for error in errors:
        where = pointer(getattr(error, "absolute_path", None) or getattr(error, "path", None) or [])
        problems.append(f"{where or '/'}: not valid OpenAPI 3.1: {getattr(error, 'message', error)}")
    return problems


def make_validator(document, schema_pointer):
    schema = {"$ref": BASE_URI + "#" + quote(schema_pointer, safe="/~")}
    try:
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT202012

        resource = Resource.from_contents(document, default_specification=DRAFT202012)
        registry = Registry().with_resource(BASE_URI, resource)
        return Draft202012Validator(schema, registry=registry, format_checker=Draft202012Validator.FORMAT_CHECKER)
    except ImportError:  # jsonschema before 4.18
        from jsonschema import RefResolver

        resolver = RefResolver(base_uri=BASE_URI, referrer=document, store={BASE_URI: document})
        return Draft202012Validator(schema, resolver=resolver, format_checker=Draft202012Validator.FORMAT_CHECKER)


def not_json(value):
    """A description of the first value that JSON cannot hold, or None."""
    try:
        json.dumps(value, allow_nan=False)
        return None
    except (TypeError, ValueError) as error:
        return str(error)


def example_problems(document):
    problems = []
    used_examples = set()

    def check(value, schema_at, where):
        odd = not_json(value)
        if odd:
            problems.append(f"{where}: example is not plain JSON (quote it in YAML?): {odd}")
            return
        try:
            validator = make_validator(document, schema_at)
            errors = sorted(validator.iter_errors(value), key=lambda e: list(map(str, e.absolute_path)))
        except Exception as error:  # an unresolvable $ref, a broken schema
            problems.append(f"{where}: schema {schema_at} cannot be used: {error}")
            return
        for error in errors:
            inside = pointer(error.absolute_path) or "(root)"
            problems.append(f"{where}: example does not match {schema_at} at {inside}: {error.message}")

    def examples_of(node, parts):
        """The (value, where) pairs of an object with `schema` and `example`/`examples`."""
        found = []
        if "example" in node:
            found.append((node["example"], pointer(parts + ["example"])))
        entries = node.get("examples")
        if isinstance(entries, dict):
            for name, entry in entries.items():
                where = pointer(parts + ["examples", name])
                if isinstance(entry, dict) and "$ref" in entry:
                    used_examples.add(entry["$ref"])
                    target = resolve_local(document, entry["$ref"])
                    if target is None:
                        problems.append(f"{where}: unresolvable $ref {entry['$ref']}")
                        continue
                    where += f" (-> {entry['$ref']})"
                    entry = target
                if not isinstance(entry, dict):
                    problems.append(f"{where}: not an Example Object")
                elif "externalValue" in entry:
                    problems.append(f"{where}: externalValue examples cannot be checked; give a value")
                elif "value" in entry:
                    found.append((entry["value"], where))
        return found

    def walk(node, parts):
        if isinstance(node, dict):
            schema = node.get("schema")
            if isinstance(schema, dict):
                for value, where in examples_of(node, parts):
                    check(value, pointer(parts + ["schema"]), where)
            elif isinstance(node.get("examples"), list) and parts and parts[-1] != "properties":
                # A Schema Object's own JSON Schema `examples`.
                for index, value in enumerate(node["examples"]):
                    check(value, pointer(parts), pointer(parts + ["examples", index]))
            for key, child in node.items():
                walk(child, parts + [key])
        elif isinstance(node, list):
            for index, child in enumerate(node):
                walk(child, parts + [index])

    walk(document, [])

    # Every JSON response body shows at least one example.
    def responses_in():
        for path, item in (document.get("paths") or {}).items():
            for method in METHODS:
                operation = (item or {}).get(method)
                if isinstance(operation, dict):
                    for status, response in (operation.get("responses") or {}).items():
                        yield ["paths", path, method, "responses", status], response
        for name, response in ((document.get("components") or {}).get("responses") or {}).items():
            yield ["components", "responses", name], response

    for parts, response in responses_in():
        if not isinstance(response, dict) or "$ref" in response:
            continue
        for media_type, media in (response.get("content") or {}).items():
            media = media or {}
            is_json = media_type == "application/json" or media_type.endswith("+json")
            # A JSON body with a schema needs an example (a byte range of a JSON file has no schema).
            if is_json and "schema" in media and "example" not in media and not media.get("examples"):
                problems.append(f"{pointer(parts + ['content', media_type])}: JSON response without an example")

    for name in ((document.get("components") or {}).get("examples") or {}):
        ref = "#" + pointer(["components", "examples", name])
        if ref not in used_examples:
            problems.append(f"{ref[1:]}: example is never used")
    return problems


def routes(document):
    found = []
    for path, item in (document.get("paths") or {}).items():
        for method in METHODS:
            if isinstance(item, dict) and method in item:
                found.append(f"{method.upper()} {path}")
    return sorted(found)


def kinds(document):
    """What the document says about job kinds: the `kind` path parameter's values, and for each kind the
    query options whose `x-kinds` name it, each with the values its schema allows (`$ref`s followed)."""
    operation = (document.get("paths") or {}).get("/jobs/{kind}", {}).get("post", {})
    names = []
    options = {}
    for parameter in operation.get("parameters", []):
        if "$ref" in parameter:
            parameter = resolve_local(document, parameter["$ref"]) or {}
        if parameter.get("name") == "kind" and parameter.get("in") == "path":
            names = parameter.get("schema", {}).get("enum", [])
        if parameter.get("in") != "query" or "x-kinds" not in parameter:
            continue
        schema = parameter.get("schema", {})
        if "$ref" in schema:
            schema = resolve_local(document, schema["$ref"]) or {}
        for kind in parameter["x-kinds"]:
            options.setdefault(kind, {})[parameter["name"]] = schema.get("enum", [])
    return {"names": names, "options": options}


def check(document):
    problems = []
    odd = not_json(document)
    if odd:
        problems.append(f"/: the document holds values JSON cannot (quote them in YAML): {odd}")
        document = json.loads(json.dumps(document, default=str))
    problems += spec_problems(document)
    problems += example_problems(document)
    return {"routes": routes(document), "problems": problems, "kinds": kinds(document)}


def plant_faults(document):
    """A copy of `document` with faults the check must find, and the pointers they must be reported under."""
    bad = copy.deepcopy(document)
    planted = []

    # A job example with a progress above 1 and no id.
    job = bad["components"]["examples"]["JobQueuedRemux"]["value"]
    job["progress"] = 1.5
    del job["id"]
    created = ["paths", "/jobs/{kind}", "post", "responses", "202", "content", "application/json", "examples"]
    planted.append(pointer(created + ["queued"]))

    # An inline example of the wrong type.
    health = bad["paths"]["/healthz"]["get"]["responses"]["200"]["content"]["application/json"]
    health["example"] = {"status": 42}
    planted.append(pointer(["paths", "/healthz", "get", "responses", "200", "content", "application/json", "example"]))

    # A JSON response without any example.
    del bad["paths"]["/readyz"]["get"]["responses"]["503"]["content"]["application/json"]["examples"]
    planted.append(pointer(["paths", "/readyz", "get", "responses", "503", "content", "application/json"]))

    # A response without its required description: not OpenAPI.
    del bad["paths"]["/openapi.yaml"]["get"]["responses"]["200"]["description"]
    planted.append(pointer(["paths", "/openapi.yaml", "get", "responses", "200"]))

    # A YAML timestamp left unquoted.
    bad["components"]["examples"]["JobRunningEncode"]["value"]["created_at"] = yaml.safe_load("2026-11-22T07:31:12Z")
    planted.append(pointer(created + ["running"]))
    return bad, planted


def main(arguments):
    self_test = "--self-test" in arguments
    paths = [argument for argument in arguments if not argument.startswith("--")]
    spec_path = Path(paths[0]) if paths else Path(__file__).resolve().parents[2] / "openapi.yaml"
    with open(spec_path, encoding="utf-8") as file:
        document = yaml.safe_load(file)
    if self_test:
        bad, planted = plant_faults(document)
        report = check(bad)
        report["planted"] = planted
    else:
        report = check(document)
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
