// The chat: the scope's threads, a thread's turns, a question streamed as it is answered, a clarification answered
// with a button or a value of one's own, and every citation opening its passage or row in the side panel.

import { ApiError, call, download, runOnce, session, stream } from "./api.js";
import { clear, documentText, el, highlighted, markdown, sourceCell, value } from "./render.js";
import { inPageWords } from "./words.js";

const REFUSALS = ["InvalidInput", "ScopeRefused", "ValidationError", "ValueError"]; // the run's error names of bad input
const $ = (id) => document.getElementById(id);
const STREAM_MODES = ["updates", "messages-tuple"];
let current = null; // the open thread's id; null for a new one

// An error said in the page's alert, or in `alert`, the one beside the control that failed.
export function showAlert(error, alert = $("alert")) {
  alert.textContent = error instanceof Error ? error.message : String(error);
  alert.hidden = false;
}

export function hideAlert() {
  for (const alert of document.querySelectorAll(".alert[role=alert]")) alert.hidden = true;
}

function runContext() {
  const context = { scope: session.scope };
  const maxHits = parseInt($("max-hits").value, 10);
  if (maxHits > 0) context.max_hits = maxHits;
  return context;
}

// What the evidence says of each cited chunk and row: its title, passage, offsets and row (for the latest answer of
// a thread from before its state kept each answer's record).
function sourcesOf(values) {
  const sources = new Map();
  for (const evidence of values.evidence || []) {
    for (const hit of evidence.envelope?.hits || []) {
      if (hit.chunk_id) sources.set(hit.chunk_id, { title: hit.metadata?.title, chars: hit.metadata?.chars, snippet: hit.snippet });
      else if (hit.annotation_id) sources.set(hit.annotation_id, { title: hit.metadata?.title, row: hit.row });
    }
  }
  return sources;
}

export async function listThreads() {
  const list = clear($("thread-list"));
  const threads = await call("POST", "/threads/search", {
    metadata: { scope: session.scope, graph_id: "agent" },
    limit: 50,
    sort_by: "updated_at",
    sort_order: "desc",
  });
  for (const thread of threads) {
    const first = (thread.values?.messages || []).find((m) => m.type === "human");
    const label = first ? String(first.content).slice(0, 80) : `thread ${thread.thread_id.slice(0, 8)}`;
    list.append(
      el("li", {},
        el("button", {
          type: "button",
          "aria-current": String(thread.thread_id === current),
          "data-thread": thread.thread_id,
          onclick: () => openThread(thread.thread_id),
        }, label, thread.status === "interrupted" ? " (waiting for you)" : "")),
    );
  }
  if (!threads.length) list.append(el("li", { class: "muted" }, "No threads yet in this scope."));
}

export function newThread() {
  current = null;
  history.replaceState(null, "", "#");
  $("thread-title").textContent = "New thread";
  clear($("turns"));
  closeSource();
  $("question").focus();
}

// The thread as it stands; with `join`, a run still under way on it (a reload, another tab) is followed to its end.
export async function openThread(threadId, join = true) {
  hideAlert();
  closeSource();
  try {
    const [thread, state] = await Promise.all([
      call("GET", `/threads/${encodeURIComponent(threadId)}`),
      call("GET", `/threads/${encodeURIComponent(threadId)}/state`),
    ]);
    current = threadId;
    history.replaceState(null, "", `#thread=${threadId}`);
    const first = (state.values?.messages || []).find((m) => m.type === "human");
    $("thread-title").textContent = first ? String(first.content) : `Thread ${threadId.slice(0, 8)}`;
    showTurns(threadId, thread, state.values || {});
    if (join && thread.status === "busy") joinRun(threadId, state.values || {});
  } catch (error) {
    current = null;
    clear($("turns"));
    showAlert(error);
  }
  listThreads().catch(showAlert); // the list follows; the thread is shown without waiting for it
}

