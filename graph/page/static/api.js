// The LangGraph API as the SDK calls it: JSON over fetch with the key in x-api-key, runs streamed as server-sent
// events. The key lives in sessionStorage only (this tab, until sign-out, the tab closes, or the server no longer
// accepts it).

import { inPageWords } from "./words.js";

const KEY = "ragent.api-key";

export const session = { key: sessionStorage.getItem(KEY), me: null, scope: null };

export function keepKey(key) {
  session.key = key;
  sessionStorage.setItem(KEY, key);
}

export function forgetKey() {
  session.key = null;
  session.me = null;
  sessionStorage.removeItem(KEY);
}

export const KEY_REFUSED = "This key is no longer accepted; sign in again.";
let keyRefused = () => {};

// `signedOut()` once the server refuses (401) the key the page signed in with (revoked, or the server's keys
// changed): the key is forgotten first, so every call after it fails with KEY_REFUSED too, without being sent.
export function whenKeyRefused(signedOut) {
  keyRefused = signedOut;
}

export class ApiError extends Error {
  constructor(status, detail, message = readable(status, detail)) {
    super(message);
    this.status = status;
  }
}

// A refusal as a person reads it: what happened, then the server's own reason.
function readable(status, detail) {
  const reason = detail ? inPageWords(detail) : "no reason given";
  if (status === 401) return `Sign-in refused: ${reason}`;
  if (status === 403) return `Not allowed: ${reason}`;
  if (status === 404) return `Not found (it may belong to another key or scope): ${reason}`;
  if (status === 409) return `Not possible now: ${reason}`;
  if (status === 422) return `The request was refused: ${reason}`;
  if (status === 0) return `The server cannot be reached: ${reason}`;
  return `The server answered ${status}: ${reason}`;
}

async function detailOf(response) {
  const text = await response.text();
  try {
    const parsed = JSON.parse(text);
    return typeof parsed.detail === "string" ? parsed.detail : parsed.message || text;
  } catch {
    return text.slice(0, 500);
  }
}

function headers(extra = {}) {
  return { "x-api-key": session.key || "", ...extra };
}

async function send(method, path, body, extraHeaders) {
  if (session.key === null) throw new ApiError(401, "", KEY_REFUSED);
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: headers(body === undefined ? extraHeaders : { "content-type": "application/json", ...extraHeaders }),
      body: body === undefined ? undefined : body instanceof Blob ? body : JSON.stringify(body),
    });
  } catch (error) {
    throw new ApiError(0, String(error.message || error));
  }
  if (response.status === 401 && session.me) {
    const detail = await detailOf(response);
    forgetKey();
    keyRefused();
    throw new ApiError(401, detail, KEY_REFUSED);
  }
  if (!response.ok) throw new ApiError(response.status, await detailOf(response));
  return response;
}

export async function call(method, path, body) {
  const response = await send(method, path, body);
  return response.status === 204 ? null : response.json();
}

export async function put(path, blob) {
  return (await send("PUT", path, blob, { "content-type": "application/octet-stream" })).json();
}

// A run's events, in order: {event, data} for each server-sent event of `POST path` (a new run), or of `GET path`
// without a body (joining a run under way).
export async function* stream(path, body) {
  const response = await send(body === undefined ? "GET" : "POST", path, body, { accept: "text/event-stream" });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value.replace(/\r\n/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length) yield { event, data: JSON.parse(data.join("\n")) };
    }
  }
}

// A run that needs no thread of its own (the documents and ingest graphs): its output, or its error thrown.
export async function runOnce(graph, input) {
  const body = { assistant_id: graph, input: { ...input, scope: session.scope }, context: { scope: session.scope } };
  const output = await call("POST", "/runs/wait", body);
  if (output && output.__error__) throw new ApiError(422, output.__error__.message);
  return output;
}

// Fetch `path` with the key and save what it returns as a file.
export async function download(path, fallbackName) {
  const response = await send("GET", path);
  const disposition = response.headers.get("content-disposition") || "";
  const named = /filename="?([^";]+)"?/.exec(disposition);
  const link = document.createElement("a");
  link.href = URL.createObjectURL(await response.blob());
  link.download = named ? named[1] : fallbackName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}
