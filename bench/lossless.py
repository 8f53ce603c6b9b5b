#!/usr/bin/env python3
"""How many real-world files mediad and the ffmpeg CLI remux losslessly to mp4 and mkv.

Reads the MANIFEST.tsv of each corpus directory given (default: ../shared/media/real and
Tests/Media/real), takes the files marked "ok" or "edit-list" (and, with --damaged, those marked "broken"
too) that have an audio or video track with packets, remuxes each with

  mediad remux IN -o OUT.{mp4,mkv} --json
  ffmpeg -i IN -map 0:v? -map 0:a? -c copy OUT.{mp4,mkv}

and judges every output with the strict oracle of Tests/TestSupport/Lossless.swift: the same audio and
video tracks (those with packets; a picture track of timed thumbnails, such as an enhanced podcast's
chapter pictures, counts as video with every picture, cover art does not), each decoding to the same
frames and samples (`-f streamhash`), AMR-NB compared by payload bytes, and in mkv (which cannot signal
AAC priming) the input's samples found whole after at most 8192 samples of priming. A failed remux counts
as not lossless; a crash (signal) or a run past 120 s is reported as such.

Each file is in one class: "clean" when ffmpeg decodes all its audio and video without an error,
"damaged" otherwise (cut short, malformed tables, corrupt frames: the oracle is then what ffmpeg decodes
of the input). The summary gives the lossless count per class, per target, for each tool, and the
cases each tool loses that the other keeps.

With --baseline BIN, a second mediad build (an earlier commit) is judged in the same run, as "before",
sharing the ffmpeg CLI's outputs and the oracle's work on each input.

  bench/lossless.py --mediad .build/debug/mediad [--baseline OLD] [--jobs N] [--damaged] [DIR ...]
"""

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DIRS = [os.path.join(os.path.dirname(ROOT), "shared", "media", "real"), os.path.join(ROOT, "Tests", "Media", "real")]
TIMEOUT = 120


