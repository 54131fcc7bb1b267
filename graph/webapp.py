"""What the project adds to the LangGraph server's HTTP surface (`http.app` in `langgraph.json`).

A run that resumes a thread which is not waiting for an answer (`command.resume` on a thread whose last run
finished) runs nothing in LangGraph and returns the thread's old state, so a client that resumed too late, or
twice, would take an old answer for the reply to its own. Such a run is refused with 409 and the reason. The check
is an ASGI middleware (LangGraph applies a custom app's middleware to its own routes too) that reads the run's
body, asks the server itself for the thread's status, and hands the body on unchanged.
"""

from __future__ import annotations

import json
import re
from typing import Any

from langgraph_sdk import get_client
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

RUN_ROUTE = re.compile(r"^/threads/(?P<thread>[^/]+)/runs(?:/wait|/stream)?/?$")
BODY_CHECKED_BYTES = 2 * 1024 * 1024
"""Bodies larger than this are not read here; the server's own limit (1 MiB, `HTTP_MAX_REQUEST_BODY_BYTES`)
refuses them."""


def resumes(body: bytes) -> bool:
    try:
        payload: Any = json.loads(body)
    except (ValueError, RecursionError):
        return False
    command = payload.get("command") if isinstance(payload, dict) else None
    return isinstance(command, dict) and command.get("resume") is not None


class RefuseResumingAnIdleThread:
    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = (
            RUN_ROUTE.match(scope.get("path", "")) if scope["type"] == "http" and scope["method"] == "POST" else None
        )
        if route is None:
            await self.app(scope, receive, send)
            return
        messages, body = [], b""
        while True:
            message = await receive()
            messages.append(message)
            body += message.get("body", b"")
            if not message.get("more_body") or len(body) > BODY_CHECKED_BYTES:
                break

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        thread = route["thread"]
        if len(body) <= BODY_CHECKED_BYTES and resumes(body):
            status = await _status(thread, scope)
            if status is not None and status != "interrupted":
                reason = (
                    f"thread {thread} is not waiting for an answer (its status is {status}); "
                    "ask a new question with an input instead of resuming"
                )
                await JSONResponse({"detail": reason}, status_code=409)(scope, replay, send)
                return
        await self.app(scope, replay, send)


async def _status(thread: str, scope: Scope) -> str | None:
    """The thread's status as the server reports it to this request's caller (its own credentials are passed on),
    or None when the server does not report one (the run's own handling then answers, e.g. 404)."""
    headers = {k.decode(): v.decode() for k, v in scope.get("headers", []) if k.lower() == b"authorization"}
    try:
        found = await get_client(api_key=None, headers=headers).threads.get(thread)
    except Exception:  # not found, not allowed, malformed id: the server's own route says which
        return None
    return found.get("status")


app = Starlette(middleware=[Middleware(RefuseResumingAnIdleThread)])
