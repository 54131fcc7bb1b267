"""Fixtures that build each engine adapter for the conformance suites, and the shared-data locator."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LANGSMITH_TEST_TRACKING", "false")

SHARED_DATA = Path(os.environ.get("RAGENT_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


def shared_dataset(name: str) -> Path:
    """The path of a dataset under ../shared/data, or a clean skip where this machine does not have it."""
    path = SHARED_DATA / name
    if not path.is_dir():
        pytest.skip(f"{path} is absent on this machine; real-data tests need ../shared/data")
    return path


@pytest.fixture(params=["tantivy"])
def keyword_index(request, tmp_path):
    if request.param == "tantivy":
        from retrievers.tantivy_index import TantivyKeywordIndex

        index = TantivyKeywordIndex(tmp_path / "tantivy")
    yield index
    index.close()
