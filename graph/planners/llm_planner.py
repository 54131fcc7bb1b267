"""LLMPlanner: a chat model where it helps, checked by code, with the rules as a safety net.

Two ways to use a model (`AgentContext.planner`):
- `auto` (the default with a model): the rules plan everything, and the model reads a question only where the
  rules run out: they left words unmapped, or a question whose buckets have fields kept words the rules could not
  place. The model then chooses among the catalog's candidates (`model_reading`), and its reading goes through the
  same grounding step as the rules'. One model call, on the questions that need it.
- `llm`: every mode is the model's. Decompose as above, for every question with fields to read; route, plan and
  review for questions answered from text (a list, count or sum has one route and one plan, which the grounded
  reading fixes: asking a model for them only adds ways to be wrong); compose for every answer.

Each mode asks for its typed output under a JSON schema (`model_calls.ModelAsker`), checks it against the index
(buckets, catalog fields, tool names and arguments, routes left), asks once more with the error when it is
invalid, and then hands the mode to the RulePlanner. A model's reading that does not ground (a value no row holds,
words it left) gives way to the rules' when theirs grounds. Compose has the model write the answer from the evidence
and checks every sentence (`graph.answer.written`), with the rules' answer as its fallback. Grading stays with the
rules: it is cheap and deterministic. A tool call that comes back `invalid_request` is recovered by the rule
planner's calls for the same route. Every call is recorded (`calls`), for `--explain` and the evals.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel

from core.errors import InvalidInput
from english.lexicon import FILLER
from english.value_match import normalise
from graph.answer.written import AnswerWriter
from graph.context import AgentContext
from graph.decomposition import STRUCTURED_INTENTS, Candidate, Decomposition
from graph.follow_up import is_follow_up, merge
from graph.planners.base import Budget, Progress, Stream
from graph.planners.chat_breaker import ChatBreaker
from graph.planners.grounding import ground, ground_reading
from graph.planners.model_calls import ModelAsker, ModelCall
from graph.planners.model_reading import (
    as_model_reading,
    candidate_views,
    fields_lines,
    flags_described,
    flags_named,
    prompt,
    reading_schema,
)
from graph.planners.model_schemas import (
    RouteChoice,
    allowed_routes,
    as_decision,
    as_plan,
    decision_schema,
    planned_searches,
    route_choice,
)
from graph.planners.rule_decomposer import RuleDecomposer
from graph.planners.rule_planner import RulePlanner
from graph.schemas import Answer, Decision, Evidence, GradedHit, Plan, Route, RouteKind
from prompts import load as load_prompts
from tools.catalog import Catalog
from tools.registry import TOOLS

T = TypeVar("T", bound=BaseModel)


def prompts() -> dict[str, dict[str, str]]:
    return load_prompts("planner")


def ran_out(d: Decomposition) -> bool:
    """The rules' reading leaves something to a model: words it could not map, or, for a list, count or sum,
    words of the question it placed nowhere (an "average" it did not take, a "veggie" it did not know)."""
    return bool(d.unmapped) or (d.intent in STRUCTURED_INTENTS and any(t not in FILLER for t in d.topic_terms))


def kept_conditions(ruled: Decomposition, read: Decomposition) -> bool:
    """Where the rules read the question but for some words (left over, or asked about), the model may add to their
    reading, never take from it: every condition the rules read is in the model's too."""
    said = {(c.bucket, c.field, c.op, repr(c.value)) for c in read.constraints}
    return all((c.bucket, c.field, c.op, repr(c.value)) in said for c in ruled.constraints)


def credited(ruled: Decomposition, read: Decomposition) -> Decomposition:
    """The model's reading with the words the rules could not map taken as its own, where it adds a condition the
    rules did not read for each ("veggie": the bucket's one yes/no field close in meaning, `as_model_reading`): a
    yes/no field carries no words of the question to lay on it, so the grounding step finds them left over."""
    added = {(c.bucket, c.field) for c in read.constraints} - {(c.bucket, c.field) for c in ruled.constraints}
    left = {u.text for u in read.unmapped}
    if not left or not left <= {u.text for u in ruled.unmapped} or len(added) < len(left):
        return read
    return read.model_copy(update={"unmapped": []})


