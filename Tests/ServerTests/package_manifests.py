"""Reads a package's manifests over HTTP with parsers no one here wrote (m3u8, mpegdash) and checks them.

Usage: package_manifests.py MANIFEST_URL   (an HLS master playlist .m3u8 or a DASH MPD .mpd)

Follows every URI the manifests give (relative to the manifest's own URL, as a player resolves them),
fetches each initialization and media segment and checks its Content-Type and its CORS header. The
manifests must be those of a finished package: media playlists ended with EXT-X-ENDLIST, a static MPD, and
no gap (segments numbered one after the other, each DASH segment starting where the one before ended). Prints one
JSON object: {"problems": [...], "codecs": [...], "durations": {...}, "variants": [...] (each HLS variant's
attributes), "representations": [...] (each DASH representation's), ...}; no problem means it read clean.
"""
import json
import posixpath
import sys
import urllib.parse
import urllib.request

import m3u8
from mpegdash.parser import MPEGDASHParser

TYPES = {
    ".m3u8": "application/vnd.apple.mpegurl", ".mpd": "application/dash+xml", ".m4s": "video/iso.segment",
    ".mp4": "video/mp4", ".m4a": "audio/mp4", ".ts": "video/mp2t",
}
problems = []
report = {"problems": problems, "codecs": [], "durations": {}, "attributes": {}, "variants": [], "representations": []}


def fetch(url):
    request = urllib.request.Request(url, headers={"Origin": "https://player.example"})
    with urllib.request.urlopen(request, timeout=30) as response:
        body = response.read()
        kind = next((t for ext, t in TYPES.items() if urllib.parse.urlparse(url).path.endswith(ext)), None)
        if kind and response.headers.get("Content-Type") != kind:
            problems.append(f"{url}: Content-Type {response.headers.get('Content-Type')}, expected {kind}")
        if response.headers.get("Access-Control-Allow-Origin") is None:
            problems.append(f"{url}: no Access-Control-Allow-Origin")
        return body


def check_media_playlist(url, fmp4):
    fetch(url)
    playlist = m3u8.load(url)
    # A finished package's media playlists stay EVENT (RFC 8216 §6.2.1: an EVENT playlist is only appended
    # to) and end with EXT-X-ENDLIST, which makes them complete; nothing else is a finished playlist.
    if playlist.playlist_type != "event" or not playlist.is_endlist:
        problems.append(f"{url}: not an EVENT playlist ended with EXT-X-ENDLIST")
    if playlist.version != (7 if fmp4 else 3):
        problems.append(f"{url}: EXT-X-VERSION {playlist.version}")
    # Segments are numbered on from EXT-X-MEDIA-SEQUENCE (seg_00001 is 1), one after the other: one missing,
    # an EXT-X-GAP or an EXT-X-DISCONTINUITY is a hole in the timeline.
    suffix = ".m4s" if fmp4 else ".ts"
    for number, segment in enumerate(playlist.segments, start=playlist.media_sequence):
        if posixpath.basename(segment.uri) != f"seg_{number:05d}{suffix}":
            problems.append(f"{url}: a gap: segment {number} is {segment.uri}")
            break
    if any(segment.discontinuity or segment.gap_tag for segment in playlist.segments):
        problems.append(f"{url}: EXT-X-DISCONTINUITY or EXT-X-GAP")
    durations = [segment.duration for segment in playlist.segments]
    if not durations or playlist.target_duration < max(round(d) for d in durations):
        problems.append(f"{url}: EXT-X-TARGETDURATION {playlist.target_duration} below {durations}")
    if fmp4:
        if not playlist.segment_map:
            problems.append(f"{url}: no EXT-X-MAP")
        else:
            fetch(urllib.parse.urljoin(url, playlist.segment_map[0].uri))
    for segment in playlist.segments:
        fetch(urllib.parse.urljoin(url, segment.uri))
    report["durations"][url] = durations


def check_hls(url):
    fetch(url)
    master = m3u8.load(url)
    if not master.is_variant or not master.is_independent_segments:
        problems.append("master: not a master playlist with EXT-X-INDEPENDENT-SEGMENTS")
    for variant in master.playlists:
        info = variant.stream_info
        report["codecs"] += info.codecs.split(",")
        report["attributes"] = {
            "bandwidth": info.bandwidth, "average_bandwidth": info.average_bandwidth,
            "resolution": list(info.resolution) if info.resolution else None, "frame_rate": info.frame_rate,
            "audio": info.audio, "version": master.version,
        }
        report["variants"].append(dict(report["attributes"], uri=variant.absolute_uri, codecs=info.codecs))
        if not info.bandwidth or not info.average_bandwidth or info.average_bandwidth > info.bandwidth:
            problems.append(f"variant: BANDWIDTH {info.bandwidth}, AVERAGE-BANDWIDTH {info.average_bandwidth}")
        fmp4 = master.version == 7
        check_media_playlist(variant.absolute_uri, fmp4)
    for iframes in master.iframe_playlists:
        playlist = m3u8.load(iframes.absolute_uri)
        if not playlist.is_i_frames_only or any(not segment.byterange for segment in playlist.segments):
            problems.append(f"{iframes.absolute_uri}: not an I-frame playlist of byte ranges")
        report["iframe_playlists"] = report.get("iframe_playlists", 0) + 1
    report["languages"] = [media.language for media in master.media]
    for media in master.media:
        if media.type != "AUDIO" or media.group_id != "audio":
            problems.append(f"EXT-X-MEDIA {media.name}: TYPE {media.type}, GROUP-ID {media.group_id}")
        if media.absolute_uri not in [v.absolute_uri for v in master.playlists]:
            check_media_playlist(media.absolute_uri, master.version == 7)


def check_dash(url):
    fetch(url)
    mpd = MPEGDASHParser.parse(url)
    # A finished package's MPD is static with its duration, whatever it was while the job ran (dynamic).
    if mpd.type != "static" or not mpd.media_presentation_duration:
        problems.append(f"MPD type {mpd.type}, mediaPresentationDuration {mpd.media_presentation_duration}")
    report["languages"] = []
    for set_index, adaptation in enumerate(mpd.periods[0].adaptation_sets):
        if adaptation.lang:
            report["languages"].append(adaptation.lang)
        for representation in adaptation.representations:
            report["codecs"].append(representation.codecs)
            report["representations"].append({
                "id": representation.id, "adaptation_set": set_index, "codecs": representation.codecs,
                "width": representation.width, "height": representation.height,
                "bandwidth": representation.bandwidth,
            })
            template = representation.segment_templates[0]
            fetch(urllib.parse.urljoin(url, template.initialization))
            number = template.start_number
            timescale = template.timescale
            durations = []
            end = None
            for entry in template.segment_timelines[0].Ss:
                # Each S after the first starts where the one before ended: a t beyond it is a gap.
                if entry.t is not None and end is not None and entry.t != end:
                    problems.append(f"{representation.id}: a gap: segment {number} starts at {entry.t}, not {end}")
                end = entry.t if entry.t is not None else (end or 0)
                for _ in range((entry.r or 0) + 1):
                    end += entry.d
                    media = template.media.replace("$Number%05d$", f"{number:05d}")
                    fetch(urllib.parse.urljoin(url, media))
                    durations.append(entry.d / timescale)
                    number += 1
            report["durations"][representation.id] = durations


target = sys.argv[1]
try:
    (check_dash if target.endswith(".mpd") else check_hls)(target)
except Exception as error:  # a parser or a fetch failing is a problem to report, not a crash
    problems.append(f"{type(error).__name__}: {error}")
print(json.dumps(report))
