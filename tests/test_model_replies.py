"""What a small model writes, read as it means it (a tool call written as JSON text, a predicate given as a bare
value), the terminal's word that a question waits on the model, and the model bench's table. No engines, no
model."""

from __future__ import annotations

import io
import json
import uuid

from langchain_core.messages import AIMessage
from pydantic import TypeAdapter

from cli.progress import ModelProgress
from graph.single_loop.replies import decision_of, with_calls_written_as_text
from tools.arguments import Predicates

NAMES = {"annotations_aggregate", "search_text", "decide"}


def test_a_call_written_as_json_text_is_run_as_the_call():
    written = {"name": "annotations_aggregate", "arguments": {"bucket": "recipes", "aggregate": "count"}}
    reply = with_calls_written_as_text(AIMessage(content=json.dumps(written)), NAMES)
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [(written["name"], written["arguments"])]
    assert decision_of(reply).action == "more" and decision_of(reply).next_calls[0].tool == "annotations_aggregate"


def test_words_or_an_unknown_tool_stay_words_and_end_the_loop():
    for text in ("There are 10 Thai recipes.", json.dumps({"name": "delete_everything", "arguments": {}})):
        reply = with_calls_written_as_text(AIMessage(content=text), NAMES)
        assert reply.tool_calls == [] and decision_of(reply).action == "enough"


def test_a_bare_value_is_an_equality_and_a_bare_list_a_membership():
    said = TypeAdapter(Predicates).validate_python(
        {"cuisine": "Thai", "author": ["Ann", "Bo"], "kcal": {"op": ">", "value": 5}}
    )
    assert {name: (c.op, c.value) for name, c in said.items()} == {
        "cuisine": ("=", "Thai"),
        "author": ("in", ["Ann", "Bo"]),
        "kcal": (">", 5),
    }


def test_the_terminal_is_told_which_step_waits_on_the_model_and_for_how_long():
    out = io.StringIO()
    progress, run = ModelProgress(out), uuid.uuid4()
    progress.on_chat_model_start({}, [], run_id=run, name="model:decompose")
    progress.on_llm_end(None, run_id=run)
    lines = out.getvalue().splitlines()
    assert lines[0] == "… waiting for the chat model (decompose)"
    assert lines[1].startswith("  the chat model answered (decompose) in ") and lines[1].endswith(" s")


def test_the_llm_bench_table_shows_each_configuration_side_by_side():
    from evals.bench_llm import markdown

    rules = {"value_exact (n=21)": 0.429, "count, sum and list wrong and asking nothing (of 36)": 10}
    auto = {**rules, "value_exact (n=21)": 0.81, "model calls per question": 0.67, "model seconds per question": 2.5}
    table = markdown({"summaries": {"rules": rules, "auto, 0.5B": auto}}).splitlines()
    assert table[0] == "| figure | rules | auto, 0.5B |"
    assert "| value_exact | 0.429 | 0.81 |" in table and "| wrong and asking nothing | 10 | 10 |" in table
    assert "| model calls per question |  | 0.67 |" in table
