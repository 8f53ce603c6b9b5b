#!/usr/bin/env python3
"""How many real-world files mediad and the ffmpeg CLI remux losslessly to mp4 and mkv.

Reads the MANIFEST.tsv of each corpus directory given (default: ../shared/media/real and
Tests/Media/real), takes the files marked "ok" or "edit-list" whose audio and video decode without an
error in ffmpeg, remuxes each with

  mediad remux IN -o OUT.{mp4,mkv} --json
  ffmpeg -i IN -map 0:v? -map 0:a? -c copy OUT.{mp4,mkv}

and judges every output with the strict oracle of Tests/TestSupport/Lossless.swift: the same audio and
video tracks (those with packets), each decoding to the same frames and samples (`-f streamhash`), AMR-NB
compared by payload bytes, and in mkv (which cannot signal AAC priming) the input's samples found whole after at most 8192
samples of priming. A failed remux counts as not lossless; a crash (signal) or a run past 120 s is
reported as such.

  bench/lossless.py --mediad .build/debug/mediad [--jobs N] [DIR ...]
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
        if stream.get("disposition", {}).get("attached_pic") == 1 or not packets.isdigit() or packets == "0":
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


def corpus(directories):
    """(name, path) of each manifest row marked ok or edit-list, in manifest order."""
    for directory in directories:
        manifest = os.path.join(directory, "MANIFEST.tsv")
        if not os.path.exists(manifest):
            continue
        with open(manifest) as lines:
            for line in list(lines)[1:]:
                fields = line.rstrip("\n").split("\t")
                if len(fields) >= 6 and fields[5] in ("ok", "edit-list"):
                    yield fields[0], os.path.join(directory, fields[0])


def judge(job):
    """Remuxes one file with each tool to each format: (name, {(tool, fmt): problems}), or None for a file
    that is not in the corpus (no audio or video with packets, or a track that does not decode cleanly)."""
    (name, path), mediad, scratch = job
    if not tracks(path) or not decodes_cleanly(path):
        return None
    tools = {
        "mediad": lambda i, o: [mediad, "remux", i, "-o", o, "--json"],
        "ffmpeg": lambda i, o: ["ffmpeg", "-v", "error", "-y", "-i", i, "-map", "0:v?", "-map", "0:a?", "-c", "copy", o],
    }
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
    return name, outcome


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mediad", default=os.path.join(ROOT, ".build", "debug", "mediad"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count(), help="files judged at once")
    parser.add_argument("dirs", nargs="*", default=DEFAULT_DIRS)
    args = parser.parse_args()
    kept = {(tool, fmt): 0 for tool in ("mediad", "ffmpeg") for fmt in ("mp4", "mkv")}
    total = 0
    with tempfile.TemporaryDirectory() as scratch, multiprocessing.Pool(args.jobs) as pool:
        jobs = [(entry, os.path.abspath(args.mediad), scratch) for entry in corpus(args.dirs)]
        for result in pool.imap(judge, jobs):
            if result is None:
                continue
            name, outcome = result
            total += 1
            rows = [f"{tool}→{fmt}: {'; '.join(found)}" for (tool, fmt), found in outcome.items() if found]
            for key, found in outcome.items():
                kept[key] += not found
            print(f"{'OK  ' if not rows else 'MISS'} {name}" + "".join(f"\n       {r}" for r in rows), flush=True)
    print(f"\n{total} files")
    for (tool, fmt), count in kept.items():
        print(f"{tool:6} → {fmt}: {count}/{total} lossless ({100 * count / max(total, 1):.1f} %)")
    both = {tool: kept[(tool, "mp4")] + kept[(tool, "mkv")] for tool in ("mediad", "ffmpeg")}
    for tool, count in both.items():
        print(f"{tool:6} overall: {count}/{2 * total} ({100 * count / max(2 * total, 1):.1f} %)")


if __name__ == "__main__":
    sys.exit(main())
