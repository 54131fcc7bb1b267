"""The deterministic extraction rules shipped for the buckets every database has, by bucket and field name: one
module per family of documents, each exporting `RULES` (field name -> `FieldRule`)."""

from __future__ import annotations

from retrievers.extraction.found import FieldRule

RULES: dict[str, dict[str, FieldRule]] = {}

RULES_VERSION = "1"
"""Bumped whenever a rule finds differently, so that `ragent extract` reads every document again."""
