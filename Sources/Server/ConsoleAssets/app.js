// The console's entry: asks for a token when the server wants one, loads the catalog, and shows the
// home view (new job and job list) or one job, by the location's hash (#/ or #/jobs/<id>).

import { ApiError, json, token } from "./api.js";
import { JobView } from "./job.js";
import { JobList } from "./jobs.js";
import { setUpUpload } from "./upload.js";

const views = {
  token: document.getElementById("token-view"),
  home: document.getElementById("home-view"),
  job: document.getElementById("job-view"),
};

function showView(name) {
  for (const [key, view] of Object.entries(views)) view.hidden = key !== name;
}

let list;
let started = false;
const jobView = new JobView();

/** Shows what the hash names; the list follows events only while it is shown. */
function route() {
  const match = location.hash.match(/^#\/jobs\/([A-Za-z0-9_-]+)$/);
  if (match) {
    list.stop();
    showView("job");
    jobView.open(match[1]);
  } else {
    jobView.stop();
    showView("home");
    list.start();
  }
}

/** Asks for a token and checks it with `GET /jobs?limit=1` before keeping it. */
function askForToken(message = "") {
  showView("token");
  const form = document.getElementById("token-form");
  document.getElementById("token-error").textContent = message;
  form.elements.token.focus();
  form.onsubmit = async (event) => {
    event.preventDefault();
    token.set(form.elements.token.value.trim());
    try {
      await json("/jobs?limit=1");
      form.reset();
      start();
    } catch (error) {
      token.clear();
      askForToken(error instanceof ApiError && error.status === 401 ? "That token is not valid." : error.message);
    }
  };
}

async function start() {
  const index = await json("/");
  const signOut = document.getElementById("sign-out");
  signOut.hidden = !(index.tokens && token.get());
  signOut.onclick = () => {
    token.clear();
    location.reload();
  };
  if (index.tokens && !token.get()) return askForToken();
  if (started) return route();
  const catalog = await json("/catalog");
  list = new JobList(catalog);
  setUpUpload(catalog, (job) => list.show(job, true));
  window.addEventListener("hashchange", route);
  started = true;
  route();
}

start().catch((error) => {
  if (error instanceof ApiError && error.status === 401) {
    token.clear();
    askForToken("That token is no longer valid.");
  } else {
    document.getElementById("main").prepend(Object.assign(document.createElement("p"), { className: "error", textContent: error.message }));
  }
});
