"""The word tables of `english/data`, read once per process: plain TOML, shipped as package data."""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from typing import Any


@cache
def table(name: str) -> dict[str, Any]:
    """`english/data/<name>.toml` as read by tomllib (tables keep the order they are written in)."""
    return tomllib.loads(resources.files("english").joinpath("data", f"{name}.toml").read_text(encoding="utf-8"))
