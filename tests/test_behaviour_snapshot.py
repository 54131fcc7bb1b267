"""Comparing two behaviour snapshots: a changed answer or reading is named with its field; a field the code before
did not record can be left out of the comparison."""

from __future__ import annotations

import json

from evals.behaviour_snapshot import compare


def _write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_a_changed_field_is_named_and_an_ignored_one_is_not(tmp_path, capsys):
    base = {"set": "dev", "answer_text": "**3**", "decomposition": {"intent": "count"}}
    _write(tmp_path / "before.jsonl", [{**base, "id": "q1"}, {**base, "id": "q2"}])
    _write(
        tmp_path / "after.jsonl",
        [
            {**base, "id": "q1", "decomposition": {"intent": "count", "catalog_reads": []}},
            {**base, "id": "q2", "decomposition": {"intent": "list"}},
        ],
    )
    assert compare(tmp_path / "before.jsonl", tmp_path / "after.jsonl") == 2
    assert "dev q1: decomposition.catalog_reads" in capsys.readouterr().out
    assert compare(tmp_path / "before.jsonl", tmp_path / "after.jsonl", ("decomposition.catalog_reads",)) == 1
    assert capsys.readouterr().out.splitlines() == ["dev q2: decomposition.intent", "1 of 2 records identical"]


def test_a_question_only_one_snapshot_has_differs(tmp_path):
    _write(tmp_path / "before.jsonl", [{"set": "dev", "id": "q1", "value": 1}])
    _write(tmp_path / "after.jsonl", [])
    assert compare(tmp_path / "before.jsonl", tmp_path / "after.jsonl") == 1
