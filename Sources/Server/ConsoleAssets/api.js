// The API as the console uses it: the bearer token kept in sessionStorage, JSON requests with the
// service's error shape, and job events followed over Server-Sent Events read with fetch (EventSource
// cannot send a token), with long-polls when the stream cannot be held.

const tokenKey = "mediad.token";

export const token = {
  get: () => sessionStorage.getItem(tokenKey),
  set: (value) => sessionStorage.setItem(tokenKey, value),
  clear: () => sessionStorage.removeItem(tokenKey),
};

/** An error answer: `{"error":{"code","message"}}` with its status. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** `extra` with the bearer token, when there is one. */
export function authorized(extra = {}) {
  const value = token.get();
  return value ? { ...extra, Authorization: `Bearer ${value}` } : extra;
}

/** fetch with the token; throws an ApiError for an error status. */
export async function request(path, options = {}) {
  const response = await fetch(path, { ...options, headers: authorized(options.headers) });
  if (!response.ok) throw await errorOf(response.status, () => response.json());
  return response;
}

export async function json(path, options = {}) {
  const response = await request(path, { ...options, headers: { Accept: "application/json", ...options.headers } });
  return response.status === 204 ? null : response.json();
}

/** The ApiError for a status and a body read by `read`. */
export async function errorOf(status, read) {
  try {
    const body = await read();
    return new ApiError(status, body.error.code, body.error.message);
  } catch {
    return new ApiError(status, `http_${status}`, `the server answered ${status}`);
  }
}

export const sleep = (milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/**
 * Follows the events at `path`, calling `onEvent(type, data)` for each; `onMode` hears "live" while the
 * stream is up, "polling" when it failed (the caller long-polls meanwhile; the stream is retried every
 * few seconds), "ended" when the stream ended on its own (a followed job is done) and "unauthorized".
 * Returns a function that stops following.
 */
export function follow(path, onEvent, onMode) {
  const controller = new AbortController();
  let stopped = false;
  // The id of the last event read: sent back on reconnecting, so the server replays what was missed.
  const last = { id: null };
  (async () => {
    while (!stopped) {
      try {
        const headers = { Accept: "text/event-stream", ...(last.id ? { "Last-Event-ID": last.id } : {}) };
        const response = await request(path, { signal: controller.signal, headers });
        onMode("live");
        await readEvents(response.body, onEvent, last);
        if (path.endsWith("/events") && path !== "/events") return onMode("ended");
      } catch (error) {
        if (stopped) return;
        if (error instanceof ApiError && (error.status === 401 || error.status === 404)) return onMode("unauthorized");
      }
      if (stopped) return;
      onMode("polling");
      await sleep(3000);
    }
  })();
  return () => {
    stopped = true;
    controller.abort();
  };
}

/**
 * Parses a `text/event-stream` body: blocks separated by a blank line, `id:`, `event:` and `data:` fields;
 * the last id seen is kept in `last.id`.
 */
async function readEvents(body, onEvent, last) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let type = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("id:")) last.id = line.slice(3).trim();
        else if (line.startsWith("event:")) type = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
      }
      if (data.length) onEvent(type, JSON.parse(data.join("\n")));
    }
  }
}

/** Long-polls `GET /jobs/{id}?wait=` until the job ends or `seconds` pass; the record then. */
export function waitForJob(id, seconds = 25) {
  return json(`/jobs/${id}?wait=${seconds}`);
}
