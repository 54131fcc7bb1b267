"""The page's routes, mounted under /web by the LangGraph server (`http.app` in `langgraph.json`), so `ragent serve`
and a LangGraph deployment serve the same page.

The page's own files are served from `static/` with a Content-Security-Policy that allows scripts, styles and
connections from this origin only (no inline script, no other origin): a document's text the page shows can never
run as code, even if a bug put it into the page as HTML. Everything else the page does goes through the LangGraph
API with the key in `x-api-key`, through the server's custom auth (`graph.access.auth`), as the SDK's calls do.
Three things the API does not offer are here, each behind that same authentication:
- `GET /web/api/whoami`: the key's identity, its scopes (for a key of every scope: the server's default, `default`
  and `sample`, to start from) and whether it may ingest, for the scope chooser;
- `GET /web/api/export/{thread_id}`: the CSV an export answer wrote, read from the thread's state through the API
  with the caller's own key, so only a thread the caller may read gives its file;
- `PUT /web/api/upload/{batch}/{path}?scope=S`: one file of an upload, written under the first ingest root of the
  scope (`inbox/<scope>/uploads/<batch>/<path>`) for a key that may ingest in it; the page then runs the `ingest`
  graph on that folder in that scope, which keeps the files once ingested and deletes them when refused
  (`graph.uploads`); a file is refused (413) past 50 MB, or past what the scope may keep of uploads in all
  (`IngestLimits.uploads_mb`), and nothing of it is left;
- `DELETE /web/api/upload/{batch}?scope=S`: an upload given up before its ingest (a file refused, the connection
  lost), deleted with whatever of it arrived.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path, PurePosixPath
from types import SimpleNamespace

import httpx
from langgraph_sdk import Auth
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from core.scope import DEFAULT_SCOPE, SAMPLE_SCOPE
from core.settings import Settings
from graph.access.auth import authenticate
from graph.access.keys import ANY_SCOPE
from graph.access.tenancy import Identity, ScopeRefused
from graph.uploads import BATCH, STAGED, discard, held_bytes, prune_empty, uploads_inbox

STATIC = Path(__file__).with_name("static")
PAGE_FILES = {path.name: path for path in STATIC.iterdir() if path.is_file()}
MEDIA_TYPES = {".html": "text/html", ".css": "text/css", ".js": "text/javascript", ".svg": "image/svg+xml"}
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "form-action 'none'; base-uri 'none'; frame-ancestors 'none'"
)
PAGE_HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-cache",
}
UPLOAD_MAX_BYTES = 50 * 1024 * 1024
"""One uploaded file at most; larger ones are refused (413) before they fill the disk."""
UPLOAD_DEPTH_MAX = 16


def refusal(status: int, detail: str) -> JSONResponse:
    """An error as the LangGraph API words its own (`{"detail": ...}`), so the page reads both alike."""
    return JSONResponse({"detail": detail}, status_code=status, headers=PAGE_HEADERS)


async def caller(request: Request) -> Identity:
    """The request's identity through the server's own authentication (the key in `x-api-key` or a bearer token);
    raises its 401."""
    headers = {name.encode("latin-1"): value.encode("latin-1") for name, value in request.headers.items()}
    return Identity.of_user(SimpleNamespace(**await authenticate(headers, request.scope)))


def authenticated(
    handler: Callable[[Request, Identity], Awaitable[Response]],
) -> Callable[[Request], Awaitable[Response]]:
    """`handler(request, identity)` for a request the server's authentication lets in; its refusal otherwise."""

    async def checked(request: Request) -> Response:
        try:
            identity = await caller(request)
        except Auth.exceptions.HTTPException as refused:
            return refusal(refused.status_code, refused.detail)
        return await handler(request, identity)

    return checked


def page_file(request: Request) -> Response:
    name = request.path_params.get("name", "index.html")
    path = PAGE_FILES.get(name)
    if path is None:
        return refusal(404, f"the page has no file {name!r}")
    return FileResponse(path, media_type=MEDIA_TYPES.get(path.suffix, "application/octet-stream"), headers=PAGE_HEADERS)


@authenticated
async def whoami(request: Request, identity: Identity) -> Response:
    every = ANY_SCOPE in identity.scopes
    return JSONResponse(
        {
            "identity": identity.name,
            "every_scope": every,
            "scopes": list(dict.fromkeys([identity.default_scope, DEFAULT_SCOPE, SAMPLE_SCOPE]))
            if every
            else list(identity.scopes),
            "default_scope": identity.default_scope,
            "may_ingest": identity.may_ingest,
        },
        headers=PAGE_HEADERS,
    )


