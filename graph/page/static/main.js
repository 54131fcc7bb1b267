// Sign-in, the scope, the two views and the keyboard: the page's wiring.

import { call, forgetKey, KEY_REFUSED, keepKey, session, whenKeyRefused } from "./api.js";
import { ask, closeSource, hideAlert, listThreads, newThread, openThread, showAlert } from "./chat.js";
import { extractFields, listDocuments, uploadAndIngest } from "./documents.js";
import { clear, el } from "./render.js";

const $ = (id) => document.getElementById(id);
const SEARCH_AFTER_MS = 300; // the pause in typing after which the documents are searched
const SCOPE = "ragent.scope";

function show(view) {
  for (const name of ["chat", "documents"]) {
    $(name).hidden = name !== view;
    $(`tab-${name}`).setAttribute("aria-pressed", String(name === view));
  }
  if (view === "documents") listDocuments();
}

function chooseScope(scope) {
  session.scope = scope;
  sessionStorage.setItem(SCOPE, scope);
  newThread();
  listThreads().catch(showAlert);
  if (!$("documents").hidden) listDocuments();
}

async function signIn(key) {
  hideAlert();
  keepKey(key);
  try {
    session.me = await call("GET", "/web/api/whoami");
  } catch (error) {
    forgetKey();
    showAlert(error);
    return false;
  }
  const me = session.me;
  const offered = me.scopes;
  const kept = sessionStorage.getItem(SCOPE);
  const select = clear($("scope"));
  select.append(...offered.map((s) => el("option", { value: s }, s)));
  $("scope-other").hidden = !me.every_scope;
  const start = kept && (me.every_scope || offered.includes(kept)) ? kept : me.default_scope || offered[0];
  if (!offered.includes(start)) select.append(el("option", { value: start }, start));
  select.value = start;
  $("who-name").textContent = `Signed in as ${me.identity}${me.may_ingest ? " (may add documents)" : ""}`;
  $("sign-in").hidden = true;
  $("who").hidden = false;
  $("tabs").hidden = false;
  session.scope = start;
  show("chat");
  await listThreads().catch(showAlert);
  const linked = /^#thread=([0-9a-f-]+)$/.exec(location.hash);
  if (linked) await openThread(linked[1]);
  else newThread();
  return true;
}

// The server no longer accepts the key (api.js has forgotten it): back to the sign-in form, saying why. The thread
// in the address stays, to open again once signed in.
function keyRefused() {
  for (const id of ["who", "tabs", "chat", "documents"]) $(id).hidden = true;
  $("sign-in").hidden = false;
  showAlert(KEY_REFUSED);
  $("api-key").focus();
}

function signOut() {
  forgetKey();
  sessionStorage.removeItem(SCOPE);
  location.hash = "";
  location.reload();
}

function wire() {
  $("sign-in-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = $("api-key");
    if (await signIn(input.value.trim())) input.value = "";
    else input.focus();
  });
  $("sign-out").addEventListener("click", signOut);
  $("tab-chat").addEventListener("click", () => show("chat"));
  $("tab-documents").addEventListener("click", () => show("documents"));
  $("scope").addEventListener("change", (event) => chooseScope(event.target.value));
  $("scope-other").addEventListener("change", (event) => {
    const scope = event.target.value.trim();
    if (!scope) return;
    if (![...$("scope").options].some((o) => o.value === scope)) $("scope").append(el("option", { value: scope }, scope));
    $("scope").value = scope;
    chooseScope(scope);
  });
  $("new-thread").addEventListener("click", newThread);
  $("ask-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const question = $("question").value.trim();
    if (!question) return;
    $("question").value = "";
    await ask(question);
  });
  $("question").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      $("ask-form").requestSubmit();
    }
  });
  $("source-close").addEventListener("click", closeSource);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !$("source").hidden) closeSource();
  });
  $("doc-search").addEventListener("submit", (event) => {
    event.preventDefault();
    listDocuments();
  });
  let typing;
  $("doc-filter").addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(listDocuments, SEARCH_AFTER_MS);
  });
  $("upload-form").addEventListener("submit", (event) => {
    event.preventDefault();
    uploadAndIngest();
  });
  $("extract-form").addEventListener("submit", (event) => {
    event.preventDefault();
    extractFields();
  });
}

wire();
whenKeyRefused(keyRefused);
if (session.key) signIn(session.key);
