"""Keyword (BM25) index on OpenSearch (`OPENSEARCH_URL`): the production backend that scales out.

The mapping is explicit and strict, so that the filter fields are exact-match `keyword`s and the text is
analysed much as the embedded Tantivy index analyses it (lowercase, English stopwords, stemming); dynamic
mapping would turn the filters into analysed text and make them silently wrong. The query text goes into a
`multi_match`, never into query-string syntax, so that quotes, colons or brackets in user text are searched
as words. Filters run in `filter` context: they restrict the match set without changing the BM25 ranking.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from opensearchpy import OpenSearch, helpers
from opensearchpy.exceptions import ConnectionError as ConnectionFailed
from opensearchpy.exceptions import ConnectionTimeout, RequestError, TransportError
from opensearchpy.helpers import BulkIndexError

from core.errors import BackendUnavailable, InvalidInput, RagentError
from core.models import EngineHit, IndexedChunk, SearchFilter, scoped_doc_key

DEFAULT_INDEX = "ragent-chunks"
# Chunk ids per request when enumerating (search_after pages) or deleting by id.
ID_PAGE = 1000
_TEXT = {"type": "text", "analyzer": "english"}
_KEYWORD = {"type": "keyword"}
PROPERTIES: dict[str, dict[str, str]] = {
    "text": _TEXT,
    "title": _TEXT,
    **{
        name: _KEYWORD
        for name in ("chunk_id", "doc_id", "doc_key", "scope", "bucket", "author", "tags", "content_hash")
    },
    "created_ts": {"type": "long"},
    "ordinal": {"type": "integer"},
}


def _query(text: str | None, filters: SearchFilter) -> dict[str, Any]:
    """The text (if any) as a multi_match scored per term by its best field, and the filters in filter context."""
    must = (
        [{"multi_match": {"query": text, "fields": ["text", "title"], "type": "cross_fields", "tie_breaker": 0.3}}]
        if text
        else []
    )
    return {"bool": {"must": must, "filter": _filter_clauses(filters)}}


def _without_password(url: str) -> str:
    """The URL as it may appear in an error message: a password in OPENSEARCH_URL is not echoed."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{parts.netloc.rsplit('@', 1)[1]}"))


def _root_cause(exc: ConnectionFailed) -> str:
    """The cause in a few words ("Connection refused"), not urllib3's nested repr."""
    if isinstance(exc, ConnectionTimeout):
        return "timed out"
    error: BaseException | None = exc
    while error is not None:
        if isinstance(error, OSError) and error.strerror:
            return error.strerror
        error = error.__cause__ or error.__context__
    return str(exc.info).rsplit(": ", 1)[-1]


