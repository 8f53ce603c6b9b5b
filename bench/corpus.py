#!/usr/bin/env python3
"""The real-world corpus of bench/lossless.py: MP4-family files from the public test suites of MP4 parsers,
named by repository, commit, path and SHA-256 in bench/corpus.tsv, so that anyone gets the same files.

  bench/corpus.py fetch DIR [--mirror ROOT]
      writes each file of corpus.tsv to DIR/<owner>_<name>/<path with / as __>, checks its SHA-256, and
      writes DIR/MANIFEST.tsv (the layout of ../shared/media/real, which lossless.py reads) and
      DIR/LICENSES.txt. Files come from raw.githubusercontent.com at the pinned commit, or from local bare
      mirrors ROOT/<owner>+<name>/repo when --mirror is given.

  bench/corpus.py select --mirror ROOT
      rebuilds corpus.tsv from the mirrors' current commits: every file of the repositories below whose
      name ends in an MP4-family extension and that is under 16 MB, each content once (the first
      repository in the list below keeps it).

The files stay out of the repository (licences vary; a few are GPL); bench/lossless.py DIR measures them.
"""

import argparse
import hashlib
import os
import subprocess
import sys
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "corpus.tsv")
# The suites the fidelity issue names, with the licence their test files come under.
REPOSITORIES = {
    "androidx/media": "Apache-2.0",
    "Eyevinn/mp4ff": "MIT",
    "abema/go-mp4": "MIT",
    "Vanilagy/mediabunny": "MPL-2.0",
    "mozilla/mp4parse-rust": "MPL-2.0",
    "sannies/mp4parser": "Apache-2.0",
    "shaka-project/shaka-player": "Apache-2.0",
    "quodlibet/mutagen": "GPL-2.0-or-later",
    "taglib/taglib": "LGPL-2.1-only OR MPL-1.1",
    "axiomatic-systems/Bento4": "GPL-2.0-or-later",
    # Added for "Recordings as they come": tag readers' and players' test files, many of them damaged
    # (cut short, malformed tables, fuzzed), and camera, phone and podcast recordings.
    "google/ExoPlayer": "Apache-2.0",
    "Borewit/music-metadata": "MIT",
    "Zeugma440/atldotnet": "MIT",
    "Serial-ATA/lofty-rs": "MIT OR Apache-2.0",
    "mono/taglib-sharp": "LGPL-2.1-only",
    "devsnd/tinytag": "MIT",
    "dhowden/tag": "BSD-2-Clause",
    "beetbox/mediafile": "MIT",
    "leetreveil/musicmetadata": "MIT",
    "alfg/mp4-rust": "MIT",
    "exiftool/exiftool": "Artistic-1.0-Perl OR GPL-1.0-or-later",
    "Exiv2/exiv2": "GPL-2.0-or-later",
    "drewnoakes/metadata-extractor-images": "see the repository (public test images)",
    "gpac/testsuite": "LGPL-2.1-or-later",
    "qt/qtmultimedia": "GPL-3.0-only OR LGPL-3.0-only",
    "Zulko/moviepy": "MIT",
    "streamio/streamio-ffmpeg": "MIT",
    "videojs/mux.js": "Apache-2.0",
    "Dash-Industry-Forum/dash.js": "BSD-3-Clause",
}
EXTENSIONS = (".mp4", ".m4a", ".m4v", ".mov", ".3gp", ".3g2", ".f4v", ".m4b", ".mj2", ".ismv", ".qt", ".m4r")
LIMIT = 16_000_000
COLUMNS = ["repo", "commit", "path", "bytes", "sha256"]


def git(mirror, repo, *arguments):
    directory = os.path.join(mirror, repo.replace("/", "+"), "repo")
    return subprocess.run(["git", "--git-dir", directory, *arguments], check=True, capture_output=True).stdout


def select(mirror):
    seen, rows = set(), []
    for repo in REPOSITORIES:
        commit = git(mirror, repo, "rev-parse", "HEAD").decode().strip()
        listing = git(mirror, repo, "ls-tree", "-r", "-l", "-z", commit).split(b"\0")
        for entry in filter(None, listing):
            meta, path = entry.decode(errors="replace").split("\t", 1)
            size = meta.split()[3]
            if not path.lower().endswith(EXTENSIONS) or not size.isdigit() or int(size) >= LIMIT:
                continue
            data = git(mirror, repo, "show", f"{commit}:{path}")
            digest = hashlib.sha256(data).hexdigest()
            if digest in seen or data.startswith(b"version https://git-lfs"):
                continue
            seen.add(digest)
            rows.append([repo, commit, path, str(len(data)), digest])
    with open(TABLE, "w") as table:
        table.write("\t".join(COLUMNS) + "\n")
        table.writelines("\t".join(row) + "\n" for row in rows)
    print(f"{len(rows)} files in {TABLE}")


def probe(path):
    """What ffprobe sees, as the shared manifest writes it: codec and type of each stream."""
    result = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name,codec_type",
                             "-of", "compact=nokey=0:print_section=0", path], capture_output=True, text=True)
    return " || ".join(result.stdout.split()) or "unreadable"


def fetch(directory, mirror):
    with open(TABLE) as table:
        rows = [dict(zip(COLUMNS, line.rstrip("\n").split("\t"))) for line in list(table)[1:]]
    manifest = ["path\tsource_repo\tsource_path\tbytes\tffprobe\texpect\tnotes"]
    for row in rows:
        name = row["repo"].replace("/", "_") + "/" + row["path"].replace("/", "__")
        target = os.path.join(directory, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if not os.path.exists(target) or hashlib.sha256(open(target, "rb").read()).hexdigest() != row["sha256"]:
            if mirror:
                data = git(mirror, row["repo"], "show", f"{row['commit']}:{row['path']}")
            else:
                url = f"https://raw.githubusercontent.com/{row['repo']}/{row['commit']}/{row['path']}"
                data = urllib.request.urlopen(url, timeout=60).read()
            if hashlib.sha256(data).hexdigest() != row["sha256"]:
                sys.exit(f"{row['repo']}:{row['path']}: SHA-256 differs from corpus.tsv")
            with open(target, "wb") as output:
                output.write(data)
        # lossless.py takes the "ok" rows and keeps those whose tracks decode without an error.
        manifest.append("\t".join([name, row["repo"], f"{row['path']}@{row['commit'][:12]}", row["bytes"],
                                   probe(target), "ok", REPOSITORIES[row["repo"]]]))
    with open(os.path.join(directory, "MANIFEST.tsv"), "w") as output:
        output.write("\n".join(manifest) + "\n")
    with open(os.path.join(directory, "LICENSES.txt"), "w") as output:
        output.write("Test files of public repositories, each under its repository's licence:\n")
        output.writelines(f"{repo}: {licence}\n" for repo, licence in REPOSITORIES.items())
    print(f"{len(rows)} files in {directory}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["fetch", "select"])
    parser.add_argument("directory", nargs="?")
    parser.add_argument("--mirror", help="a folder of bare mirrors, <owner>+<name>/repo")
    args = parser.parse_args()
    if args.command == "select":
        if not args.mirror:
            parser.error("select needs --mirror")
        select(args.mirror)
    else:
        if not args.directory:
            parser.error("fetch needs DIR")
        fetch(args.directory, args.mirror)


if __name__ == "__main__":
    main()
