"""A chat-completions endpoint on a local port, speaking the OpenAI wire format (JSON, and server-sent events when
the client streams), for a server process that takes its chat model from OPENAI_BASE_URL.

It behaves like a model that only writes answers: a request for structured output (tools or a response format,
as the planner's modes send) is refused with a 400, so the planner's rules take those modes; an answer request
is answered from the evidence the prompt lists, quoting the first sentence of item [1] and citing it, streamed
word by word. `requests` records what it was asked, for the test to count.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FIRST_ITEM = re.compile(r"^\[1\] [^:]*: (?P<text>.+?)$", re.MULTILINE)


def answer_from(prompt: str) -> str:
    item = FIRST_ITEM.search(prompt)
    if not item:
        return "NO ANSWER"
    first_sentence = re.split(r"(?<=[.!?])\s", item.group("text").strip("… "))[0].rstrip(".")
    return f"{first_sentence} [1]."


class ChatEndpoint:
    def __init__(self):
        self.requests: list[dict] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                endpoint.requests.append(body)
                if body.get("tools") or body.get("response_format"):
                    self._json(400, {"error": {"message": "this model writes answers only", "type": "invalid"}})
                    return
                text = answer_from(body["messages"][-1]["content"])
                if body.get("stream"):
                    self._stream(text)
                else:
                    message = {"role": "assistant", "content": text}
                    self._json(200, {**_head("chat.completion"), "choices": [_choice(message=message)]})

            def _json(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, text: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                words = re.findall(r"\S+\s*", text)
                chunks = [_choice(delta={"role": "assistant", "content": ""})]
                chunks += [_choice(delta={"content": w}) for w in words] + [_choice(delta={}, finish_reason="stop")]
                for choice in chunks:
                    event = {**_head("chat.completion.chunk"), "choices": [choice]}
                    self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def answer_requests(self) -> list[dict]:
        return [r for r in self.requests if not (r.get("tools") or r.get("response_format"))]

    def __enter__(self) -> ChatEndpoint:
        self.thread.start()
        return self

    def __exit__(self, *_) -> None:
        self.server.shutdown()
        self.server.server_close()


def _head(kind: str) -> dict:
    return {"id": "chatcmpl-test", "object": kind, "created": 0, "model": "test-model"}


def _choice(*, message: dict | None = None, delta: dict | None = None, finish_reason: str | None = None) -> dict:
    choice: dict = {"index": 0, "finish_reason": finish_reason or ("stop" if message else None)}
    return choice | ({"message": message} if message else {"delta": delta})
