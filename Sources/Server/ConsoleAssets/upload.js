// The new-job form: a kind select and an options form built from `GET /catalog` (the names, types,
// defaults and allowed values the API parses), one file input per upload part of the kind, drag-and-drop,
// and the upload with a progress bar, its rate and the time left. A single `file` goes up resumably
// through tus (resumable.js); other parts, or several files, as one multipart request.

import { ApiError, authorized, errorOf, json } from "./api.js";
import { uploadResumable } from "./resumable.js";
import { bytes, el, percent, seconds } from "./format.js";

/** What each option type accepts, as a hint beside the field. */
const hints = {
  integer: "a whole number",
  seconds: "seconds, e.g. 12.5",
  bit_rate: "bits per second, e.g. 96k",
  frame_rate: "e.g. 25 or 30000/1001",
  seconds_list: "seconds separated by commas, e.g. 1,2.5,10",
  color: "hex RRGGBB or RRGGBBAA, e.g. 3a74e6",
};

/** Sets up the form for `catalog`; `onCreated(job)` hears of each job created. */
export function setUpUpload(catalog, onCreated) {
  const form = document.getElementById("upload-form");
  const kind = form.elements.kind;
  kind.replaceChildren(...catalog.kinds.map((entry) => el("option", { value: entry.name, text: entry.name })));
  kind.value = catalog.kinds.some((entry) => entry.name === "remux") ? "remux" : catalog.kinds[0].name;
  const render = () => renderKind(catalog.kinds.find((entry) => entry.name === kind.value));
  kind.addEventListener("change", render);
  render();
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    submit(form, onCreated);
  });
}

function renderKind(kind) {
  // A kind of one part needs its file; of a kind of several, the server says which ones go together.
  const required = kind.inputs.length === 1;
  document.getElementById("inputs").replaceChildren(...kind.inputs.map((part) => fileField(part, required)));
  const options = document.getElementById("options");
  options.replaceChildren(el("legend", { text: "Options" }), ...kind.options.map(optionField));
  options.hidden = kind.options.length === 0;
}

/** A file input for one upload part, whose label is also a drop zone. */
function fileField(part, required) {
  const id = `input-${part.name}`;
  const input = el("input", { type: "file", id, name: part.name, required, "aria-describedby": `${id}-help` });
  const zone = el(
    "label",
    { for: id, class: "drop" },
    el("span", { text: `${part.name}: drop a file here or choose one` }),
    el("small", { id: `${id}-help`, text: part.summary }),
  );
  zone.addEventListener("dragover", (event) => {
    event.preventDefault();
    zone.classList.add("over");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("over");
    if (event.dataTransfer.files.length) input.files = event.dataTransfer.files;
  });
  return el("div", { class: "file" }, zone, input);
}

/** A field for one option: a select for choices and booleans (empty: the server's default), else text. */
function optionField(option) {
  const id = `option-${option.name}`;
  const fallback = option.default === undefined ? "automatic" : `default: ${option.default}`;
  let field;
  if (option.type === "choice" || option.type === "boolean") {
    const values = option.type === "boolean" ? ["true", "false"] : option.allowed;
    field = el(
      "select",
      { id, name: option.name, "aria-describedby": `${id}-help` },
      el("option", { value: "", text: `(${fallback})` }),
      values.map((value) => el("option", { value, text: value })),
    );
  } else {
    const numeric = option.type === "integer" ? "numeric" : "decimal";
    field = el("input", {
      id, name: option.name, type: "text", placeholder: fallback, "aria-describedby": `${id}-help`,
      inputmode: ["frame_rate", "bit_rate", "seconds_list", "choice_list", "color"].includes(option.type) ? "text" : numeric,
    });
  }
  const listHint = option.type === "choice_list" ? `any of ${option.allowed.join(", ")}, separated by commas` : null;
  const help = [option.help, hints[option.type] ?? listHint].filter(Boolean).join(" — ");
  return el("div", { class: "option" }, el("label", { for: id, text: option.name }), field, el("small", { id: `${id}-help`, text: help }));
}

/** Sends the form: one file through tus (`uploadResumable`), else multipart to `POST /jobs/{kind}` with XMLHttpRequest, whose upload reports progress. */
async function submit(form, onCreated) {
  const error = document.getElementById("upload-error");
  const progress = document.getElementById("upload-progress");
  const bar = document.getElementById("upload-bar");
  const status = document.getElementById("upload-status");
  const button = form.querySelector("button[type=submit]");
  const options = {};
  for (const field of form.querySelectorAll("#options [name]")) {
    if (field.value.trim() !== "") options[field.name] = field.value.trim();
  }
  const inputs = [...form.querySelectorAll("#inputs input[type=file]")].filter((input) => input.files.length);
  if (!inputs.length) {
    error.textContent = "Choose a file first.";
    return;
  }
  const started = performance.now();
  const showProgress = (loaded, total) => {
    const elapsed = (performance.now() - started) / 1000;
    const rate = loaded / Math.max(elapsed, 0.001);
    bar.value = total ? loaded / total : 0;
    const left = rate > 0 ? (total - loaded) / rate : Infinity;
    status.textContent = `${percent(bar.value)} of ${bytes(total)} — ${(rate / 1e6).toFixed(1)} MB/s — ${seconds(left)} left`;
  };
  const done = (job) => {
    button.disabled = false;
    status.textContent = "Uploaded.";
    form.querySelectorAll("#inputs input[type=file]").forEach((input) => (input.value = ""));
    onCreated(job);
  };
  const failed = (failure) => {
    button.disabled = false;
    progress.hidden = true;
    error.textContent = failure ? `${failure.code}: ${failure.message}` : "The upload failed: the connection was lost.";
  };
  error.textContent = "";
  bar.value = 0;
  status.textContent = "Starting…";
  progress.hidden = false;
  button.disabled = true;
  const kind = form.elements.kind.value;
  // A lone `file` goes through tus, resumable; other parts, or several files, as one multipart request.
  if (inputs.length === 1 && inputs[0].name === "file") {
    try {
      const path = await uploadResumable(inputs[0].files[0], kind, options, showProgress);
      done(await json(path));
    } catch (failure) {
      failed(failure instanceof ApiError ? failure : null);
    }
    return;
  }
  const body = new FormData();
  for (const [name, value] of Object.entries(options)) body.append(name, value);
  for (const input of inputs) body.append(input.name, input.files[0]);
  const xhr = new XMLHttpRequest();
  xhr.open("POST", `/jobs/${encodeURIComponent(kind)}`);
  for (const [name, value] of Object.entries(authorized({ Accept: "application/json" }))) xhr.setRequestHeader(name, value);
  xhr.upload.addEventListener("progress", (event) => {
    if (event.lengthComputable) showProgress(event.loaded, event.total);
  });
  xhr.addEventListener("loadend", async () => {
    if (xhr.status >= 200 && xhr.status < 300) return done(JSON.parse(xhr.responseText));
    failed(xhr.status ? await errorOf(xhr.status, async () => JSON.parse(xhr.responseText)) : null);
  });
  xhr.send(body);
}
