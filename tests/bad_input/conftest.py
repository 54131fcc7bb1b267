"""What both bad-input modules share: a tool context on the sample corpus, opened after a count of everything
stored (so that a module can prove at its end that no call wrote), and the longest hint a refusal may give."""

from __future__ import annotations

from typing import Any

import pytest

from tools.context import ToolContext

HINT_CHARS_MAX = 2000


def stored(stack) -> dict[str, Any]:
    """What a write would change: rows per table, the buckets, and the chunks each engine holds."""
    return {
        "rows": stack.store.counts(),
        "buckets": stack.store.buckets(),
        "keyword_chunks": stack.keyword.stats()["chunks"],
        "vector_chunks": stack.vectors.stats()["chunks"],
    }


@pytest.fixture(scope="module")
def stored_before(sample_stack):
    return stored(sample_stack)


@pytest.fixture(scope="module")
def context(sample_stack, stored_before):
    """The tool context of a module; when the module's last test is done, nothing any of its calls made was written."""
    ctx = ToolContext(sample_stack)
    yield ctx
    ctx.close()
    assert stored(sample_stack) == stored_before, "a bad-input call wrote to the stores"
