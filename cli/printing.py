"""How `ragent ask` and `ragent resume` show a run, the same for a run in this process and one on a server: the
answer with its sources, a clarification with its options (and the terminal prompt that answers it), and with
`--explain`, how the run read the question and what it did. A server's state arrives as JSON and is read back
into the same models first (`cli.remote`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli.output import print_json, run_record
from core.errors import RagentError
from tools.envelope import MatchedTotal

Reply = dict[str, Any]


def option_reply(option: dict[str, Any]) -> dict[str, Any]:
    """An offered option as the answer that chooses it."""
    return {k: v for k, v in option.items() if k != "label"}


def print_clarification(payload: dict[str, Any], thread: str, server: str | None = None) -> None:
    """The question with its numbered options, and the command that answers it later (on `server` when the run is
    there)."""
    print(f"\nI need your help ({payload['kind']}): {payload['reason']}.")
    if payload.get("error"):
        print(f"  {payload['error']}")
    for a in payload["attempts"]:
        # `total_is_lower_bound` is absent from questions asked before it was recorded
        hits = MatchedTotal(a["total_hits"], a.get("total_is_lower_bound", False)).said
        print(f"  tried {a['tool']} on {a['bucket']} ({a['route']}): {a['status']}, {hits} hit(s)")
    for number, option in enumerate(payload["options"], start=1):
        print(f"  [{number}] {option['label']}")
    on = f" --server {server}" if server else ""
    print(f"thread {thread}; to answer later: ragent resume {thread}{on} --answer N (an option's number, or JSON)")


def print_explanation(values: dict[str, Any]) -> None:
    """How the run read the question and what it did: the decomposition (with the previous question it refines, the
    order, limit, documents and unit it asks for when it does, and the words it could not map with the nearest
    values the index holds), every decision, every tool call, and who composed the answer, with the verdict on
    each of its sentences and how it came about when it was not the first answer tried."""
    d = values["decomposition"]
    print(
        f"\n-- decomposition: intent={d.intent} buckets={d.buckets} constraints="
        + json.dumps([[c.field, c.op, c.value] for c in d.constraints], default=str)
        + f" topic={d.topic_terms}"
        + (f" order_by={d.order_by.field} {d.order_by.direction}" if d.order_by else "")
        + (f" limit={d.limit}" if d.limit is not None else "")
        + (f" doc_ids={d.doc_ids}" if d.doc_ids else "")
        + (f" unit_field={d.unit_field}" if d.unit_field else "")
    )
    if d.follow_up_of:
        print(f"-- follow-up of: {d.follow_up_of!r}")
    for phrase in d.unmapped:
        nearest = ", ".join(f"{c.field} = {c.value!r}" for c in phrase.nearest) or "nothing near"
        print(f"-- unmapped: {phrase.text!r}; nearest: {nearest}")
    for read in getattr(d, "catalog_reads", []):
        where = f" in {read.bucket}" if read.bucket else ""
        filtered = f" where {json.dumps(read.filters, default=str)}" if read.filters else ""
        searches = f"{read.searches} searches, " if read.searches != 1 else ""
        answer = json.dumps(read.answer, default=str)[:160]
        print(
            f"-- catalog read while decomposing: {read.read}{where} {read.words[:80]!r}{filtered} -> {answer} "
            f"({searches}{read.ms} ms)"
        )
    if getattr(d, "reads_unmade", 0):
        print(f"-- catalog reads left unmade (their budget was spent; answers unknown): {d.reads_unmade}")
    for decision in values.get("decisions", []):
        print(f"-- decision: {decision.action}: {decision.reason}")
    for e in values.get("evidence", []):
        print(
            f"-- call {e.step} [{e.route}] {e.call.tool} {json.dumps(e.call.arguments)[:160]} "
            f"-> {e.envelope.status} ({e.envelope.total_said()} hits)"
        )
    for call in values.get("model_calls", []):
        tokens = f"{call.prompt_tokens} prompt + {call.output_tokens} output tokens, " if call.prompt_tokens else ""
        why = f": {call.detail[:160]}" if call.detail else ""
        print(f"-- model call: {call.mode}, {tokens}{call.seconds:.1f} s, {call.outcome}{why}")
    if answer := values.get("answer"):
        print(f"-- answer composed by: {answer.composed_by}")
        for note in answer.notes:
            print(f"-- note: {note}")
        for sentence in answer.sentences:
            cited = ", ".join(dict.fromkeys(c.doc_id for c in sentence.citations)) or "nothing"
            why = f" ({'; '.join(sentence.problems)})" if sentence.problems else ""
            print(f"-- sentence {sentence.verdict}, citing {cited}: {sentence.text[:120]!r}{why}")


def print_answer(values: dict[str, Any], home: Path | None = None) -> None:
    """The answer with its sources. With the data `home` this process runs on, an export is also shown by its full
    path: the answer itself names only the file, as a client of the server must not learn the server's folders."""
    answer = values["answer"]
    print(f"\n{answer.text}")
    if answer.export_path and home is not None:
        print(f"File: {home / answer.export_path}")
    if answer.citations and answer.format != "prose":  # a prose answer ends with its sources already
        print("\nSources: " + ", ".join(sorted({c.annotation_id or c.doc_id for c in answer.citations})))


def terminal_choice(payload: dict[str, Any]) -> dict[str, Any] | None:
    """Ask for an option number on the terminal; empty input leaves the question open."""
    options = payload["options"]
    while True:
        text = input(f"choose 1-{len(options)} (enter to leave it open): ").strip()
        if not text:
            return None
        if text.isdigit() and 1 <= int(text) <= len(options):
            return option_reply(options[int(text) - 1])


def chosen(answer: Any, options: list[dict[str, Any]]) -> Any:
    """An option's number (as the clarification lists them) stands for that option; anything else is the answer
    as given, which the run checks."""
    if isinstance(answer, int) and not isinstance(answer, bool):
        if not 1 <= answer <= len(options):
            raise RagentError(f"--answer {answer}: choose an option from 1 to {len(options)}")
        return option_reply(options[answer - 1])
    return answer


def show_until_settled(
    state: Callable[[], tuple[dict[str, Any], dict[str, Any] | None]],
    go_on: Callable[[Reply], None],
    thread: str,
    *,
    explain: bool,
    ask_human: Callable[[dict[str, Any]], Reply | None] | None,
    as_json: bool = False,
    home: Path | None = None,
    server: str | None = None,
    readable: Callable[[dict[str, Any]], dict[str, Any]] = lambda values: values,
) -> bool:
    """Print the answer, or the clarification (with `explain`, how the run got there either way); with
    `ask_human`, answer it and go on. True when answered. `as_json` prints the run's record as JSON instead, and
    asks nothing (a script answers with `ragent resume`).

    The same for a run in this process and one on a server: `state` reads the thread's values and the clarification
    it waits on (None when it waits for none), `go_on` resumes it with a reply, and `readable` turns the values into
    the models the printers take (a server's arrive as JSON)."""
    while True:
        values, payload = state()
        if as_json:
            print_json(run_record(values, payload, thread))
            return payload is None
        values = readable(values)
        if payload is None:
            print_answer(values, home)
            if explain:
                print_explanation(values)
            return True
        print_clarification(payload, thread, server=server)
        if explain:
            print_explanation(values)
        reply = ask_human(payload) if ask_human else None
        if reply is None:
            return False
        go_on(reply)
