"""Damaged index files: `ragent check` names the damage, `ragent check --repair` rebuilds the index from Postgres so
that searches answer as before, and the commands that do not need the damaged index keep working meanwhile.

One data folder is built for the module and copied for each damage (the copies share its Postgres database, which
the damage and the repair leave alone)."""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from core.models import SearchFilter
from retrievers.ingestion.consistency import DAMAGED
from retrievers.ingestion.pipeline import Ingestor
from retrievers.search import Retriever
from tests.conftest import fresh_database
from tests.test_cli import ragent
from tests.test_crashes import _documents, _found, opened

SEARCHES = ("governed by the laws of Delaware", "when does the cafeteria close", "invoice payable within thirty days")


def _files(home: Path, pattern: str) -> list[Path]:
    found = sorted(home.glob(pattern))
    assert found, f"no {pattern} in {home}"
    return found


def _truncate(pattern: str, keep: Callable[[int], int]) -> Callable[[Path], None]:
    def damage(home: Path) -> None:
        for path in _files(home, pattern):
            path.write_bytes(path.read_bytes()[: keep(path.stat().st_size)])

    return damage


def _overwrite(pattern: str, with_bytes: Callable[[int], bytes]) -> Callable[[Path], None]:
    """Overwrite the first half of each file (its footer and length stay as they were)."""

    def damage(home: Path) -> None:
        for path in _files(home, pattern):
            with path.open("r+b") as file:
                file.write(with_bytes(path.stat().st_size // 2))

    return damage


def _zero(pattern: str) -> Callable[[Path], None]:
    def damage(home: Path) -> None:
        for path in _files(home, pattern):
            path.write_bytes(bytes(path.stat().st_size))

    return damage


SEGMENTS = "qdrant-edge/shard/segments/*"
DAMAGES: dict[str, tuple[str, Callable[[Path], None]]] = {
    "vector payload file truncated to 0": ("vectors", _truncate(f"{SEGMENTS}/payload_storage/page_0.dat", lambda n: 0)),
    "random bytes in a keyword .store": ("keyword", _overwrite("tantivy/*.store", random.Random(34).randbytes)),
    "keyword .store truncated": ("keyword", _truncate("tantivy/*.store", lambda n: n // 2)),
    "keyword .idx zeroed": ("keyword", _zero("tantivy/*.idx")),
    "vector id mapping zeroed": ("vectors", _zero(f"{SEGMENTS}/mutable_id_tracker.mappings")),
    "vector storage zeroed": ("vectors", _zero(f"{SEGMENTS}/vector_storage/vectors/chunk_*.mmap")),
}


def _searches(stack) -> dict[str, list[tuple[str, float]]]:
    """The hits of each SEARCHES query, by keyword and by meaning: chunk ids and scores."""
    retriever = Retriever(stack)
    return {
        f"{mode} {query}": [(h.chunk_id, round(h.score, 4)) for h in getattr(retriever, mode)(query, SearchFilter(), 5)]
        for mode in ("keyword", "semantic")
        for query in SEARCHES
    }


@pytest.fixture(scope="module")
def built(postgres_url, tmp_path_factory, minilm):
    """The three documents of tests.test_crashes ingested into a data folder no process holds, with their searches."""
    with fresh_database(postgres_url) as database_url:
        home = tmp_path_factory.mktemp("built")
        with opened(database_url, home, minilm) as stack:
            Ingestor(stack).ingest(_documents(), progress=False)
            before = _searches(stack)
        assert all(before.values())
        yield database_url, home, before


@pytest.fixture
def damaged(built, tmp_path, request):
    """A copy of the built folder with one damage applied: (database url, folder, damaged engine, searches before)."""
    database_url, home, before = built
    engine, damage = DAMAGES[request.param]
    copy = shutil.copytree(home, tmp_path / "home")
    damage(copy)
    return database_url, copy, engine, before


def _cli(home: Path, database_url: str, *args: str):
    result = ragent(*args, home=home, DATABASE_URL=database_url)
    assert "Traceback" not in result.stderr, result.stderr
    return result


@pytest.mark.parametrize("damaged", list(DAMAGES), indirect=True)
def test_check_names_the_damage_and_repair_brings_the_searches_back(damaged, minilm):
    database_url, home, engine, before = damaged

    asked = _cli(home, database_url, "ask", "How many contracts are there?", "--json")
    assert asked.returncode == 0, asked.stderr
    answer = json.loads(asked.stdout)
    assert answer["status"] == "answered" and answer["answer"]["value"] == 1, "annotations need no search engine"

    found = _cli(home, database_url, "check")
    assert found.returncode == 1, found.stdout + found.stderr
    assert _found(found.stdout, engine, DAMAGED) == 1
    assert f"\n{engine}: " in found.stdout and "run `ragent check --repair` to rebuild it" in found.stdout

    repaired = _cli(home, database_url, "check", "--repair")
    assert repaired.returncode == 0 and "the stores agree now" in repaired.stdout, repaired.stdout + repaired.stderr
    assert f"{engine}: rebuilt from Postgres" in repaired.stdout
    with opened(database_url, home, minilm) as stack:
        assert _searches(stack) == before


@pytest.mark.parametrize("damaged", ["keyword .idx zeroed", "vector payload file truncated to 0"], indirect=True)
def test_only_a_search_of_the_damaged_index_fails_and_in_one_line(damaged):
    """At open (the .idx) or at the first read (the payload): the other search, stats and listings still work."""
    database_url, home, engine, _ = damaged
    for mode, index in (("keyword", "keyword"), ("semantic", "vectors")):
        searched = _cli(home, database_url, "search", mode, "Delaware")
        if index != engine:
            assert searched.returncode == 0 and "[contracts] msa" in searched.stdout, searched.stderr
            continue
        lines = searched.stderr.strip().splitlines()
        assert searched.returncode == 2 and len(lines) == 1, searched.stderr
        assert f"the {'keyword' if engine == 'keyword' else 'vector'} index in" in lines[0]
        assert "run `ragent check --repair` to rebuild it from Postgres" in lines[0]

    stats = _cli(home, database_url, "stats")
    assert stats.returncode == 0, stats.stderr
    listed = _cli(home, database_url, "documents", "list", "--json")
    assert listed.returncode == 0 and json.loads(listed.stdout)["total"] == len(_documents()), listed.stderr
