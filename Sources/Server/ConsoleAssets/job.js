// One job: its state (live through `GET /jobs/{id}/events`), inputs and outputs with size, SHA-256 and
// download links, the tracks its result describes, a <video> or <audio> preview of each playable output and an <img> of each picture,
// warnings, the error, the log, cancel or delete, and the equivalent curl command.

import { follow, json, request, token } from "./api.js";
import { bytes, duration, el, percent, terminalStates, time } from "./format.js";

/** Output types a media element plays on its own (not HLS playlists, DASH manifests or segments). */
const playableTypes = /^(video\/(mp4|webm|quicktime|x-matroska)|audio\/(mp4|mpeg|aac|wav|ogg|webm))$/;
/** Previews of each kind shown at most; the rest are in the outputs' table. */
const previewLimit = 24;

export class JobView {
  constructor() {
    this.root = document.getElementById("job");
    this.title = document.getElementById("job-title");
    this.objectURLs = [];
  }

  async open(id) {
    this.stop();
    this.id = id;
    this.renderedEnded = false;
    try {
      this.render(await json(`/jobs/${id}`));
    } catch (error) {
      this.root.replaceChildren(el("p", { class: "error", role: "alert", text: error.message }));
      return;
    }
    this.stopFollowing = follow(`/jobs/${id}/events`, (type, data) => {
      if (type === "job") this.render(data);
      if (type === "deleted") location.hash = "#/";
    }, () => {});
  }

  stop() {
    this.stopFollowing?.();
    this.stopFollowing = null;
    for (const url of this.objectURLs) URL.revokeObjectURL(url);
    this.objectURLs = [];
  }

  render(job) {
    if (job.id !== this.id) return;
    const ended = terminalStates.includes(job.state);
    if (ended && this.renderedEnded) return;
    this.renderedEnded = ended;
    this.title.textContent = `${job.kind} · ${job.source_name ?? job.id}`;
    const summary = el(
      "dl",
      { class: "summary" },
      el("dt", { text: "State" }), el("dd", {}, el("span", { class: `state ${job.state}`, "data-state": job.state, text: job.state })),
      el("dt", { text: "Progress" }), el("dd", {}, el("progress", { max: 1, value: job.progress, "aria-label": "Progress" }), ` ${percent(job.progress)}`),
      el("dt", { text: "Created" }), el("dd", { text: time(job.created_at) }),
      el("dt", { text: "Ran" }), el("dd", { text: duration(job) }),
      el("dt", { text: "Id" }), el("dd", {}, el("code", { text: job.id })),
    );
    const actions = el(
      "p",
      { class: "actions" },
      el("button", { type: "button", onclick: () => this.remove(job), text: ended ? "Delete" : "Cancel" }),
      el("button", { type: "button", onclick: (event) => copy(curlCommand(job), event.target), text: "Copy as curl" }),
    );
    const parts = [
      summary,
      actions,
      el("pre", { class: "curl" }, el("code", { text: curlCommand(job) })),
      job.error ? el("p", { class: "error", role: "alert", text: `${job.error.code}: ${job.error.message}` }) : null,
      job.warnings?.length ? el("section", {}, el("h3", { text: "Warnings" }), el("ul", {}, job.warnings.map((text) => el("li", { text })))) : null,
      files("Inputs", job.inputs, null),
      job.outputs?.length ? files("Outputs", job.outputs, this) : null,
      tracks(job),
      ended ? this.previews(job) : null,
      ended ? this.log(job) : null,
    ];
    this.root.replaceChildren(...parts.filter(Boolean));
  }

