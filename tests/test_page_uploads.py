"""What a scope keeps of the web page's uploads is held to a total (`IngestLimits.uploads_mb`): before, each file had
a limit (50 MB) and the scope none, so a key that may ingest could fill the server's disk one file at a time. The
page's routes are called in process (no server, no browser), as the one local identity of `ragent serve --no-auth`."""

from __future__ import annotations

import asyncio
import uuid

import httpx

from graph.access.auth import NO_AUTH_ENV
from graph.ingest_roots import INGEST_ROOTS_ENV
from graph.page.app import app

KB = 1024


def put(scope: str, batch: str, name: str, size: int) -> httpx.Response:
    async def sent() -> httpx.Response:
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://page") as page:
            return await page.put(f"/web/api/upload/{batch}/{name}?scope={scope}", content=b"x" * size)

    return asyncio.run(sent())


def files(folder) -> set:
    return {path.relative_to(folder) for path in folder.rglob("*")}


def test_an_upload_past_the_scopes_total_is_refused_and_leaves_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGENT_HOME", str(tmp_path))
    monkeypatch.setenv(NO_AUTH_ENV, "1")
    monkeypatch.setenv("RAGENT_INGEST_MAX_UPLOADS_MB", "1")
    monkeypatch.delenv(INGEST_ROOTS_ENV, raising=False)
    inbox = tmp_path / "inbox" / "sample"
    (inbox / "uploaded").mkdir(parents=True)
    (inbox / "uploaded" / "earlier.md").write_bytes(b"x" * 700 * KB)  # a file ingested before, kept
    assert put("sample", uuid.uuid4().hex, "notes/a.md", 200 * KB).status_code == 201
    kept = files(inbox)
    refused = put("sample", uuid.uuid4().hex, "notes/b.md", 200 * KB)
    assert refused.status_code == 413
    assert refused.json()["detail"] == (
        "b.md would take this scope's uploaded files past the 1 MB it may keep (RAGENT_INGEST_MAX_UPLOADS_MB); "
        "it holds 0.9 MB already"
    )
    assert files(inbox) == kept, "nothing of the refused file stays, not even its folders"
    assert put("default", uuid.uuid4().hex, "b.md", 200 * KB).status_code == 201, "another scope has its own total"