// An answer message as it was shown: from the record the state keeps of each (its figure, notes, citations and what
// they open); the latest answer of an older thread from the state; else its message's text.
function shownAnswer(values, message) {
  const kept = (values.answers || {})[message.id];
  if (kept) return { answer: kept.answer, sources: new Map(Object.entries(kept.sources || {})), fields: kept.fields || [] };
  if (message === values.messages.at(-1) && values.answer) {
    // the table's columns, then the fields its searches' conditions name (as graph/shown_answers.py keeps them)
    const shown = Object.keys((values.answer.rows || [])[0] || {}).filter((k) => k !== "doc_id" && k !== "annotation_id");
    const conditions = (values.evidence || []).flatMap((e) => Object.keys(e.call?.arguments?.predicates || {}));
    return { answer: values.answer, sources: sourcesOf(values), fields: [...new Set([...shown, ...conditions])] };
  }
  return null;
}

function askedTurn(question) {
  const turn = el("li", { class: "turn" }, el("p", { class: "asked" }, question));
  $("turns").append(turn);
  return turn;
}

// A question the thread holds no answer to when the next one was asked (its clarification left waiting, or its
// run failed): said under it, instead of nothing.
function unansweredNote() {
  return el("p", { class: "muted unanswered" }, "Left unanswered: another question was asked before this one was answered.");
}

// Every question of the thread with its answer, a waiting clarification last.
function showTurns(threadId, thread, values) {
  clear($("turns"));
  const waiting = Object.values(thread.interrupts || {}).flat().map((i) => i.value);
  let turn = null;
  let answered = true;
  for (const message of values.messages || []) {
    if (message.type === "human") {
      if (!answered) turn.append(unansweredNote());
      turn = askedTurn(String(message.content));
      answered = false;
    } else if (message.type === "ai" && turn) {
      const shown = shownAnswer(values, message);
      turn.append(shown ? answerView(threadId, shown) : el("div", { class: "answer" }, markdown(String(message.content))));
      answered = true;
    }
  }
  if (waiting.length && turn) turn.append(clarifyView(threadId, waiting[0]));
}

function citationLabel(citation, sources) {
  const source = sources.get(citation.annotation_id || citation.chunk_id) || {};
  const what = citation.annotation_id ? "row" : citation.chunk_id ? "passage" : "document";
  return `${source.title || citation.doc_id} (${what})`;
}

function answerView(threadId, { answer, sources, fields }) {
  const view = el("div", { class: `answer format-${answer.format}` });
  if (answer.format === "figure" && answer.value !== null && answer.value !== undefined) {
    view.append(el("p", { class: "figure-value" }, Number(answer.value).toLocaleString()));
  }
  view.append(...markdown(inPageWords(answer.text)));
  if (answer.format === "export") {
    view.append(el("button", { type: "button", onclick: () => downloadExport(threadId) }, "Download the CSV"));
  }
  for (const note of answer.notes || []) view.append(el("p", { class: "muted" }, inPageWords(note)));
  if ((answer.citations || []).length) {
    view.append(
      el("h3", {}, "Sources"),
      el("ul", { class: "citations", "aria-label": "Sources" },
        answer.citations.map((citation) =>
          el("li", {},
            el("button", { type: "button", class: "cite", onclick: () => openCitation(citation, sources, fields) },
              citationLabel(citation, sources))))),
    );
  }
  return view;
}

function optionReply(option) {
  const reply = { ...option };
  delete reply.label;
  return reply;
}

