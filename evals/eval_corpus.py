"""The corpus an eval is judged against: the datasets its questions name, ingested into a data folder of their own.

Expected answers are computed from the labels of exactly those datasets (a count of Delaware contracts changes
when other contracts are added), so each combination of datasets gets its own folder under
`$RAGENT_HOME/eval/`, and the user's own documents never leak into a score. Unchanged documents are skipped,
so a second run ingests nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from core.errors import InvalidInput
from core.settings import Settings
from graph.services import AgentServices
from retrievers import loaders
from retrievers.ingestion.pipeline import Ingestor
from retrievers.stack import Stack, open_stack


def eval_home(datasets: set[str]) -> Path:
    return Settings.from_env().home / "eval" / "+".join(sorted(datasets))


def eval_settings(home: Path) -> Settings:
    return replace(Settings.from_env(), home=home.resolve())


def open_eval_stack(home: Path) -> Stack:
    return open_stack(eval_settings(home))


@contextmanager
def eval_services(home: Path) -> Iterator[AgentServices]:
    """Agent services on the engines of `home` (the chat model from the environment), closed when the block ends."""
    with AgentServices.from_env(eval_settings(home)) as services:
        yield services


def check_datasets(datasets: set[str]) -> None:
    unknown = datasets - set(loaders.DATASETS)
    if unknown:
        raise InvalidInput(f"unknown dataset(s) {sorted(unknown)}; known: {sorted(loaders.DATASETS)}")


def ingest_datasets(stack: Stack, datasets: set[str]) -> None:
    check_datasets(datasets)
    for name in sorted(datasets):
        path = loaders.dataset_path(name)
        if path is not None and not path.is_dir():
            raise InvalidInput(
                f"dataset {name} needs {path}, which is missing "
                "(set RAGENT_SHARED_DATA to the folder holding the shared datasets)"
            )
        print(f"== {name}: ingesting (unchanged documents are skipped)", flush=True)
        print(
            Ingestor(stack).ingest(loaders.DATASETS[name].load(path), field_specs=loaders.field_specs(name)).summary(),
            flush=True,
        )
