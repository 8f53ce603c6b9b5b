// Resumable uploads through the server's tus 1.0.0 endpoint (/uploads): the job's kind and options go in
// Upload-Metadata (checked before a byte is sent), the file in chunks, and the last chunk makes the job.
// A chunk that fails (the connection lost, the server restarting, 423/429/5xx) is sent again from the
// offset the server reports (HEAD), after 1, 2, 4 … s, so a cut upload goes on where it stopped.

import { ApiError, authorized, errorOf, sleep } from "./api.js";

const chunkSize = 16 * 1024 * 1024;
const tus = { "Tus-Resumable": "1.0.0" };
const attempts = 8;

/** The value as tus metadata wants it: base64 of its UTF-8 bytes. */
function base64(text) {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * Uploads `file` as a `kind` job with `options` (name to value); `onProgress(sent, total)` hears of every
 * byte on its way. Resolves to the job's path (`/jobs/{id}`); rejects with an ApiError for a refusal.
 */
export async function uploadResumable(file, kind, options, onProgress) {
  const metadata = Object.entries({ kind, filename: file.name, ...options })
    .map(([key, value]) => `${key} ${base64(value)}`)
    .join(",");
  const created = await fetch("/uploads", {
    method: "POST",
    headers: authorized({ ...tus, "Upload-Length": String(file.size), "Upload-Metadata": metadata }),
  });
  if (created.status !== 201) throw await errorOf(created.status, () => created.json());
  const location = created.headers.get("Location");
  let offset = 0;
  let failures = 0;
  for (;;) {
    const answer = await patch(location, file, offset, onProgress);
    if (answer.status === 204) {
      failures = 0;
      offset = Number(answer.offset);
      if (answer.job) return answer.job;
      continue;
    }
    if (answer.status >= 400 && answer.status < 500 && ![409, 423, 429].includes(answer.status)) {
      throw await errorOf(answer.status, () => JSON.parse(answer.body));
    }
    if (++failures > attempts) throw new ApiError(0, "upload_failed", "the upload failed: the connection was lost");
    await sleep(Math.min(1000 * 2 ** (failures - 1), 15000));
    offset = (await currentOffset(location)) ?? offset;
  }
}

/** One PATCH of the chunk at `offset`, through XMLHttpRequest for its progress events. */
function patch(location, file, offset, onProgress) {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PATCH", location);
    const headers = authorized({
      ...tus, "Upload-Offset": String(offset), "Content-Type": "application/offset+octet-stream",
    });
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.addEventListener("progress", (event) => onProgress(offset + event.loaded, file.size));
    xhr.addEventListener("loadend", () =>
      resolve({
        status: xhr.status,
        offset: xhr.getResponseHeader("Upload-Offset"),
        job: xhr.getResponseHeader("Mediad-Job"),
        body: xhr.responseText,
      }),
    );
    xhr.send(file.slice(offset, offset + chunkSize));
  });
}

/** What the server holds of the upload (HEAD), or null when it cannot be asked now. */
async function currentOffset(location) {
  try {
    const response = await fetch(location, { method: "HEAD", headers: authorized(tus) });
    return response.ok ? Number(response.headers.get("Upload-Offset")) : null;
  } catch {
    return null;
  }
}
