"""clarify: ask the human (a LangGraph interrupt) and fold the validated answer back into the run.

The node re-runs from its first line when the run resumes, so nothing with side effects happens before
`interrupt`; the export, if chosen, is written after it. On that re-run LangGraph hands every `interrupt` of the
loop the answers given so far, in order: an answer that raised after being accepted would raise again at every
later resume, whatever was answered then. So everything that can be wrong with an answer is checked inside the
loop, and an unusable one is asked again with the reason.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import Command, interrupt
from pydantic import ValidationError

from graph.access.tenancy import may_write
from graph.context import AgentContext
from graph.decomposition import STRUCTURED_INTENTS, Candidate, Constraint, Decomposition, NamedDocument, Several
from graph.export import export_csv
from graph.markdown import escape
from graph.schemas import Answer, ClarifyOption, ClarifyReply
from graph.services import AgentServices
from graph.state import AgentState, budget, current_evidence
from graph.unread_fields import UnreadField, unread_field
from retrievers.extraction.stored import extract_stored
from retrievers.postgres.annotation_filters import compile_predicates
from tools.catalog import Catalog

NARROW_SUGGESTIONS = 3


def _narrow_options(state: AgentState, categorical: set[str]) -> list[ClarifyOption]:
    """The values that split the rows found so far best, on a categorical field (a catalog field with a short
    value list) not yet constrained."""
    taken = {c.field for c in state["decomposition"].constraints}
    counts: dict[str, Counter] = {}
    for g in state.get("graded", []):
        for field, value in (g.row or {}).items():
            if field in categorical and field not in taken and isinstance(value, (str, bool)):
                counts.setdefault(field, Counter())[value] += 1
    if not counts:
        return []
    field = max(counts, key=lambda f: (len(counts[f]) > 1, min(len(counts[f]), 10), sum(counts[f].values())))
    return [
        ClarifyOption(
            choice="narrow",
            label=f"only {field} = {escape(str(value))} ({n} of those shown)",
            field=field,
            op="=",
            value=value,
        )
        for value, n in counts[field].most_common(NARROW_SUGGESTIONS)
    ]


def _meant_options(d: Decomposition) -> list[ClarifyOption]:
    """For words that matched nothing, the nearest values the index holds, each an answer that constrains on it:
    once, for all the words it is nearest to (a clause near "going", "business" and "operating" is one option)."""
    words: dict[tuple[str, str], tuple[Candidate, list[str]]] = {}
    for u in d.unmapped:
        for c in u.nearest:
            words.setdefault((c.field, repr(c.value)), (c, []))[1].append(u.text)
    return [
        ClarifyOption(
            choice="narrow",
            label=f"did you mean {escape(c.said())}? (for {escape(', '.join(texts))})",
            field=c.field,
            op="=",
            value=c.value,
        )
        for c, texts in words.values()
    ]


def _broaden_option(d: Decomposition, scope_buckets: set[str]) -> ClarifyOption | None:
    """Searching the text more widely: without the field constraints, or in every bucket; none for a question for
    text already over every bucket without constraints (the same search again). The text holds passages, not a
    figure, and a question asking for one is told so before it chooses."""
    if not d.constraints and scope_buckets <= set(d.buckets) and d.intent in ("qa", "summarize"):
        return None
    label = "search the text without the field constraints" if d.constraints else "search every bucket"
    if d.intent in ("count", "sum"):
        label += " (passages to read, not a figure)"
    return ClarifyOption(choice="broaden", label=label)


def _unread_options(unread: UnreadField | None, may_extract: bool) -> list[ClarifyOption]:
    """Reading the documents for the field now (for a caller that may ingest), or answering with those that have
    it."""
    if unread is None:
        return []
    have = unread.documents - unread.missing
    options = [ClarifyOption(choice="answer", label=f"answer with the {have} that have {unread.field}")]
    if may_extract:
        label = f"read the {unread.unread} documents for {unread.field} now, then answer"
        options.insert(0, ClarifyOption(choice="extract", label=label, field=unread.field))
    return options


def _which_options(several: Several | None) -> list[ClarifyOption]:
    """The documents a name matches, each an answer that confines the question to it, and all of them."""
    if several is None:
        return []
    options = [
        ClarifyOption(choice="document", label=_document_label(doc), value=doc.doc_id) for doc in several.documents
    ]
    count = f"more than {several.matched}" if several.more else f"all {several.matched}"
    return [*options, ClarifyOption(choice="all", label=f"{count} of them (an answer for each, said to be several)")]


def _document_label(doc: NamedDocument) -> str:
    """A document as the human tells it from the others: its title (or id), and the values that differ."""
    values = "; ".join(f"{field}: {escape(value)}" for field, value in doc.values.items())
    return escape(doc.title or doc.doc_id) + (f" ({values})" if values else "")


def clarification_payload(
    state: AgentState,
    budget_left: int,
    categorical: set[str],
    scope_buckets: set[str],
    unread: UnreadField | None = None,
    may_extract: bool = False,
) -> dict[str, Any]:
    """What the human sees: the kind, what was tried with counts, why, and the options still possible
    (narrowing or broadening needs tool calls left in the run's budget; trying again, when a source failed,
    starts the question afresh with a new budget; reading documents for a field, `unread`, needs the right to
    ingest)."""
    decision = state["decisions"][-1]
    d = state["decomposition"]
    options = _narrow_options(state, categorical) if decision.clarify_kind == "overload" and budget_left > 0 else []
    options += _meant_options(d) if budget_left > 0 else []
    if decision.clarify_kind == "which":
        options += _which_options(d.several)
    elif decision.clarify_kind == "unread":
        options += _unread_options(unread, may_extract and budget_left > 0)
    elif decision.clarify_kind == "overload":
        options.append(ClarifyOption(choice="export", label="export the full result as CSV"))
    elif budget_left > 0 and (broaden := _broaden_option(d, scope_buckets)):
        options.append(broaden)
    failed = sorted({e.call.tool for e in state.get("evidence", []) if e.envelope.failed})
    if failed:
        options.append(ClarifyOption(choice="retry", label=f"try again from the start ({', '.join(failed)} failed)"))
    options.append(ClarifyOption(choice="stop", label="stop here"))
    attempts = [
        {
            "route": e.route,
            "tool": e.call.tool,
            "bucket": e.call.arguments.get("bucket"),
            "status": e.envelope.status,
            "total_hits": e.envelope.total_hits,
            "total_is_lower_bound": e.envelope.total_is_lower_bound,
        }
        for e in state.get("evidence", [])
    ]
    return {
        "kind": decision.clarify_kind,
        "question": state["question"],
        "reason": decision.reason,
        "attempts": attempts,
        "options": [o.model_dump(exclude_none=True) for o in options],
    }


def _reason(error: ValueError) -> str:
    """A refused answer's problem in one line: pydantic's report without its type codes and links."""
    if isinstance(error, ValidationError):
        return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'answer'}: {e['msg']}" for e in error.errors())
    return str(error)


def _narrowing(reply: ClarifyReply, bucket: str, field_types: dict[str, str]) -> Constraint:
    """The constraint a narrow answer adds, checked as annotations_search will check it (a field of the bucket, an
    operator that applies to its type, a value of that type), so that the search cannot refuse it after the
    answer was accepted."""
    if reply.field not in field_types:
        raise ValueError(f"narrow needs a field of {bucket} ({', '.join(sorted(field_types))}) and a value")
    added = Constraint(
        bucket=bucket, field=reply.field, op=reply.op or "=", value=reply.value, source_text="(from the clarification)"
    )
    compile_predicates([added.predicate()], {reply.field: field_types[reply.field]})
    return added


def human_reply(
    state: AgentState, runtime: Runtime[AgentContext], services: AgentServices
) -> tuple[ClarifyReply, Constraint | None]:
    """The human's answer to the run's last decision (a clarify), asked with `interrupt` and validated, with the
    constraint a narrow answer adds: what every agent graph that clarifies asks, so that every client answers it
    the same way. The first thing its node does: nothing before it may have side effects."""
    d = state["decomposition"]
    catalog = services.catalog(runtime.context.scope)
    field_types = {f.name: f.type for f in catalog.fields(d.buckets[0])}
    budget_left = budget(state, runtime.context).left
    unread = unread_field(current_evidence(state), catalog) if state["decisions"][-1].clarify_kind == "unread" else None
    may_extract = may_write(runtime.server_info.user if runtime.server_info else None)  # a local run's has no user
    categorical = {f.name for f in catalog.categorical(d.buckets[0])}
    payload = clarification_payload(state, budget_left, categorical, set(catalog.buckets), unread, may_extract)
    allowed = {o["choice"] for o in payload["options"]} | (
        {"narrow"} if payload["kind"] == "overload" and budget_left > 0 else set()
    )
    problem = None
    while True:
        raw = interrupt(payload | ({"error": problem} if problem else {}))
        try:
            reply = ClarifyReply.model_validate(raw)
            if reply.choice not in allowed:
                raise ValueError(f"{reply.choice!r} is not offered here; choose one of {', '.join(sorted(allowed))}")
            added = _narrowing(reply, d.buckets[0], field_types) if reply.choice == "narrow" else None
            if reply.choice == "extract" and (unread is None or reply.field not in (None, unread.field)):
                raise ValueError(f"extract reads the documents for {unread.field if unread else 'no field'} only")
            if reply.choice == "document" and reply.value not in (offered := _offered_documents(payload)):
                raise ValueError(f"{reply.value!r} is not a document offered here ({', '.join(offered)})")
            return reply, added
        except ValueError as exc:  # pydantic's ValidationError and the catalog's InvalidInput are ValueErrors
            problem = f"that answer cannot be used ({_reason(exc)}); answer with one of the options"


def _offered_documents(payload: dict[str, Any]) -> list[str]:
    return [o["value"] for o in payload["options"] if o["choice"] == "document"]


def closing_answer(reply: ClarifyReply, d: Decomposition, scope: str, services: AgentServices) -> Answer | None:
    """The answer of a reply that ends the run (the export written, or the stop), None for one that goes on."""
    if reply.choice == "export":
        home = services.stack.settings.home
        path, count = export_csv(services.tools.context(scope), d, home / "exports")
        return Answer(
            format="export",
            text=f"Exported all {count} matching rows to {path.name}, in the exports folder of the data home.",
            export_path=path.relative_to(home).as_posix(),
            value=count,
        )
    if reply.choice == "stop":
        return Answer(format="stopped", text="Stopped at your request; nothing more was searched.")
    return None


def answered_reading(
    d: Decomposition, reply: ClarifyReply, added: Constraint | None, catalog: Catalog
) -> Decomposition:
    """The question as a narrow, broaden or which answer leaves it: with the constraint added, searched in the text
    (without the constraints, or in every bucket of the scope when there were none), confined to the document
    chosen (`confined`), or, for all of them, as it was read (its answer says they are several)."""
    if reply.choice == "document":
        return confined(d, reply.value)
    if reply.choice == "all":
        return d
    if reply.choice == "narrow":
        return d.model_copy(update={"constraints": [*d.constraints, added], "unmapped": []})
    return d.model_copy(
        update={
            "constraints": [],
            "unmapped": [],
            "intent": "qa",  # what was asked for cannot be computed; the text is searched, as the option says
            "buckets": d.buckets if d.constraints else list(catalog.buckets),
            "listed_by_text": d.intent in STRUCTURED_INTENTS,  # passages, said to be no complete list or count
        }
    )


def confined(d: Decomposition, doc_id: str) -> Decomposition:
    """The question about the one document chosen among those its name matches, and about no other: its
    conditions kept (they hold for it)."""
    bucket = next(doc.bucket for doc in d.several.documents if doc.doc_id == doc_id) if d.several else d.buckets[0]
    return d.model_copy(update={"doc_ids": [doc_id], "buckets": [bucket], "several": None})


def clarify(state: AgentState, runtime: Runtime[AgentContext], *, services: AgentServices) -> Command:
    d = state["decomposition"]
    reply, added = human_reply(state, runtime, services)
    if (answer := closing_answer(reply, d, runtime.context.scope, services)) is not None:
        return Command(goto="compose", update={"clarification": reply, "answer": answer})
    if reply.choice == "retry":
        return Command(goto="decompose", update={"clarification": reply})
    if reply.choice == "answer":  # with the documents that have the field, as the figure's sentences say
        return Command(goto="compose", update={"clarification": reply})
    if reply.choice == "extract":
        scope = runtime.context.scope
        unread = unread_field(current_evidence(state), services.catalog(scope))
        if unread is not None:  # None when this node read them already and was stopped before its update
            stack = services.stack
            extract_stored(
                stack.store, scope, unread.bucket, fields=[unread.field], progress=False, embedder=stack.embedder.inner
            )
        return Command(goto="plan", update={"clarification": reply})
    reading = answered_reading(d, reply, added, services.catalog(runtime.context.scope))
    update = {"clarification": reply, "decomposition": reading}
    if reply.choice in ("broaden", "document"):
        update["route"] = services.planner(runtime.context).route(reading, tried=[])
    return Command(goto="plan", update=update)