class OpenSearchKeywordIndex:
    """BM25 over chunk text and titles in one OpenSearch index, with every `SearchFilter` field as a filter.

    `from_url` is the usual way in; the constructor takes a ready client for deployments a URL cannot
    describe (AWS request signing, client certificates). Opening creates the index, or checks the mapping
    of an existing one, so a wrong URL or a foreign index fails here rather than at the first search.
    """

    def __init__(self, client: OpenSearch, *, index: str = DEFAULT_INDEX, where: str = "OpenSearch"):
        self.client = client
        self.index = index
        self.where = where
        with self._reaching():
            try:
                self._ensure_index()
            except TransportError as exc:  # an HTTP answer that is not OpenSearch's: wrong URL, credentials or name
                if isinstance(exc, ConnectionFailed):
                    raise
                raise BackendUnavailable(
                    f"{where} answered HTTP {exc.status_code}{f' ({exc.error})' if exc.error else ''} when opening "
                    f"index {index!r}; check OPENSEARCH_URL, its credentials and the index name"
                ) from None

    @classmethod
    def from_url(cls, url: str, *, index: str = DEFAULT_INDEX, timeout: float = 10.0) -> OpenSearchKeywordIndex:
        """A client with a short timeout and one retry, so that an unreachable server fails fast, never hangs."""
        client = OpenSearch(hosts=[url], timeout=timeout, max_retries=1, retry_on_timeout=False)
        return cls(client, index=index, where=f"OpenSearch at {_without_password(url)}")

    def _ensure_index(self) -> None:
        if not self.client.indices.exists(index=self.index):
            try:
                self.client.indices.create(
                    index=self.index, body={"mappings": {"dynamic": "strict", "properties": PROPERTIES}}
                )
                return
            except RequestError as exc:  # another process created it between the two calls
                if exc.error != "resource_already_exists_exception":
                    raise
        for mapping in self.client.indices.get_mapping(index=self.index).values():
            actual = mapping["mappings"].get("properties", {})
            wrong = [name for name, spec in PROPERTIES.items() if actual.get(name) != spec]
            if wrong:
                raise InvalidInput(
                    f"{self.where}: index {self.index!r} exists with another mapping for {', '.join(wrong)}; "
                    "delete it or use another index name (OPENSEARCH_INDEX)"
                )

    # -- writing -------------------------------------------------------------------------------------

    def upsert(self, chunks: Sequence[IndexedChunk]) -> None:
        """Index by chunk_id (so a re-upsert replaces), then refresh once so the whole batch is searchable."""
        if not chunks:
            return
        actions = ({"_index": self.index, "_id": c.chunk_id, "_source": _source(c)} for c in chunks)
        with self._reaching():
            try:
                helpers.bulk(self.client, actions, max_retries=2)
            except BulkIndexError as exc:
                raise self._rejected(exc.errors, len(chunks)) from None
            self.client.indices.refresh(index=self.index)

    def delete_document(self, scope: str, doc_id: str, keep_hash: str | None = None) -> None:
        query: dict[str, Any] = {"filter": [{"term": {"doc_key": scoped_doc_key(scope, doc_id)}}]}
        if keep_hash is not None:
            query["must_not"] = [{"term": {"content_hash": keep_hash}}]
        self._delete_where({"bool": query}, f"every chunk of {doc_id!r}")

    def delete_chunks(self, chunk_ids: Sequence[str]) -> None:
        for start in range(0, len(chunk_ids), ID_PAGE):
            page = list(chunk_ids[start : start + ID_PAGE])
            self._delete_where({"ids": {"values": page}}, f"{len(page)} chunks by id")

    def _delete_where(self, query: dict[str, Any], what: str) -> None:
        """Delete what `query` matches, refreshed so that the next search no longer sees it."""
        with self._reaching():
            result = self.client.delete_by_query(
                index=self.index, body={"query": query}, refresh=True, conflicts="proceed"
            )
        if result.get("failures"):
            raise RagentError(
                f"{self.where}: could not delete {what} from index {self.index!r} "
                f"({result['failures'][0].get('cause', result['failures'][0])}); run the delete again"
            )

    def _rejected(self, errors: list[dict[str, Any]], total: int) -> RagentError:
        """One readable error for the items a bulk request refused; says whether retrying can help."""
        items = [next(iter(error.values())) for error in errors]
        first = items[0]
        reason = first.get("error", {})
        if isinstance(reason, dict):
            reason = f"{reason.get('type')}: {reason.get('reason')}"
        message = (
            f"{self.where}: index {self.index!r} refused {len(items)} of {total} chunks "
            f"(first: chunk {first.get('_id')}, status {first.get('status')}, {reason})"
        )
        if any(item.get("status", 0) >= 429 for item in items):
            return BackendUnavailable(message + "; the server is overloaded or failing, retry later")
        return InvalidInput(message + "; the chunks do not fit the index mapping")

    # -- reading -------------------------------------------------------------------------------------

    def search(self, query: str, filters: SearchFilter, limit: int) -> list[EngineHit]:
        if limit <= 0:
            return []
        body = {"size": limit, "_source": ["doc_id"], "track_total_hits": False, "query": _query(query, filters)}
        with self._reaching():
            result = self.client.search(index=self.index, body=body)
        return [
            EngineHit(chunk_id=hit["_id"], doc_id=hit["_source"]["doc_id"], score=float(hit["_score"]))
            for hit in result["hits"]["hits"]
        ]

    def chunk_ids(self, scope: str | None = None) -> set[str]:
        """Pages of ids sorted by chunk_id (`search_after`, no `_source`): no scroll context to keep alive or clear,
        and no 10,000-hit window; one request per ID_PAGE chunks."""
        body: dict[str, Any] = {
            "size": ID_PAGE,
            "_source": False,
            "track_total_hits": False,
            "sort": [{"chunk_id": "asc"}],
            "query": {"bool": {"filter": [{"term": {"scope": scope}}]}} if scope is not None else {"match_all": {}},
        }
        ids: set[str] = set()
        while True:
            with self._reaching():
                hits = self.client.search(index=self.index, body=body)["hits"]["hits"]
            ids.update(hit["_id"] for hit in hits)
            if len(hits) < ID_PAGE:
                return ids
            body["search_after"] = hits[-1]["sort"]

    def count(self, filters: SearchFilter, query: str | None = None) -> int:
        with self._reaching():
            result = self.client.count(index=self.index, body={"query": _query(query, filters)})
        return int(result["count"])

    def stats(self) -> dict[str, Any]:
        with self._reaching():
            chunks = self.client.count(index=self.index)["count"]
            store = self.client.indices.stats(index=self.index, metric="store")["_all"]["primaries"]["store"]
        return {
            "engine": "opensearch",
            "index": self.index,
            "chunks": int(chunks),
            "bytes_on_disk": store["size_in_bytes"],
        }

    def close(self) -> None:
        self.client.close()

    @contextmanager
    def _reaching(self) -> Iterator[None]:
        """Turn a transport failure into the one-line `BackendUnavailable` a user can act on."""
        try:
            yield
        except ConnectionFailed as exc:
            raise BackendUnavailable(
                f"{self.where} is unreachable ({_root_cause(exc)}); "
                "start it or unset OPENSEARCH_URL to use the embedded Tantivy index"
            ) from None


def _source(chunk: IndexedChunk) -> dict[str, Any]:
    return {
        "chunk_id": chunk.chunk_id,
        "doc_id": chunk.doc_id,
        "doc_key": scoped_doc_key(chunk.scope, chunk.doc_id),
        "scope": chunk.scope,
        "bucket": chunk.bucket,
        "content_hash": chunk.content_hash,
        "ordinal": chunk.ordinal,
        "title": chunk.title,
        "text": chunk.text,
        "author": chunk.author,
        "tags": list(chunk.tags),
        "created_ts": chunk.created_ts,
    }


def _filter_clauses(f: SearchFilter) -> list[dict[str, Any]]:
    """Every SearchFilter field as a filter clause: scope always, tags all-of, doc ids and authors any-of."""
    clauses: list[dict[str, Any]] = [{"term": {"scope": f.scope}}]
    if f.bucket is not None:
        clauses.append({"term": {"bucket": f.bucket}})
    if f.doc_ids is not None:
        clauses.append({"terms": {"doc_id": list(f.doc_ids)}})
    if f.authors is not None:
        clauses.append({"terms": {"author": list(f.authors)}})
    clauses += [{"term": {"tags": tag}} for tag in f.tags or []]
    bounds = {op: ts for op, ts in (("gte", f.created_after_ts), ("lte", f.created_before_ts)) if ts is not None}
    if bounds:
        clauses.append({"range": {"created_ts": bounds}})
    return clauses
