// The documents of the scope: listed and searched, one shown with its fields (and where each extracted value was
// read) and its text, uploaded (a file or a folder) and ingested with its progress, deleted after a confirmation.

import { call, put, runOnce, session, stream, ApiError } from "./api.js";
import { clear, documentText, el, sourceCell, value } from "./render.js";
import { hideAlert, showAlert } from "./chat.js";
import { inPageWords } from "./words.js";

const $ = (id) => document.getElementById(id);
const LISTED = 1000;
let listed = [];
let total = 0;
let listings = 0; // the latest listing asked for: an earlier one answered late is not shown over it

// The documents whose title or id holds the search box's words, the server searching the whole scope.
export async function listDocuments() {
  hideAlert();
  const matching = $("doc-filter").value.trim();
  const asked = ++listings;
  try {
    const result = await runOnce("documents", { action: "list", limit: LISTED, ...(matching && { matching }) });
    if (asked !== listings) return;
    listed = result.documents || [];
    total = result.total;
    const buckets = [...new Set(listed.map((d) => d.bucket))];
    clear($("bucket-names")).append(...buckets.map((b) => el("option", { value: b })));
    showList();
  } catch (error) {
    showAlert(error);
  }
  $("upload-form").hidden = !session.me?.may_ingest;
  $("extract-form").hidden = !session.me?.may_ingest;
}

function showList() {
  const matching = $("doc-filter").value.trim();
  $("doc-count").textContent =
    `${total} document${total === 1 ? "" : "s"}${matching ? ` whose title or id holds “${matching}”` : ""}` +
    (listed.length < total ? ` (the first ${listed.length} shown)` : "");
  const rows = clear(document.querySelector("#doc-table tbody"));
  for (const d of listed) {
    rows.append(
      el("tr", { "data-doc": d.doc_id },
        el("td", {}, el("button", { type: "button", class: "linkish", onclick: () => showDocument(d.doc_id) }, d.title || d.doc_id)),
        el("td", {}, d.bucket),
        el("td", {}, String(d.chunks)),
        el("td", {}, session.me?.may_ingest
          ? el("button", { type: "button", "aria-label": `Delete ${d.title || d.doc_id}`, onclick: () => confirmDelete(d) }, "Delete")
          : "")),
    );
  }
}


export async function showDocument(docId) {
  hideAlert();
  const view = clear($("doc-view"));
  try {
    const { document: doc } = await runOnce("documents", { action: "show", doc_ids: [docId] });
    const text = String(doc.body || "");
    const heading = el("h2", { tabIndex: -1 }, doc.title || doc.doc_id);
    const { pre, show } = documentText(text);
    const about = ["doc_id", "bucket", "author", "tags", "created_at", "source", "version", "chunks"].filter((k) => doc[k] !== null && doc[k] !== undefined && !(Array.isArray(doc[k]) && !doc[k].length));
    view.append(
      heading,
      el("div", { class: "table-wrap" },
        el("table", {}, el("tbody", {}, about.map((k) => el("tr", {}, el("th", { scope: "row" }, k), el("td", {}, value(doc[k]))))))),
      el("h3", {}, "Fields"),
    );
    const fields = [];
    for (const annotation of doc.annotations || []) {
      for (const [name, v] of Object.entries(annotation.row || {})) {
        fields.push(
          el("tr", {}, el("th", { scope: "row" }, name), el("td", {}, value(v)), sourceCell((annotation.sources || {})[name], show)),
        );
      }
    }
    view.append(
      fields.length
        ? el("div", { class: "table-wrap" }, el("table", {},
            el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Field"), el("th", { scope: "col" }, "Value"), el("th", { scope: "col" }, "Source"))),
            el("tbody", {}, fields)))
        : el("p", { class: "muted" }, "No fields recorded for this document."),
      el("h3", {}, "Text"),
      pre,
    );
    heading.focus();
  } catch (error) {
    showAlert(error);
  }
}

function confirmDelete(doc) {
  const opener = document.activeElement;
  const view = clear($("doc-view"));
  const cancel = el("button", {
    type: "button",
    onclick: () => {
      clear(view);
      if (opener?.isConnected) opener.focus();
    },
  }, "Cancel");
  view.append(
    el("div", { class: "clarify", role: "alertdialog", "aria-label": "Confirm the deletion" },
      el("p", {}, `Delete ${doc.title || doc.doc_id} (${doc.doc_id}) with its passages and fields? This cannot be undone.`),
      el("div", { class: "options" },
        el("button", { type: "button", id: "confirm-delete", onclick: () => deleteDocument(doc.doc_id) }, "Yes, delete it"),
        cancel)),
  );
  cancel.focus();
}

async function deleteDocument(docId) {
  const view = clear($("doc-view"));
  try {
    const report = await runOnce("documents", { action: "delete", doc_ids: [docId] });
    view.append(el("p", { role: "status" }, report.deleted?.length ? `Deleted ${docId}.` : `${docId} was not found.`));
  } catch (error) {
    showAlert(error);
  }
  await listDocuments();
}