  /**
   * A <video> or <audio> for each output that plays in a page on its own, and an <img> for each picture
   * (thumbnails, a sprite sheet, a waveform), at most `previewLimit` of each. A package's files (in its
   * folders: segments, init segments) are not standalone media and get none.
   */
  previews(job) {
    const standalone = (job.outputs ?? []).filter((file) => !file.name.includes("/"));
    const playable = standalone.filter((file) => playableTypes.test(file.content_type ?? "")).slice(0, previewLimit);
    const pictures = standalone.filter((file) => /^image\//.test(file.content_type ?? "")).slice(0, previewLimit);
    if (!playable.length && !pictures.length) return null;
    const section = el("section", {}, el("h3", { text: "Preview" }));
    for (const file of playable) {
      const tag = file.content_type.startsWith("video/") ? "video" : "audio";
      const media = el(tag, { controls: true, preload: "metadata", "aria-label": `Preview of ${file.name}`, "data-output": file.name });
      this.source(file.url).then((url) => (media.src = url));
      section.append(el("figure", {}, media, el("figcaption", { text: file.name })));
    }
    if (pictures.length) {
      const grid = el("div", { class: "pictures" });
      for (const file of pictures) {
        const picture = el("img", { alt: file.name, loading: "lazy", "data-output": file.name });
        this.source(file.url).then((url) => (picture.src = url));
        grid.append(el("figure", {}, picture, el("figcaption", { text: file.name })));
      }
      section.append(grid);
    }
    return section;
  }

  /** The output's URL; with a token, a blob URL of it fetched with the token (media elements send none). */
  async source(url) {
    if (!token.get()) return url;
    const blob = await (await request(url)).blob();
    const objectURL = URL.createObjectURL(blob);
    this.objectURLs.push(objectURL);
    return objectURL;
  }

  log(job) {
    const pre = el("pre", { class: "log", tabindex: 0, "aria-label": "Job log" });
    request(`/jobs/${job.id}/log`).then(async (response) => (pre.textContent = (await response.text()) || "(empty)"));
    return el("section", {}, el("h3", { text: "Log" }), pre);
  }

  async remove(job) {
    try {
      await json(`/jobs/${job.id}`, { method: "DELETE" });
      if (terminalStates.includes(job.state)) location.hash = "#/";
    } catch (error) {
      this.root.prepend(el("p", { class: "error", role: "alert", text: error.message }));
    }
  }
}

/**
 * The tracks the job's result describes (remux and transcode `tracks`, demux's `info.tracks`, a package's
 * `renditions`) as a table of their plain fields, or null.
 */
function tracks(job) {
  const list = job.result?.tracks ?? job.result?.info?.tracks ?? job.result?.renditions;
  if (!Array.isArray(list) || !list.length) return null;
  const plain = (value) => ["string", "number", "boolean"].includes(typeof value);
  const columns = [...new Set(list.flatMap((track) => Object.keys(track).filter((key) => plain(track[key]))))].slice(0, 10);
  const head = el("tr", {}, columns.map((key) => el("th", { text: key.replaceAll("_", " ") })));
  const rows = list.map((track) => el("tr", {}, columns.map((key) => el("td", { text: plain(track[key]) ? String(track[key]) : "" }))));
  return el(
    "section",
    {},
    el("h3", { text: "Tracks" }),
    el("div", { class: "table-wrap" }, el("table", { class: "tracks" }, el("thead", {}, head), el("tbody", {}, rows))),
  );
}

/** A table of files; output names link to their download (fetched with the token when there is one). */
function files(title, list, view) {
  const rows = list.map((file) => {
    const name = view ? el("a", { href: file.url, download: file.name, text: file.name }) : file.name;
    if (view && token.get()) name.addEventListener("click", (event) => download(event, file, view));
    return el("tr", {}, el("td", {}, name), el("td", { text: bytes(file.size) }), el("td", {}, el("code", { class: "hash", text: file.sha256 })));
  });
  return el(
    "section",
    {},
    el("h3", { text: title }),
    el("div", { class: "table-wrap" }, el("table", {}, el("thead", {}, el("tr", {}, el("th", { text: "Name" }), el("th", { text: "Size" }), el("th", { text: "SHA-256" }))), el("tbody", {}, rows))),
  );
}

async function download(event, file, view) {
  event.preventDefault();
  const link = el("a", { href: await view.source(file.url), download: file.name });
  link.click();
}

/**
 * The curl command that submits the same job: its kind, its options as query parameters, its inputs — a
 * file sent for each input that was uploaded, `<name>_url` for each the server fetched (as `input_sources`
 * lists it: without its query string, which is never shown back).
 */
export function curlCommand(job) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(job.options ?? {})) {
    if (name !== "kind" && value !== null && typeof value !== "object") query.set(name, value);
  }
  const auth = token.get() ? ` -H "Authorization: Bearer $MEDIAD_TOKEN"` : "";
  const url = quoted(`${location.origin}/jobs/${job.kind}${query.size ? `?${query}` : ""}`);
  const fetched = (job.input_sources ?? []).map((source) => ` --url-query ${quoted(`${source.name}_url=${source.url}`)}`);
  const names = new Set((job.input_sources ?? []).map((source) => source.name));
  const sent = job.inputs.filter((file) => !names.has(file.name));
  if (!fetched.length && sent.length === 1) return `curl${auth} -T ${quoted(job.source_name ?? "input")} ${url}`;
  if (fetched.length && !sent.length) return `curl${auth} -X POST${fetched.join("")} ${url}`;
  const parts = sent.map((file) => ` -F ${quoted(`${file.name}=@${file.name}`)}`);
  return `curl${auth}${parts.join("")}${fetched.join("")} ${url}`;
}

/** `text` in single quotes for a POSIX shell. */
function quoted(text) {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

async function copy(text, button) {
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = "Copied";
  } catch {
    button.textContent = "Select the command below";
  }
  setTimeout(() => (button.textContent = "Copy as curl"), 2000);
}
