"""A document's control characters reach the terminal as escapes, not as commands to it (outside probe #8)."""

from __future__ import annotations

import io
import json

from cli.terminal import Visible


def test_escape_sequences_and_direction_marks_are_printed_as_escapes_and_json_reads_them_back():
    shown = io.StringIO()
    hostile = "Total\x1b[31m due\x07\b: 100\u202e00 \u200b\r"
    Visible(shown).write(f"{hostile}\tline\r\nnext\n")
    assert shown.getvalue() == "Total\\u001b[31m due\\u0007\\u0008: 100\\u202e00 \\u200b\\u000d\tline\r\nnext\n"
    as_json = io.StringIO()
    Visible(as_json).write(json.dumps({"text": hostile}, ensure_ascii=False))
    assert json.loads(as_json.getvalue()) == {"text": hostile}, "--json output stays exact"