// A run of the ingest graph (an ingest, or an extraction with `extract: true`) streamed: `progressed(event)` at each
// progress event (an extraction's `done` of `total` documents; an ingest's `documents`, `chunks`, `chunks_per_s`);
// its report.
async function ingestRun(input, progressed) {
  const body = {
    assistant_id: "ingest",
    input: { ...input, scope: session.scope },
    stream_mode: ["updates", "custom"],
    context: { scope: session.scope },
  };
  let result = null;
  for await (const { event, data } of stream("/runs/stream", body)) {
    if (event === "updates") result = data.ingest || data.extract || result;
    else if (event === "custom" && (data.event === "extract" || data.event === "ingest")) progressed(data);
    else if (event === "error") throw new ApiError(422, data.message || data.error);
  }
  return result;
}

// The bucket's fields found again in its documents, the progress bar following the run's events.
export async function extractFields() {
  hideAlert();
  const bucket = $("extract-bucket").value.trim();
  const status = $("extract-status");
  const bar = $("extract-progress");
  status.textContent = `Reading the fields of ${bucket}…`;
  bar.hidden = false;
  bar.value = 0;
  try {
    const result = await ingestRun({ extract: true, bucket }, ({ done, total }) => {
      bar.max = Math.max(total, 1);
      bar.value = done;
      status.textContent = `Reading the fields of ${bucket}: ${done} of ${total} documents`;
    });
    status.textContent = result ? `Extracted: ${result.summary}` : "The extraction ended without a report.";
  } catch (error) {
    status.textContent = "";
    showAlert(error);
  }
}

// What the ingest did with each uploaded file: new, a new version of its document, the same as before, or skipped.
function outcomes(result) {
  const named = result.named || {};
  const said = [
    ["New", named.added],
    ["Updated to this version", named.updated],
    ["Unchanged (the same as the stored version)", named.unchanged],
  ].filter(([, ids]) => ids && ids.length).map(([what, ids]) => `${what}: ${ids.join(", ")}`);
  const skipped = (result.skipped || []).map((s) => `${s.path}: ${inPageWords(s.reason)}`);
  if (skipped.length) said.push(`Skipped ${result.skipped_total}: ${skipped.join("; ")}`);
  return said;
}

// Upload every chosen file (a folder's keep their paths inside it) into a new batch folder, then ingest that
// folder into the bucket, streaming the run. The bucket is checked first, so an unknown one is refused before
// anything is sent; an upload that fails part way is deleted from the server (a refused ingest deletes it there).
export async function uploadAndIngest() {
  hideAlert();
  const files = [...$("upload-files").files, ...$("upload-folder").files];
  const bucket = $("upload-bucket").value.trim();
  const status = $("upload-status");
  const bar = $("upload-progress");
  if (!files.length) {
    status.textContent = "Choose files or a folder first.";
    return;
  }
  const batch = crypto.randomUUID().replaceAll("-", "");
  const scope = `?scope=${encodeURIComponent(session.scope)}`;
  let failed = null;
  let sent = "none"; // "some" once a file may be on the server, "all" once the ingest has it
  try {
    status.textContent = `Checking bucket ${bucket}…`;
    await runOnce("documents", { action: "list", bucket, limit: 1 });
    bar.hidden = false;
    bar.max = files.length;
    let folder = null;
    sent = "some";
    for (const [n, file] of files.entries()) {
      const path = file.webkitRelativePath || file.name;
      status.textContent = `Uploading ${n + 1} of ${files.length}: ${path}`;
      const at = `/web/api/upload/${batch}/${path.split("/").map(encodeURIComponent).join("/")}`;
      const stored = await put(`${at}${scope}`, file);
      folder = stored.path.split("/").slice(0, 2).join("/");
      bar.value = n + 1;
    }
    sent = "all";
    const started = Date.now();
    let done = "";
    const ingesting = () => `Ingesting ${files.length} file(s) into ${bucket}… ${Math.round((Date.now() - started) / 1000)} s`;
    const tick = setInterval(() => (status.textContent = ingesting() + done), 500);
    bar.value = 0;
    let result = null;
    try {
      result = await ingestRun({ path: folder, bucket }, (progress) => {
        bar.value = progress.documents;
        done = `: ${progress.documents} of ${files.length} documents, ${progress.chunks} chunks, ${progress.chunks_per_s} chunks/s`;
      });
    } finally {
      clearInterval(tick);
    }
    status.textContent = result ? `Ingested: ${result.summary}` : "The ingest ended without a report.";
    for (const line of result ? outcomes(result) : []) status.append(el("br"), line);
    $("upload-files").value = "";
    $("upload-folder").value = "";
  } catch (error) {
    failed = error;
    status.textContent = "";
    if (sent === "some") await call("DELETE", `/web/api/upload/${batch}${scope}`).catch(() => {});
  }
  await listDocuments();
  if (failed) showAlert(failed, $("upload-alert")); // after the listing, which clears the alert of an earlier action
}
