// Small helpers shared by the views: element building and the formatting of sizes, times and rates.

/** An element with attributes (`on…` keys add listeners) and children (strings become text). */
export function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "text") element.textContent = value;
    else element.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== undefined && child !== null) element.append(child);
  }
  return element;
}

/** 1536 → "1.5 KiB". */
export function bytes(count) {
  if (count === undefined || count === null) return "";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = count;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** Seconds → "1 min 5 s". */
export function seconds(total) {
  if (!Number.isFinite(total)) return "";
  if (total < 60) return `${total < 10 ? total.toFixed(1) : Math.round(total)} s`;
  const minutes = Math.floor(total / 60);
  return minutes < 60 ? `${minutes} min ${Math.round(total % 60)} s` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** How long a job ran (or has been running), from its RFC 3339 times. */
export function duration(job) {
  if (!job.started_at) return "";
  const end = job.finished_at ? Date.parse(job.finished_at) : Date.now();
  return seconds((end - Date.parse(job.started_at)) / 1000);
}

/** An RFC 3339 time in the reader's locale. */
export function time(value) {
  return value ? new Date(value).toLocaleString() : "";
}

/** 0…1 → "42 %". */
export function percent(fraction) {
  return `${Math.round((fraction ?? 0) * 100)} %`;
}

export const terminalStates = ["succeeded", "failed", "cancelled"];
