// The job list: newest first, filtered by state and kind, a page at a time ("Older jobs" appends the
// next), kept up to date by `GET /events` — or, while the stream is down, by long-polls on the jobs shown.

import { follow, json, waitForJob } from "./api.js";
import { bytes, duration, el, percent, terminalStates, time } from "./format.js";

const pageSize = 20;

export class JobList {
  constructor(catalog) {
    this.body = document.getElementById("jobs");
    this.more = document.getElementById("more");
    this.live = document.getElementById("live");
    this.filters = document.getElementById("filters");
    this.rows = new Map();
    const kinds = this.filters.elements["filter-kind"];
    kinds.append(...catalog.kinds.map((kind) => el("option", { value: kind.name, text: kind.name })));
    this.filters.addEventListener("change", () => this.reload());
    this.more.addEventListener("click", () => this.load(this.cursor));
  }

  /** Loads the first page and follows the events until `stop()`. */
  start() {
    this.reload();
    this.stopFollowing = follow("/events", (type, data) => this.apply(type, data), (mode) => this.mode(mode));
  }

  stop() {
    this.stopFollowing?.();
    this.polling = false;
  }

  get state() {
    return this.filters.elements.state.value;
  }

  get kind() {
    return this.filters.elements["filter-kind"].value;
  }

  reload() {
    this.rows.clear();
    this.body.replaceChildren();
    return this.load(null);
  }

  async load(cursor) {
    const query = new URLSearchParams({ limit: pageSize });
    if (this.state) query.set("state", this.state);
    if (this.kind) query.set("kind", this.kind);
    if (cursor) query.set("cursor", cursor);
    const page = await json(`/jobs?${query}`);
    for (const job of page.jobs) this.show(job, false);
    this.cursor = page.next_cursor;
    this.more.hidden = !this.cursor;
  }

  matches(job) {
    return (!this.state || job.state === this.state) && (!this.kind || job.kind === this.kind);
  }

  /** An event of `GET /events`: a job to show, update or drop. */
  apply(type, data) {
    if (type === "deleted") return this.drop(data.id);
    if (type !== "job") return;
    if (this.matches(data)) this.show(data, true);
    else this.drop(data.id);
  }

  drop(id) {
    this.rows.get(id)?.remove();
    this.rows.delete(id);
  }

  /**
   * Adds or replaces the job's row; a new job goes on top when `isNew`, else at the end. A row already
   * showing a final state is never put back to an earlier one: the answer that created a job can arrive
   * after the event of its end (a small job on a warm worker ends within milliseconds).
   */
  show(job, isNew) {
    const old = this.rows.get(job.id);
    const shown = old?.querySelector("[data-state]")?.dataset.state;
    if (terminalStates.includes(shown) && !terminalStates.includes(job.state)) return;
    const row = this.row(job);
    if (old) old.replaceWith(row);
    else if (isNew) this.body.prepend(row);
    else this.body.append(row);
    this.rows.set(job.id, row);
  }

  row(job) {
    const input = job.source_name ?? job.inputs.map((file) => file.name).join(", ");
    const size = job.inputs.reduce((sum, file) => sum + file.size, 0);
    const outputs = (job.outputs ?? []).reduce((sum, file) => sum + file.size, 0);
    return el(
      "tr",
      { "data-id": job.id },
      el("td", {}, el("a", { href: `#/jobs/${job.id}`, text: time(job.created_at) })),
      el("td", {}, el("span", { class: `state ${job.state}`, "data-state": job.state, text: job.state })),
      el("td", { text: job.kind }),
      el("td", { class: "name", text: input }),
      el("td", {}, el("progress", { max: 1, value: job.progress, "aria-label": `Progress of ${input}` }), ` ${percent(job.progress)}`),
      el("td", { text: duration(job) }),
      el("td", { text: outputs ? `${bytes(size)} → ${bytes(outputs)}` : bytes(size) }),
    );
  }

  mode(mode) {
    this.live.textContent = { live: "live", polling: "polling", unauthorized: "" }[mode] ?? "";
    if (mode === "live") this.polling = false;
    if (mode === "polling" && !this.polling) this.poll();
  }

  /** While the stream is down: long-polls the unfinished jobs shown, refreshing the page as they end. */
  async poll() {
    this.polling = true;
    while (this.polling) {
      const open = [...this.rows.keys()].filter((id) => {
        const state = this.rows.get(id).querySelector("[data-state]").dataset.state;
        return !terminalStates.includes(state);
      });
      try {
        if (open.length) await Promise.race(open.slice(0, 6).map((id) => waitForJob(id)));
        else await new Promise((resolve) => setTimeout(resolve, 5000));
        if (this.polling) await this.reload();
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 5000));
      }
    }
  }
}