def run(command):
    """(exit status, stdout bytes, stderr text); a timeout is status "timeout"."""
    try:
        result = subprocess.run(command, capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return "timeout", b"", ""
    return result.returncode, result.stdout, result.stderr.decode(errors="replace")


def tracks(path):
    """(kind, codec, specifier in the file) of each audio and video track with packets, cover art left out."""
    status, out, _ = run(["ffprobe", "-v", "error", "-count_packets", "-print_format", "json", "-show_streams", path])
    if status != 0:
        return []
    found, seen = [], {}
    for stream in json.loads(out or b"{}").get("streams", []):
        kind = stream.get("codec_type")
        if kind not in ("audio", "video"):
            continue
        spec = f"{kind[0]}:{seen.get(kind, 0)}"
        seen[kind] = seen.get(kind, 0) + 1
        packets = stream.get("nb_read_packets", "N/A")
        disposition = stream.get("disposition", {})
        cover = disposition.get("attached_pic") == 1 and disposition.get("timed_thumbnails") != 1
        if cover or not packets.isdigit() or packets == "0":
            continue
        found.append((kind, stream.get("codec_name", "?"), spec))
    return found


def hashes(path, spec):
    _, out, _ = run(["ffmpeg", "-v", "error", "-autorotate", "0", "-i", path, "-map", "0:" + spec,
                     "-fps_mode", "passthrough", "-f", "streamhash", "-hash", "md5", "-"])
    return [line.split(b",", 1)[-1] for line in out.splitlines()]


def payload(path, spec):
    return run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:" + spec, "-c", "copy", "-f", "data", "-"])[1]


def samples(path, spec):
    return run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:" + spec, "-f", "f32le", "-c:a", "pcm_f32le", "-"])[1]


def contains(whole, part, within):
    """Whether `part` occurs in `whole` at a sample boundary (4 bytes) no later than byte `within`."""
    if not part:
        return False
    at = whole.find(part, 0, within + len(part))
    while at >= 0 and at % 4:
        at = whole.find(part, at + 1, within + len(part))
    return at >= 0


def tracks_of(path, _):
    return tracks(path)


def problems(source, output, priming_may_show, remembered):
    """What differs between `source` and `output`; `remembered` keeps what was worked out of `source`."""
    def of_source(function, spec):
        if (function, spec) not in remembered:
            remembered[(function, spec)] = function(source, spec)
        return remembered[(function, spec)]

    found = []
    source_tracks, output_tracks = of_source(tracks_of, None), tracks(output)
    for kind in ("video", "audio"):
        ins = [t for t in source_tracks if t[0] == kind]
        outs = [t for t in output_tracks if t[0] == kind]
        if len(ins) != len(outs):
            found.append(f"{kind}: {len(ins)} tracks in, {len(outs)} out")
            continue
        for (_, codec, spec), (_, _, out_spec) in zip(ins, outs):
            if codec == "amr_nb":
                if of_source(payload, spec) != payload(output, out_spec):
                    found.append(f"{spec} ({codec}) payload differs")
                continue
            if of_source(hashes, spec) == hashes(output, out_spec):
                continue
            if kind == "audio" and priming_may_show and contains(samples(output, out_spec), of_source(samples, spec), 8192 * 4):
                continue
            found.append(f"{spec} ({codec}) decoded content differs")
    return found


def decodes_cleanly(path):
    """Whether every audio and video track decodes without an error (the corpus takes only such files)."""
    status, _, err = run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v?", "-map", "0:a?", "-f", "null", "-"])
    return status == 0 and not err.strip()


def corpus(directories, damaged):
    """(name, path) of each manifest row marked ok or edit-list (or broken, with `damaged`), in manifest order."""
    marks = ("ok", "edit-list", "broken") if damaged else ("ok", "edit-list")
    for directory in directories:
        manifest = os.path.join(directory, "MANIFEST.tsv")
        if not os.path.exists(manifest):
            continue
        with open(manifest) as lines:
            for line in list(lines)[1:]:
                fields = line.rstrip("\n").split("\t")
                if len(fields) >= 6 and fields[5] in marks:
                    yield fields[0], os.path.join(directory, fields[0])


def judge(job):
    """Remuxes one file with each tool to each format: (name, class, {(tool, fmt): problems}), or None for a
    file that is not in the corpus (no audio or video with packets; without --damaged, a track that does
    not decode cleanly)."""
    (name, path), mediad, baseline, scratch, damaged = job
    if not tracks(path):
        return None
    kind = "clean" if decodes_cleanly(path) else "damaged"
    if kind == "damaged" and not damaged:
        return None
    tools = {
        "mediad": lambda i, o: [mediad, "remux", i, "-o", o, "--json"],
        "ffmpeg": lambda i, o: ["ffmpeg", "-v", "error", "-y", "-i", i, "-map", "0:v?", "-map", "0:a?", "-c", "copy", o],
    }
    if baseline:
        tools["before"] = lambda i, o: [baseline, "remux", i, "-o", o, "--json"]
    remembered = {}
    outcome = {}
    folder = tempfile.mkdtemp(dir=scratch)
    for tool in tools:
        for fmt in ("mp4", "mkv"):
            output = os.path.join(folder, f"{tool}.{fmt}")
            status, out, err = run(tools[tool](path, output))
            if status == 0:
                found = problems(path, output, fmt == "mkv", remembered)
            elif status == "timeout" or (isinstance(status, int) and status < 0):
                found = [f"CRASH/HANG ({status})"]
            else:
                message = out.decode(errors="replace") + err
                code = json.loads(out).get("error", {}).get("code") if out.startswith(b"{") else None
                found = [f"failed ({code or message.strip().splitlines()[-1][:120] if message.strip() else status})"]
            outcome[(tool, fmt)] = found
            if os.path.exists(output):
                os.remove(output)
    os.rmdir(folder)
    return name, kind, outcome


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mediad", default=os.path.join(ROOT, ".build", "debug", "mediad"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count(), help="files judged at once")
    parser.add_argument("--baseline", help="an earlier mediad build to judge in the same run, as 'before'")
    parser.add_argument("--damaged", action="store_true",
                        help="also judge files that do not decode cleanly, and manifest rows marked broken")
    parser.add_argument("dirs", nargs="*", default=DEFAULT_DIRS)
    args = parser.parse_args()
    names = ("mediad", "ffmpeg") + (("before",) if args.baseline else ())
    keys = [(tool, fmt) for tool in names for fmt in ("mp4", "mkv")]
    kept = {}
    totals = {}
    only = {"mediad": [], "ffmpeg": []}
    changed = {"gained": [], "lost": []}
    with tempfile.TemporaryDirectory() as scratch, multiprocessing.Pool(args.jobs) as pool:
        baseline = os.path.abspath(args.baseline) if args.baseline else None
        jobs = [(entry, os.path.abspath(args.mediad), baseline, scratch, args.damaged)
                for entry in corpus(args.dirs, args.damaged)]
        for result in pool.imap(judge, jobs):
            if result is None:
                continue
            name, kind, outcome = result
            totals[kind] = totals.get(kind, 0) + 1
            rows = [f"{tool}→{fmt}: {'; '.join(found)}" for (tool, fmt), found in outcome.items() if found]
            for key, found in outcome.items():
                kept[(kind, *key)] = kept.get((kind, *key), 0) + (not found)
            for fmt in ("mp4", "mkv"):
                for tool, other in (("mediad", "ffmpeg"), ("ffmpeg", "mediad")):
                    if not outcome[(tool, fmt)] and outcome[(other, fmt)]:
                        only[tool].append(f"{name} → {fmt}: {other}: {'; '.join(outcome[(other, fmt)])}")
                if args.baseline and bool(outcome[("mediad", fmt)]) != bool(outcome[("before", fmt)]):
                    side = "lost" if outcome[("mediad", fmt)] else "gained"
                    why = outcome[("mediad", fmt)] or outcome[("before", fmt)]
                    changed[side].append(f"{name} → {fmt}: {'; '.join(why)}")
            print(f"{'OK  ' if not rows else 'MISS'} [{kind}] {name}" + "".join(f"\n       {r}" for r in rows),
                  flush=True)
    total = sum(totals.values())
    print(f"\n{total} files ({', '.join(f'{count} {kind}' for kind, count in sorted(totals.items()))})")
    for kind in sorted(totals):
        print(f"\n{kind} ({totals[kind]} files, {2 * totals[kind]} file × target cases):")
        for tool, fmt in keys:
            count = kept.get((kind, tool, fmt), 0)
            print(f"  {tool:6} → {fmt}: {count}/{totals[kind]} lossless ({100 * count / totals[kind]:.1f} %)")
        for tool in names:
            count = kept.get((kind, tool, "mp4"), 0) + kept.get((kind, tool, "mkv"), 0)
            print(f"  {tool:6} overall: {count}/{2 * totals[kind]} ({100 * count / (2 * totals[kind]):.1f} %)")
    print(f"\nall ({total} files, {2 * total} cases):")
    for tool in names:
        count = sum(value for (kind, name, fmt), value in kept.items() if name == tool)
        print(f"  {tool:6} overall: {count}/{2 * total} ({100 * count / max(2 * total, 1):.1f} %)")
    for tool, cases in only.items():
        print(f"\nkept by {tool} only ({len(cases)}):" + "".join(f"\n  {case}" for case in cases))
    if args.baseline:
        for side, cases in changed.items():
            print(f"\nmediad against before, {side} ({len(cases)}):" + "".join(f"\n  {case}" for case in cases))


if __name__ == "__main__":
    sys.exit(main())
