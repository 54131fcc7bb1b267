"""What the model is told, as TOML beside this file: `planner.toml` (LLMPlanner), `single_loop.toml` (the single-loop
agent) and `tools.toml` (tool descriptions)."""

from __future__ import annotations

import tomllib
from functools import cache
from importlib.resources import files
from typing import Any


@cache
def load(name: str) -> dict[str, Any]:
    """The parsed `prompts/<name>.toml`, read once.

    Read as package data through `importlib.resources` rather than by a path built from `__file__`, so it works
    wherever the package is: an editable checkout, a wheel installed in site-packages, or a zip; the .toml files
    ship in the wheel as package data (`[tool.setuptools.package-data]` in pyproject.toml)."""
    return tomllib.loads(files(__package__).joinpath(f"{name}.toml").read_text(encoding="utf-8"))
