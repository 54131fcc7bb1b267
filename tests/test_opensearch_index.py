"""What the OpenSearch adapter does beyond the shared KeywordIndex conformance suite: its mapping and its errors."""

from __future__ import annotations

import dataclasses
import time

import pytest
from opensearchpy import OpenSearch

from core.errors import BackendUnavailable, InvalidInput
from core.models import SearchFilter
from retrievers.engines.keyword.opensearch_index import OpenSearchKeywordIndex
from tests.conformance.corpus import make_chunks

KEYWORD_FIELDS = ("chunk_id", "doc_id", "doc_key", "scope", "bucket", "author", "tags", "content_hash")


@pytest.fixture
def client(osmem_clone):
    client = OpenSearch(hosts=[osmem_clone.url])
    yield client
    client.close()


def test_the_index_is_created_with_the_explicit_mapping(osmem_clone, client):
    OpenSearchKeywordIndex.from_url(osmem_clone.url, index="chunks-under-test").close()
    mappings = client.indices.get_mapping(index="chunks-under-test")["chunks-under-test"]["mappings"]
    properties = mappings["properties"]
    assert mappings["dynamic"] == "strict"
    assert all(properties[name] == {"type": "keyword"} for name in KEYWORD_FIELDS)
    assert properties["text"] == properties["title"] == {"type": "text", "analyzer": "english"}
    assert properties["created_ts"] == {"type": "long"}
    assert properties["ordinal"] == {"type": "integer"}


def test_opening_an_existing_index_again_keeps_its_data_and_mapping(osmem_clone, client):
    first = OpenSearchKeywordIndex.from_url(osmem_clone.url)
    first.upsert(make_chunks())
    mapping_before = client.indices.get_mapping(index=first.index)
    second = OpenSearchKeywordIndex.from_url(osmem_clone.url)
    assert second.count(SearchFilter(scope="tenant_a")) == sum(c.scope == "tenant_a" for c in make_chunks())
    assert client.indices.get_mapping(index=first.index) == mapping_before
    assert second.stats()["chunks"] == len(make_chunks())


def test_an_index_with_another_mapping_is_refused_with_its_name(osmem_clone, client):
    client.index(index="dynamic-chunks", id="1", body={"text": "hello", "scope": "tenant_a"}, refresh=True)
    with pytest.raises(InvalidInput, match="'dynamic-chunks'.*another mapping"):
        OpenSearchKeywordIndex.from_url(osmem_clone.url, index="dynamic-chunks")


def test_a_chunk_the_mapping_rejects_fails_the_upsert_loudly(osmem_clone):
    index = OpenSearchKeywordIndex.from_url(osmem_clone.url)
    bad = dataclasses.replace(make_chunks()[0], chunk_id="bad-chunk", created_ts="not a number")
    with pytest.raises(InvalidInput, match="refused 1 of 2 chunks.*bad-chunk.*mapper_parsing_exception"):
        index.upsert([make_chunks()[1], bad])


@pytest.mark.parametrize("url", ["http://127.0.0.1:9", "http://user:secret@127.0.0.1:9"])
def test_an_unreachable_server_fails_fast_with_the_url_and_what_to_do(url):
    started = time.monotonic()
    with pytest.raises(BackendUnavailable) as raised:
        OpenSearchKeywordIndex.from_url(url, timeout=2)
    message = str(raised.value)
    assert time.monotonic() - started < 5
    assert "127.0.0.1:9" in message and "unreachable" in message and "OPENSEARCH_URL" in message
    assert "secret" not in message and "\n" not in message