function clarifyView(threadId, payload) {
  const view = el("div", { class: "clarify", role: "group", "aria-label": "The agent asks" });
  view.append(el("p", {}, el("strong", {}, "I need your help: "), ...markdown(payload.reason).flatMap((p) => [...p.childNodes])));
  if (payload.error) view.append(el("p", { class: "alert" }, payload.error));
  view.append(
    el("div", { class: "options" },
      payload.options.map((option) =>
        el("button", { type: "button", "data-choice": option.choice, onclick: () => resume(threadId, optionReply(option)) },
          ...markdown(option.label).flatMap((p) => [...p.childNodes])))),
  );
  const fields = [...new Set(payload.options.filter((o) => o.choice === "narrow" && o.field).map((o) => o.field))];
  if (fields.length) {
    const field = el("select", { id: "free-field" }, fields.map((f) => el("option", { value: f }, f)));
    const given = el("input", { id: "free-value", type: "text", required: true });
    view.append(
      el("form", {
        class: "row",
        onsubmit: (event) => {
          event.preventDefault();
          resume(threadId, { choice: "narrow", field: field.value, op: "=", value: given.value });
        },
      },
        el("label", { htmlFor: "free-field" }, "Or narrow by your own value of"), field,
        el("label", { htmlFor: "free-value", class: "visually-hidden" }, "Value"), given,
        el("button", { type: "submit" }, "Answer")),
    );
  }
  return view;
}

async function downloadExport(threadId) {
  try {
    await download(`/web/api/export/${encodeURIComponent(threadId)}`, "export.csv");
  } catch (error) {
    showAlert(error);
  }
}

// Run the agent on the thread (a question or a resume), showing its steps and its text as they stream, then the
// thread as it stands.
async function runOn(threadId, request, turn) {
  const body = { assistant_id: "agent", stream_mode: STREAM_MODES, context: runContext(), ...request };
  return follow(threadId, () => stream(`/threads/${encodeURIComponent(threadId)}/runs/stream`, body), turn);
}

// Follow the run under way on the thread (the page was reloaded while it streamed, or another tab started it): its
// question shown if the thread does not hold it yet, its steps and text from now on, the thread when it ends.
async function joinRun(threadId, values) {
  const runs = await call("GET", `/threads/${encodeURIComponent(threadId)}/runs?limit=10`).catch(() => []);
  const run = runs.find((r) => r.status === "running" || r.status === "pending");
  if (!run || current !== threadId) return;
  const question = run.kwargs?.input?.question; // none for a resume, whose question is the thread's last
  const lastAsked = (values.messages || []).filter((m) => m.type === "human").at(-1);
  const held = !question || String(lastAsked?.content ?? "").trim() === question.trim();
  const turn = (held && $("turns").lastElementChild) || askedTurn(question || "");
  const modes = encodeURIComponent(JSON.stringify(STREAM_MODES));
  const path = `/threads/${encodeURIComponent(threadId)}/runs/${encodeURIComponent(run.run_id)}/stream?stream_mode=${modes}`;
  await follow(threadId, () => stream(path), turn);
}

// Show a run's events (`events()`) as they come, then the thread as the run left it.
async function follow(threadId, events, turn) {
  const progress = $("progress");
  const live = el("div", { class: "answer streaming" });
  turn.append(live);
  $("ask").disabled = true;
  for (const button of document.querySelectorAll(".clarify button")) button.disabled = true;
  progress.textContent = "Working…";
  // Timing marks (devtools, evals/bench_page.py): the run asked, its first streamed event, its answer shown.
  performance.mark("ragent:asked");
  let first = true;
  try {
    for await (const { event, data } of events()) {
      if (first && event !== "metadata") {
        performance.mark("ragent:first-event");
        first = false;
      }
      if (event === "updates") {
        const steps = Object.keys(data).filter((n) => !n.startsWith("__"));
        if (steps.length) progress.textContent = `Working: ${steps.join(", ")}…`;
      } else if (event === "messages") {
        const [message] = data;
        if (message.type === "AIMessageChunk" && typeof message.content === "string") live.append(message.content);
      } else if (event === "error") {
        // A run its input was refused for (too long, a control character, a scope the key may not use) is a refusal.
        throw new ApiError(REFUSALS.includes(data.error) ? 422 : 500, data.message || data.error);
      }
    }
    progress.textContent = "";
    await openThread(threadId, false);
    performance.mark("ragent:shown");
    return true;
  } catch (error) {
    progress.textContent = "";
    await openThread(threadId, false); // the thread as the refusal left it, then why
    showAlert(error);
    return false;
  } finally {
    $("ask").disabled = false;
    keepFocus();
  }
}