def read_in_part(ruled: Decomposition, read: Decomposition) -> str | None:
    """Words the rules could not map that the model's reading used only some of ("ISO" of "ISO 45001": every ISO
    certificate, an answer to another question), or None. Words it left alone entirely are for grounding to judge."""
    said = set()
    for c in read.constraints:
        said |= set(normalise(f"{c.source_text} {c.value}").split())
    for u in ruled.unmapped:
        words = set(normalise(u.text).split()) - FILLER
        if words & said and not words <= said:
            return u.text
    return None


class LLMPlanner:
    """`breaker` is shared by every planner of the process: a failed endpoint sends them all to the rules.
    `everywhere`: the `llm` planner (every mode the model's); otherwise `auto` (the model reads only where the rules
    run out)."""

    def __init__(
        self,
        context: AgentContext,
        catalog: Catalog,
        model: BaseChatModel,
        breaker: ChatBreaker,
        decomposer: RuleDecomposer | None = None,
        *,
        everywhere: bool = True,
        compose_format: str = "text",
    ):
        """`compose_format`: how the model writes answers (`graph.answer.written`)."""
        self.catalog = catalog
        self.compose_format = compose_format
        self.rules = RulePlanner(context, catalog, decomposer)
        self.model = model
        self.breaker = breaker
        self.everywhere = everywhere
        self.asker = ModelAsker(model, breaker)

    @property
    def calls(self) -> list[ModelCall]:
        return self.asker.calls

    @property
    def fallbacks(self) -> list[str]:
        return self.asker.fallbacks

    def _ask(self, mode: str, schema: type[T], variables: dict[str, Any], check: Callable[[T], None]) -> T | None:
        text = prompts()[mode]
        messages = [("system", text["system"].format(**variables)), ("human", text["human"].format(**variables))]
        return self.asker.ask(mode, schema, messages, check)

    def decompose(self, question: str, previous: Decomposition | None = None) -> Decomposition:
        """The rules read first: their buckets narrow what the model is shown. The model then reads the question
        (always for `llm`; for `auto` only where the rules ran out), choosing among the fields of those buckets, and
        its reading is grounded and checked like the rules'. A follow-up ("which of those...") is read within the
        previous turn's buckets and merged into its reading, as the rules do."""
        ruled = self.rules.decompose(question, previous)
        follow_up = previous is not None and is_follow_up(question)
        if not (self.everywhere or ran_out(ruled)):
            return ruled
        read, guessed = self._read(question, ruled.buckets, within=previous.buckets if follow_up else None)
        if guessed and ruled.unmapped:
            return self._offered(ruled, guessed)
        if guessed:  # the rules read every condition ("don't want them to renew" is the notice, not auto_renewal)
            self._note(f"dropped, as the rules read every condition: {'; '.join(c.said() for c in guessed)}")
        if read is None:
            return ruled
        if ruled.intent in STRUCTURED_INTENTS and read.intent not in STRUCTURED_INTENTS:
            return self._rejected(ruled, "its reading searched the text for a list or figure the rules read")
        read = credited(ruled, read)
        if read.unmapped and not ruled.unmapped:
            words = "; ".join(u.text for u in read.unmapped)
            return self._rejected(ruled, f"its reading did not hold ({words}); the rules' was kept")
        if partial := read_in_part(ruled, read):
            return self._rejected(ruled, f"its reading took part of {partial!r} and dropped the rest; the rules asked")
        if not self.everywhere and not kept_conditions(ruled, read):
            return self._rejected(ruled, "its reading dropped or changed a condition the rules read; theirs was kept")
        # What the model does not choose (the words to search the text for) stays the rules', and so does a list
        # or a count where the rules read one: "which contracts ..." is never a count, "how many ..." never a list.
        kept = {
            "topic_terms": read.topic_terms or ruled.topic_terms,
            "sub_queries": read.sub_queries or ruled.sub_queries,
        }
        if {ruled.intent, read.intent} == {"list", "count"}:
            kept |= {"intent": ruled.intent, "aggregate": ruled.aggregate, "group_by": ruled.group_by,
                     "show_fields": ruled.show_fields}  # fmt: skip
        read = read.model_copy(update={**kept, "catalog_reads": ruled.catalog_reads})
        return merge(previous, read) if follow_up else read

    def _rejected(self, ruled: Decomposition, why: str) -> Decomposition:
        """The rules' reading, the model's call recorded as not used, and why."""
        self._note(why)
        self.calls[-1] = self.calls[-1].model_copy(update={"outcome": "invalid"})
        self.fallbacks.append(f"decompose: {why}")
        return ruled

    def _offered(self, ruled: Decomposition, guessed: list[Candidate]) -> Decomposition:
        """The rules' reading, asked back with the yes/no fields the model guessed offered first (`ModelChoice`),
        for the words the rules could not map and offered yes/no fields for (or else the first they could not
        map)."""
        unmapped = list(ruled.unmapped)
        at = next((i for i, u in enumerate(unmapped) if any(isinstance(c.value, bool) for c in u.nearest)), 0)
        taken = {g.field for g in guessed}
        nearest = [*guessed, *(c for c in unmapped[at].nearest if c.field not in taken)]
        unmapped[at] = unmapped[at].model_copy(update={"nearest": nearest})
        offered = "; ".join(c.said() for c in guessed)
        self._note(f"offered first, not counted, as the question does not name it: {offered}")
        self.fallbacks.append(f"decompose: the model's {offered} offered rather than counted")
        return ruled.model_copy(update={"unmapped": unmapped})

    def _note(self, detail: str) -> None:
        """A note on the last model call, after the ones it has."""
        call = self.calls[-1]
        self.calls[-1] = call.model_copy(update={"detail": "; ".join(filter(None, [call.detail, detail]))})

    def _read(
        self, question: str, buckets: list[str], within: list[str] | None
    ) -> tuple[Decomposition | None, list[Candidate]]:
        """The model's choice among the fields of `buckets` (None when they have none, or no usable answer came),
        grounded (`grounding.ground_reading`, `grounding.ground`), and the yes/no fields it guessed
        (`ModelChoice`)."""
        views = candidate_views(self.catalog, buckets, question)
        if not views:
            return None, []
        system, human = prompt(question, views)
        schema = reading_schema(list(views), [f for fields in views.values() for f in fields])
        chosen = self.asker.ask("decompose", schema, [("system", system), ("human", human)])
        if chosen is None:
            return None, []
        decomposer = self.rules.decomposer
        shown = {f.name: f for fields in views.values() for f in fields}
        named = flags_named(self.catalog, list(views), question)
        said, dropped, guessed = as_model_reading(
            question, chosen, shown, named, flags_described(self.catalog, list(views), question)
        )
        if dropped:
            self._note(f"dropped, as the question states none of them: {'; '.join(dropped)}")
        d = ground_reading(said, decomposer.vocabulary, decomposer.read_conditions)
        return ground(d, decomposer.vocabulary, within=within, today=decomposer.today), guessed

    def route(self, d: Decomposition, tried: list[RouteKind]) -> Route:
        """The model's route, among those the reading allows (`allowed_routes`); no call when one is left."""
        if not self.everywhere or d.intent in STRUCTURED_INTENTS:
            return self.rules.route(d, tried)
        allowed = allowed_routes(d, tried)
        context = self.rules.context
        if len(allowed) == 1:
            return Route(kind=allowed[0], fallback_order=[], min_hits=context.min_hits, max_hits=context.max_hits)
        variables = {"decomposition": d.model_dump_json(exclude={"catalog_reads"}), "tried": ", ".join(tried) or "none"}

        def check(choice: RouteChoice) -> None:
            if len(set(routes := [choice.kind, *choice.fallback_order])) != len(routes):
                raise InvalidInput("a route appears twice")

        choice = self._ask("select_route", route_choice(allowed), variables, check) if allowed else None
        if choice is None:
            return self.rules.route(d, tried)
        return Route(
            kind=choice.kind, fallback_order=choice.fallback_order, min_hits=context.min_hits, max_hits=context.max_hits
        )

    def plan(self, d: Decomposition, route: Route, budget: Budget) -> Plan:
        """The structured route's calls follow from the grounded reading (the rules write them); a model plans the
        searches for text."""
        if not self.everywhere or route.kind == "structured":
            return self.rules.plan(d, route, budget)
        variables = {
            "route": route.kind,
            "decomposition": d.model_dump_json(exclude={"catalog_reads"}),
            "fields": "\n".join(fields_lines(f) for f in candidate_views(self.catalog, d.buckets, d.question).values()),
            "max_tool_calls": budget.cap,
        }
        planned = self._ask(
            "plan", planned_searches(d.buckets), variables, lambda p: self._check_plan(as_plan(p, d.buckets, ""))
        )
        if planned is None:
            return self.rules.plan(d, route, budget)
        return as_plan(planned, d.buckets, route.kind).model_copy(
            update={"max_tool_calls": min(planned.max_tool_calls, budget.cap)}
        )

    def _check_plan(self, plan: Plan) -> None:
        if not plan.calls:
            raise InvalidInput("the plan has no tool calls")
        for call in plan.calls:
            if call.tool not in TOOLS:
                raise InvalidInput(f"no tool {call.tool!r}; tools: {', '.join(TOOLS)}")
            TOOLS[call.tool].arguments.model_validate(call.arguments)

    def grade(self, d: Decomposition, evidence: list[Evidence]) -> list[GradedHit]:
        return self.rules.grade(d, evidence)

    def review(self, progress: Progress) -> Decision:
        d, route, evidence, budget = progress.decomposition, progress.route, progress.evidence, progress.budget
        rejected = [e for e in evidence if e.envelope.status == "invalid_request"]
        left = budget.left
        made = [e.call for e in evidence]
        recovery = [c for c in self.rules.plan(d, route, budget).calls if c not in made]
        if rejected and left > 0 and recovery:  # once: the rules' calls for the route, those not made yet
            reasons = "; ".join(e.envelope.hint or "" for e in rejected)
            return Decision(
                action="more", reason=f"recovering from rejected calls ({reasons})", next_calls=budget.allow(recovery)
            )
        if not evidence or not self.everywhere or route.kind == "structured":
            return self.rules.review(progress)
        lines = "\n".join(
            f"- {e.call.tool} {json.dumps(e.call.arguments)[:200]}: {e.envelope.status}, {e.envelope.total_said()} hits"
            for e in evidence
        )
        variables = {
            "question": d.question,
            "route": route.kind,
            "fallbacks": ", ".join(route.fallback_order) or "none",
            "max_hits": route.max_hits,
            "calls_left": left,
            "evidence": lines,
        }

        def check(narrowed: Decision) -> None:
            decision = as_decision(narrowed)
            if decision.action == "fallback" and not route.fallback_order:
                raise InvalidInput("no route is left to fall back to")
            if decision.action == "clarify" and decision.clarify_kind not in ("no_low", "overload"):
                raise InvalidInput("clarify needs clarify_kind no_low or overload")
            if decision.action == "more":
                if not decision.next_calls or left <= 0:
                    raise InvalidInput("more needs next_calls and tool calls left")
                self._check_plan(
                    Plan(buckets=d.buckets, strategy=route.kind, calls=decision.next_calls, max_tool_calls=left)
                )

        schema = decision_schema(d.buckets, calls_left=left, fallbacks=route.fallback_order)
        decided = self._ask("review", schema, variables, check)
        if decided:
            return as_decision(decided)
        ruled = self.rules.review(progress)
        return ruled.model_copy(
            update={"reason": f"{ruled.reason} (decided by the rules; {'; '.join(self.fallbacks)})"}
        )

    def compose(
        self,
        d: Decomposition,
        evidence: list[Evidence],
        graded: list[GradedHit],
        stream: Stream | None = None,
    ) -> Answer:
        """The model's answer, every sentence checked; the rules' answer, with the reason, when it cannot be had.
        An export or a stop (clarify's answers) never reaches here."""
        computed = self.rules.compose(d, evidence, graded)
        if not self.everywhere:
            return computed
        writer = AnswerWriter(self.model, self.breaker, self.calls, as_json=self.compose_format == "json")
        written = writer.write(d, computed, evidence, [g for g in graded if g.relevant], stream)
        return written or computed.model_copy(update={"notes": [*computed.notes, *writer.notes]})