@authenticated
async def export(request: Request, identity: Identity) -> Response:
    """The thread's exported CSV. The thread's state is read through the API with the caller's own headers, so the
    server's auth decides whether the caller may read that thread (another identity's gets its 404)."""
    try:
        thread_id = str(uuid.UUID(request.path_params["thread_id"]))
    except ValueError:
        return refusal(422, "a thread is named by the UUID the server gave it")
    forwarded = {k: v for k, v in request.headers.items() if k in ("x-api-key", "authorization")}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=request.app), base_url="http://page") as api:
        state = await api.get(f"/threads/{thread_id}/state", headers=forwarded)
    if state.status_code != 200:
        said = state.json() if state.headers.get("content-type", "").startswith("application/json") else {}
        return refusal(state.status_code, said.get("detail") or "this thread cannot be read")
    answer = (state.json().get("values") or {}).get("answer") or {}
    path = await asyncio.to_thread(exported_file, answer.get("export_path"))
    if path is None:
        return refusal(404, "this thread's answer is not an export (choose 'export' when the agent asks)")
    return FileResponse(path, media_type="text/csv", filename=path.name, headers=PAGE_HEADERS)


def exported_file(export_path: str | None) -> Path | None:
    """The export an answer names, if it is a file in the data home's exports folder."""
    if not export_path:
        return None
    home = Settings.from_env().home.resolve()
    path = (home / export_path).resolve()
    return path if path.is_relative_to(home / "exports") and path.is_file() else None


def upload_target(root: Path, batch: str, relative: str) -> Path:
    """Where one uploaded file goes: `<root>/uploads/<batch>/<relative>`, with `relative` a plain path inside the
    batch (no `..`, no absolute path, no NUL, no backslash); raises ValueError with the reason."""
    if not BATCH.fullmatch(batch):
        raise ValueError("an upload batch is 32 hexadecimal digits")
    parts = PurePosixPath(relative).parts
    if (
        not parts
        or len(parts) > UPLOAD_DEPTH_MAX
        or any(p in ("", ".", "..", "/") or "\x00" in p or "\\" in p or len(p.encode()) > 255 for p in parts)
    ):
        raise ValueError(f"{relative!r} is not a file's path inside an uploaded folder")
    return root / STAGED / batch / Path(*parts)


async def upload_root(request: Request, identity: Identity) -> Path | Response:
    """The first ingest root of the scope the request names, for a key that may ingest there; else the refusal."""
    if not identity.may_ingest:
        return refusal(403, f"{identity.name} may not ingest documents (ask for a key with ingestion allowed)")
    try:
        scope = identity.scope_for(request.query_params.get("scope") or None)
    except ScopeRefused as refused:
        return refusal(403, str(refused))
    return await asyncio.to_thread(uploads_inbox, Settings.from_env().home, scope)


@authenticated
async def upload(request: Request, identity: Identity) -> Response:
    root = await upload_root(request, identity)
    if isinstance(root, Response):
        return root
    try:
        target = upload_target(root, request.path_params["batch"], request.path_params["path"])
    except ValueError as bad:
        return refusal(422, str(bad))
    total_mb = Settings.from_env().ingest_limits.uploads_mb
    held = await asyncio.to_thread(held_bytes, root)
    partial = target.with_name(f".{target.name}.{uuid.uuid4().hex}.part")
    size = 0
    stored = False
    # File calls go to a thread: the server's event loop must not wait on the disk (LangGraph dev refuses it).
    await asyncio.to_thread(target.parent.mkdir, parents=True, exist_ok=True)
    out = await asyncio.to_thread(partial.open, "wb")
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > UPLOAD_MAX_BYTES:
                return refusal(413, f"{target.name} is larger than {UPLOAD_MAX_BYTES // 2**20} MB")
            if held + size > total_mb * 2**20:
                return refusal(413, past_total(target.name, total_mb, held))
            await asyncio.to_thread(out.write, chunk)
        await asyncio.to_thread(out.close)
        await asyncio.to_thread(partial.replace, target)
        stored = True
    finally:
        await asyncio.to_thread(out.close)
        await asyncio.to_thread(partial.unlink, missing_ok=True)
        if not stored:
            await asyncio.to_thread(prune_empty, target.parent, root / STAGED)
    return JSONResponse(
        {"path": target.relative_to(root).as_posix(), "bytes": size}, status_code=201, headers=PAGE_HEADERS
    )


def past_total(name: str, total_mb: int, held: int) -> str:
    return (
        f"{name} would take this scope's uploaded files past the {total_mb:,} MB it may keep "
        f"(RAGENT_INGEST_MAX_UPLOADS_MB); it holds {held / 2**20:,.1f} MB already"
    )


@authenticated
async def give_up_upload(request: Request, identity: Identity) -> Response:
    root = await upload_root(request, identity)
    if isinstance(root, Response):
        return root
    batch = request.path_params["batch"]
    if not BATCH.fullmatch(batch):
        return refusal(422, "an upload batch is 32 hexadecimal digits")
    await asyncio.to_thread(discard, root / STAGED / batch)
    return Response(status_code=204, headers=PAGE_HEADERS)


app = Starlette(
    routes=[
        Route("/web", lambda _: RedirectResponse("/web/", status_code=308)),
        Route("/web/", page_file),
        Route("/web/api/whoami", whoami),
        Route("/web/api/export/{thread_id}", export),
        Route("/web/api/upload/{batch}/{path:path}", upload, methods=["PUT"]),
        Route("/web/api/upload/{batch}", give_up_upload, methods=["DELETE"]),
        Route("/web/{name}", page_file),
    ]
)