// The button that started a run is disabled while it runs and the thread is drawn anew after it, which leaves the
// keyboard's focus nowhere: put it where the next step is (a waiting question's first option, or the question box),
// unless the person has moved it somewhere themselves.
function keepFocus() {
  if (document.activeElement && document.activeElement !== document.body) return;
  const option = document.querySelector("#turns .clarify button");
  (option || $("question")).focus();
}

export async function ask(question) {
  hideAlert();
  if (!current) {
    try {
      const thread = await call("POST", "/threads", { metadata: { scope: session.scope } });
      current = thread.thread_id;
      history.replaceState(null, "", `#thread=${current}`);
    } catch (error) {
      showAlert(error);
      return;
    }
  }
  // A clarification still waiting is dropped by the new question (the run starts afresh): its buttons go with it.
  document.querySelector("#turns .clarify")?.replaceWith(unansweredNote());
  await runOn(current, { input: { question } }, askedTurn(question));
}

async function resume(threadId, reply) {
  hideAlert();
  const turn = $("turns").lastElementChild;
  const done = await runOn(threadId, { command: { resume: reply } }, turn);
  if (done && reply.choice === "export") await downloadExport(threadId);
}

let citedFrom = null; // the control that opened the side panel, focused again when it closes

// The side panel: the cited document with the cited passage, or the cited row and the sentences its extracted
// values were read from marked in the document's text: those of the fields the answer shows (`asked`) first, any
// other one at its "Show where" button.
export async function openCitation(citation, sources, asked = []) {
  const panel = $("source");
  citedFrom = document.activeElement;
  const body = clear($("source-body"));
  const source = sources.get(citation.annotation_id || citation.chunk_id) || {};
  $("source-title").textContent = source.title || citation.doc_id;
  panel.hidden = false;
  body.append(el("p", { class: "muted" }, `Document ${citation.doc_id}`));
  try {
    const { document: doc } = await runOnce("documents", { action: "show", doc_ids: [citation.doc_id] });
    const text = String(doc.body || "");
    let ranges = [];
    const { pre, show } = documentText(text);
    if (citation.annotation_id) {
      const row = (doc.annotations || []).find((a) => a.annotation_id === citation.annotation_id);
      const fields = row ? row.row : source.row || {};
      const origin = (row && row.sources) || {};
      const quoted = (field) => origin[field] && origin[field].end > origin[field].start;
      const anyRead = Object.keys(fields).some((k) => origin[k]); // a labelled row needs no column of sources
      body.append(
        el("h3", {}, "Cited row"),
        el("table", {}, el("tbody", {}, Object.entries(fields).map(([k, v]) =>
          el("tr", {}, el("th", { scope: "row" }, k), el("td", {}, value(v)), anyRead && sourceCell(origin[k], show))))),
      );
      const shown = asked.filter(quoted);
      ranges = (shown.length ? shown : Object.keys(origin).filter(quoted)).map((k) => origin[k]);
    } else if (citation.chunk_id && source.chars) {
      body.append(el("h3", {}, "Cited passage"));
      ranges = [{ start: source.chars[0], end: source.chars[1] }];
    }
    pre.replaceChildren(...highlighted(text, ranges).childNodes);
    body.append(el("h3", {}, "Text"), pre);
    const mark = pre.querySelector("mark");
    if (mark) mark.scrollIntoView({ block: "nearest" });
  } catch (error) {
    body.append(el("p", { class: "alert" }, error.message));
    if (source.snippet) body.append(el("pre", { class: "body-text" }, source.snippet));
  }
  panel.focus();
}

export function closeSource() {
  const panel = $("source");
  const hadFocus = panel.contains(document.activeElement);
  panel.hidden = true;
  if (hadFocus && citedFrom?.isConnected) citedFrom.focus();
  citedFrom = null;
}
