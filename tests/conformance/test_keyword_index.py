"""One suite, run unchanged against every KeywordIndex adapter (see the `keyword_index` fixture)."""

from __future__ import annotations

import pytest

from core.models import IndexedChunk, SearchFilter
from tests.conformance.corpus import FILTERS, bulk_chunks, make_chunks, matches_filter


@pytest.fixture
def loaded_index(keyword_index):
    keyword_index.upsert(make_chunks())
    return keyword_index


@pytest.mark.parametrize("name", sorted(FILTERS))
def test_filters_select_exactly_the_reference_chunks(loaded_index, name):
    f = FILTERS[name]
    expected = {c.chunk_id for c in make_chunks() if matches_filter(c, f) and "Delaware" in c.text}
    hits = loaded_index.search("Delaware", f, limit=50)
    assert {h.chunk_id for h in hits} == expected
    assert loaded_index.count(f) == sum(matches_filter(c, f) for c in make_chunks())


def test_exact_identifier_is_found_and_ranked_first(loaded_index):
    hits = loaded_index.search("INV-2024-0042", SearchFilter(scope="tenant_a"), limit=5)
    assert hits, "an invoice number that appears verbatim must be found"
    assert "INV-2024-0042" in next(c.text for c in make_chunks() if c.chunk_id == hits[0].chunk_id)


def test_query_syntax_characters_are_searched_as_words(loaded_index):
    hits = loaded_index.search(
        'text:"Delaware" AND (laws OR [State]) ~ ^ \\ {', SearchFilter(scope="tenant_a"), limit=50
    )
    texts = {c.chunk_id: c.text for c in make_chunks()}
    assert hits and "laws of the State of Delaware" in texts[hits[0].chunk_id]


def test_stopword_only_query_returns_nothing(loaded_index):
    assert loaded_index.search("the of and", SearchFilter(scope="tenant_a"), limit=10) == []


def test_ranking_prefers_more_matching_terms(loaded_index):
    hits = loaded_index.search("supplier deliver goods purchase order", SearchFilter(scope="tenant_a"), limit=3)
    top = next(c for c in make_chunks() if c.chunk_id == hits[0].chunk_id)
    assert "supplier shall deliver the goods" in top.text
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_limit_is_respected(loaded_index):
    assert len(loaded_index.search("Clause", SearchFilter(scope="tenant_a"), limit=3)) == 3


def test_upsert_of_the_same_chunk_does_not_duplicate(loaded_index):
    loaded_index.upsert(make_chunks()[:4])
    assert loaded_index.count(SearchFilter(scope="tenant_a")) == sum(c.scope == "tenant_a" for c in make_chunks())


def test_delete_document_keeps_only_the_new_version(loaded_index):
    old = [c for c in make_chunks() if c.doc_id == "doc-01" and c.scope == "tenant_a"]
    new = IndexedChunk(
        chunk_id=IndexedChunk.make_id("tenant_a", "doc-01", "v2", 0),
        doc_id="doc-01",
        scope="tenant_a",
        bucket="contracts",
        content_hash="v2",
        ordinal=0,
        title="Document 1",
        text="A rewritten Delaware clause.",
    )
    loaded_index.upsert([new])
    loaded_index.delete_document("tenant_a", "doc-01", keep_hash="v2")
    only_doc = SearchFilter(scope="tenant_a", doc_ids=["doc-01"])
    assert [h.chunk_id for h in loaded_index.search("Delaware clause", only_doc, limit=10)] == [new.chunk_id]
    assert loaded_index.count(only_doc) == 1
    assert old, "the corpus must hold an old version of doc-01 for this test to mean anything"
    loaded_index.delete_document("tenant_a", "doc-01")
    assert loaded_index.count(only_doc) == 0


def test_delete_in_one_scope_leaves_the_other_scope_alone(loaded_index):
    before_b = loaded_index.count(SearchFilter(scope="tenant_b"))
    loaded_index.delete_document("tenant_a", "doc-00")
    assert loaded_index.count(SearchFilter(scope="tenant_b")) == before_b


def test_chunk_ids_are_every_chunk_held_by_scope(loaded_index):
    chunks = make_chunks()
    assert loaded_index.chunk_ids() == {c.chunk_id for c in chunks}
    assert loaded_index.chunk_ids("tenant_b") == {c.chunk_id for c in chunks if c.scope == "tenant_b"}
    assert loaded_index.chunk_ids("nobody") == set()


def test_an_empty_index_holds_no_chunk_ids(keyword_index):
    assert keyword_index.chunk_ids() == set()


def test_delete_chunks_removes_exactly_those_and_ignores_unknown_ids(loaded_index):
    chunks = make_chunks()
    gone = [c for c in chunks if "Delaware" in c.text and c.scope == "tenant_a"][:2]
    loaded_index.delete_chunks(
        [c.chunk_id for c in gone] + [IndexedChunk.make_id("tenant_a", "never-indexed", "v1", 0)]
    )
    loaded_index.delete_chunks([])
    assert loaded_index.chunk_ids() == {c.chunk_id for c in chunks} - {c.chunk_id for c in gone}
    assert not {h.chunk_id for h in loaded_index.search("Delaware", SearchFilter(scope="tenant_a"), limit=50)} & {
        c.chunk_id for c in gone
    }
    assert loaded_index.count(SearchFilter(scope="tenant_a")) == sum(c.scope == "tenant_a" for c in chunks) - len(gone)


def test_enumeration_and_deletion_page_through_thousands_of_chunks(keyword_index):
    bulk = bulk_chunks(2500)
    keyword_index.upsert(bulk)
    assert keyword_index.chunk_ids("bulk") == {c.chunk_id for c in bulk}
    keyword_index.delete_chunks([c.chunk_id for c in bulk[:2100]])
    assert keyword_index.chunk_ids() == {c.chunk_id for c in bulk[2100:]}


def test_a_busy_tantivy_writer_is_waited_for_then_reported(tmp_path, monkeypatch):
    from core.errors import BackendUnavailable
    from retrievers.engines.keyword import tantivy_index

    first = tantivy_index.TantivyKeywordIndex(tmp_path / "kw")
    held = first._index.writer(64_000_000, 1)
    monkeypatch.setattr(tantivy_index, "_WRITER_WAIT_S", 0.5)
    second = tantivy_index.TantivyKeywordIndex(tmp_path / "kw")
    with pytest.raises(BackendUnavailable, match="being written by another process"):
        second.upsert(make_chunks()[:1])
    held.rollback()
    del held
    second.upsert(make_chunks()[:1])
    assert second.count(SearchFilter(scope=make_chunks()[0].scope)) == 1


@pytest.mark.parametrize("name", sorted(FILTERS))
def test_count_with_a_query_counts_every_match_not_just_the_top(loaded_index, name):
    f = FILTERS[name]
    assert loaded_index.count(f, "Delaware thirty") == len(loaded_index.search("Delaware thirty", f, limit=100))
    assert loaded_index.count(f, "the of") == 0
