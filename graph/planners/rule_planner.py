"""RulePlanner: the deterministic planner, needing no model. It decides the route, the tool calls, what is
relevant and when there is enough, from the decomposition and the envelopes the tools returned.

Routes, in the order they are tried:
- structured: the question names fields; annotations answer it (a list of rows, or an aggregate).
- hybrid: fields narrow the documents, then keyword and semantic search find the passages inside them.
- long_text: no fields; semantic and keyword search over the text, one pair of calls per sub-query (the question,
  and each side of a comparison). When the passages found are the pages of things the question names and they
  name something else no search has found (the author of the novel asked about), review plans one follow-up
  round that looks those names up: the second hop of a multi-hop question.
"""

from __future__ import annotations

import re
from functools import cached_property

from english.lexicon import ASKING_VERBS, FILLER, STOPWORDS
from english.names import proper_names
from english.words import counted, has_phrase, holds, states_a_number_of, stem, stems
from graph.answer.computed import CHECKED, beside, figure, left_out, listed, table
from graph.answer.extractive import extractive_answer
from graph.context import AgentContext
from graph.decomposition import STRUCTURED_INTENTS, Decomposition
from graph.follow_up import is_follow_up, merge
from graph.planners.base import Budget, Progress, Stream
from graph.planners.pages import Lead, around, linked_pages, named_pages, page_titles, passage_hits
from graph.planners.rule_decomposer import RuleDecomposer
from graph.schemas import (
    Answer,
    Decision,
    Evidence,
    GradedHit,
    Plan,
    Route,
    RouteKind,
    ToolCall,
)
from tools.catalog import Catalog
from tools.confidence import low_confidence_threshold
from tools.envelope import AnnotationHit, PassageHit, matched_total

STRUCTURED_ROWS = 50
TIES_READ = 9
"""Rows read past those a superlative asks for ("the quickest recipe": one), so that rows tied with the last one are
shown with it (`computed.table`), not one of them picked by the order the index returns."""
MAX_SUB_QUERIES = 3
LOOKUPS = 2
"""Names the follow-up round looks up at most, one keyword search each (a page title is an exact-word match)."""
LOOKUP_TOP_K = 5
ANCHOR_PASSAGES = 2
AROUND_A_HIT = 1200
"""The characters of a passage a search inside the documents a question is about returns (its snippet; 400 by
default): such a question is answered by several sentences of one document, and the sentence that answers is often
one after the sentence its words first occur in ("may be renewed ... by mutual written agreement", then "In the
event that either party does not give such notice, the term ... shall be automatically renewed"): a window of
about a chunk holds the sentences around the hit, where a 400-character one stopped before the answer."""


IN_NAMED_DOCUMENT = "holds a topic word, in a document the question names"
"""Why a passage is relevant that holds only some word of the question, in a document the question names: loosely."""


class RulePlanner:
    def __init__(self, context: AgentContext, catalog: Catalog, decomposer: RuleDecomposer | None = None):
        """`decomposer`: one kept from an earlier step on the same catalog (its value indexes are the costly part)."""
        self.context = context
        self.catalog = catalog
        self.decomposer = decomposer or RuleDecomposer(catalog)

    calls: tuple = ()
    """The model calls it made: none (`LLMPlanner.calls` lists a model's)."""

    @cached_property
    def threshold(self) -> float | None:
        """The semantic score a hit must reach for the index's model; asked when a semantic hit is graded, so that a
        run that searches no vectors never makes the embedder (`retrievers.engines.deferred`)."""
        return low_confidence_threshold(self.catalog.embedding_model)

    def decompose(self, question: str, previous: Decomposition | None = None) -> Decomposition:
        """A follow-up ("which of those...") is read within the previous turn's buckets and merged into its reading;
        any other question is read on its own."""
        reads = self.context.max_catalog_reads
        if previous is None or not is_follow_up(question):
            return self.decomposer.decompose(question, max_reads=reads)
        return merge(previous, self.decomposer.decompose(question, within=previous.buckets, max_reads=reads))

    def route(self, d: Decomposition, tried: list[RouteKind]) -> Route:
        """A figure or a list: structured only. A lookup of fields of named documents (by id, title, or the values
        that name one, `which.settled`): structured, then the text of those documents (their rows may be blank where
        the question looks). A question for text with field constraints, or a lookup whose words name no field but
        a topic ("the parental leave policy": the kind is a field, the topic is not, and the policy rows would
        answer with any policy; "who owns the IP developed for
        the water meter under the Link Plus agreement?": the parties' row would answer another question): the
        passages of the documents the constraints allow, and only those: the question is about them ("what does
        the hosting agreement say about uptime?" is not answered by a franchise agreement). Anything else: the
        passages."""
        if d.intent in STRUCTURED_INTENTS:
            order: list[RouteKind] = ["structured"]
        elif d.intent == "lookup" and (d.doc_ids or d.constraints) and (d.show_fields or not _topic(d)):
            # the documents are named: their text only, never any document's passages
            order = ["structured", "hybrid"] if d.constraints else ["structured", "long_text"]
        elif d.constraints:
            order = ["hybrid"]  # the documents it is about: their passages only, never any document's
        else:
            order = ["long_text"]
        remaining = [r for r in order if r not in tried] or order[-1:]
        return Route(
            kind=remaining[0],
            fallback_order=remaining[1:],
            min_hits=self.context.min_hits,
            max_hits=self.context.max_hits,
        )

    def plan(self, d: Decomposition, route: Route, budget: Budget) -> Plan:
        top_k = self.context.top_k
        calls: list[ToolCall] = []
        constrained = [b for b in d.buckets if d.predicates(b)] or d.buckets
        if route.kind == "structured":
            for bucket in constrained:
                scope = {"doc_id": d.doc_ids} if d.doc_ids else {}
                if d.intent in ("count", "sum"):
                    calls.append(
                        ToolCall(
                            tool="annotations_aggregate",
                            purpose="the figure asked for",
                            arguments={
                                "bucket": bucket,
                                "aggregate": d.aggregate or "count",
                                "group_by": d.group_by,
                                "predicates": d.predicates(bucket),
                                **scope,
                            },
                        )
                    )
                ordered = (
                    {"order_by": d.order_by.model_dump(), "top_k": (d.limit or 1) + TIES_READ} if d.order_by else {}
                )
                calls.append(
                    ToolCall(
                        tool="annotations_search",
                        purpose="the row that holds the extreme"
                        if d.order_by
                        else "the matching rows, to list and cite",
                        arguments={
                            "bucket": bucket,
                            "predicates": d.predicates(bucket),
                            "top_k": STRUCTURED_ROWS,
                            **scope,
                            **ordered,
                        },
                    )
                )
                if checks := {c.field: c.condition() for c in d.checks if c.bucket == bucket}:
                    predicates = {**d.predicates(bucket), **checks}
                    arguments = {"bucket": bucket, "predicates": predicates, "top_k": STRUCTURED_ROWS, **scope}
                    calls.append(ToolCall(tool="annotations_search", purpose=CHECKED, arguments=arguments))
        elif route.kind == "hybrid":
            query = " ".join(_search_words(d, self.catalog)) or d.question
            named = [{"doc_id": doc_id} for doc_id in d.doc_ids[:MAX_SUB_QUERIES]] or [{}]  # and inside those only
            for bucket in constrained:
                for document in named:
                    for tool in ("search_text", "search_semantic"):
                        calls.append(
                            ToolCall(
                                tool=tool,
                                purpose="passages inside the documents the fields allow",
                                arguments={
                                    "bucket": bucket,
                                    "query": query,
                                    "filters": _passage_filters(d, bucket),
                                    "top_k": top_k,
                                    "context_chars": AROUND_A_HIT,
                                    **document,
                                },
                            )
                        )
        else:
            # a question naming documents ("when does cuad_010 expire?") is answered by their text only
            inside = [{"doc_id": doc_id} for doc_id in d.doc_ids[:MAX_SUB_QUERIES]] or [{}]
            for query in d.sub_queries[:MAX_SUB_QUERIES]:
                for bucket in d.buckets:
                    for document in inside:
                        for tool in ("search_semantic", "search_text"):
                            calls.append(
                                ToolCall(
                                    tool=tool,
                                    purpose=f"passages about: {query}",
                                    arguments={
                                        "bucket": bucket,
                                        "query": query,
                                        "top_k": top_k,
                                        **({"context_chars": AROUND_A_HIT} if document else {}),
                                        **document,
                                    },
                                )
                            )
        return Plan(buckets=d.buckets, strategy=route.kind, calls=calls, max_tool_calls=budget.cap)

    def grade(self, d: Decomposition, evidence: list[Evidence]) -> list[GradedHit]:
        """Annotation rows match by construction; passages are graded by `_passage`."""
        graded: dict[tuple[str, str | None, str | None], GradedHit] = {}
        linked = linked_pages(d.question, evidence, page_titles(passage_hits(evidence)))
        for e in evidence:
            for hit in e.envelope.hits:
                if isinstance(hit, AnnotationHit):
                    item = GradedHit(
                        doc_id=hit.doc_id,
                        annotation_id=hit.annotation_id,
                        relevant=True,
                        why="its annotations satisfy every constraint",
                        row=hit.row,
                    )
                elif isinstance(hit, PassageHit):
                    relevant, why = self._passage(d, e.call, hit, linked)
                    item = GradedHit(
                        doc_id=hit.doc_id,
                        chunk_id=hit.chunk_id,
                        relevant=relevant,
                        why=why,
                        loose=relevant and why == IN_NAMED_DOCUMENT,
                        score=hit.score,
                        text=hit.snippet,
                        title=hit.metadata.title,
                    )
                else:
                    continue
                key = (item.doc_id, item.annotation_id, item.chunk_id)
                if key not in graded or (item.relevant and not graded[key].relevant):
                    graded[key] = item
        return list(graded.values())

    def _passage(self, d: Decomposition, call: ToolCall, hit: PassageHit, linked: dict[str, str]) -> tuple[bool, str]:
        """A passage is relevant, for the first of these reasons, when it scores above the embedder's confidence
        threshold (semantic); holds at least half of the question's topic words (keyword; any of them for a fused
        hit); holds every word of the narrower query its call searched for (a side of a comparison, a name looked
        up); or is the page of something the question names, or a page such a page names (`linked_pages`). When
        the question is only field constraints (no topic words), text cannot show that a passage meets them, so no
        passage is relevant: the run clarifies rather than answer from look-alike documents. When what it asks about
        holds a word no document holds (`Decomposition.unheld`: "cryptocurrency payments"), holding its other words
        ("payments") shows nothing: only meaning does. In the documents the question names (by id or by a party),
        any of its topic words will do, or of the words its search looked for (the description of a field it looks
        up: "initial term ends"): the passage can only be theirs, and a question put in words they do not use
        ("can Nettaxi walk away early, and with how much notice?") still holds one ("notice"). A "how many" question
        read as a question for text needs a passage that puts a number on what it counts (`states_a_number_of`):
        any other passage that mentions it is no count; unless it was asked for passages instead of a count it
        could not compute (`Decomposition.listed_by_text`)."""
        if d.doc_ids and hit.doc_id not in d.doc_ids:
            return False, "not in the documents the question names"
        text = hit.snippet.lower()
        overlap = holds(text, [stem(t) for t in d.topic_terms])
        query = call.arguments.get("query") or ""
        narrower = stems(query) if query != d.question else []
        if (things := counted(d.question)) and not d.listed_by_text and not states_a_number_of(text, things):
            return False, f"states no number of {' '.join(things)}"
        reasons = [
            (
                call.tool == "search_semantic" and self.threshold is not None and hit.score >= self.threshold,
                "close in meaning",
            ),
            (
                not d.unheld and (overlap >= 0.5 or (call.tool == "fused_search" and overlap > 0)),
                f"holds {overlap:.0%} of the topic words",
            ),
            (overlap > 0 and self._in_named_documents(call), IN_NAMED_DOCUMENT),
            (
                bool(narrower) and holds(f"{hit.metadata.title or ''} {text}".lower(), narrower) == 1.0,
                f"holds every word of {query!r}",
            ),
            (hit.doc_id in linked, linked.get(hit.doc_id, "")),
            *(
                (holds(text, [stem(w) for w in words]) == 1.0, f"holds the clause asked about: {' '.join(words)}")
                for words in d.clause_words()
            ),
            (holds(text, narrower) > 0 and self._in_named_documents(call), IN_NAMED_DOCUMENT),
        ]
        checkable = bool(d.topic_terms) or not d.constraints
        missed = f"no document holds a word of {' or '.join(map(repr, d.unheld))} and it is not close in meaning"
        return next(
            ((checkable, why) for holds, why in reasons if holds),
            (False, missed if d.unheld else f"holds {overlap:.0%} of the topic words"),
        )

    def review(self, progress: Progress) -> Decision:
        d, route, plan, evidence, graded = (
            progress.decomposition,
            progress.route,
            progress.plan,
            progress.evidence,
            progress.graded,
        )
        left = progress.budget.left
        if d.unmapped and not evidence:
            return Decision(action="clarify", clarify_kind="no_low", reason=_unmapped_reason(d))
        if not evidence:
            if left <= 0:
                return Decision(
                    action="clarify",
                    clarify_kind="no_low",
                    reason=f"the tool-call budget ({progress.budget.cap} calls) is spent",
                )
            return Decision(action="more", reason=f"run the {route.kind} plan", next_calls=plan.calls)
        failures = sorted({e.call.tool for e in evidence if e.envelope.failed})
        note = f" ({', '.join(failures)} failed)" if failures else ""
        if route.kind == "structured":
            total = matched_total(e.envelope for e in listed(evidence))
            if total.count == 0:
                if d.intent == "lookup" and left > 0 and (named := self._by_name(d, evidence)):
                    return named
                held_none = self._values_not_held(d)
                if d.intent == "count" and not d.group_by and not held_none and not failures:
                    return Decision(action="enough", reason="no document has the values asked for: the count is 0")
                why = held_none or "no annotation row matches the constraints"
                why += _unrecorded(evidence)
                return self._too_little(route, left, f"{why}{note}")
            if d.intent == "list" and total.count > route.max_hits and not d.order_by:
                return Decision(
                    action="clarify",
                    clarify_kind="overload",
                    reason=f"{total.said} annotation rows match, more than {route.max_hits} to list",
                )
            if d.intent == "lookup" and d.show_fields and _blank(evidence, d.show_fields) == d.show_fields:
                asked = ", ".join(d.show_fields)
                return self._too_little(route, left, f"the matching rows hold no value for {asked}{note}")
            blank = _blank(evidence, self._asked(d)) if d.intent == "lookup" else []
            if blank and left > 0 and not passage_hits(evidence):
                return Decision(
                    action="more",
                    reason=f"the matching rows hold no value for {', '.join(blank)}; searching their text for it",
                    next_calls=self._text_of_rows(d, route, blank, progress.budget)[:left],
                )
            return Decision(action="enough", reason=f"{total} matching row(s){note}")
        relevant = {g.doc_id for g in graded if g.relevant}
        if len(relevant) >= route.min_hits:
            follow_up = self._follow_up(d, plan, evidence, graded, left) if route.kind == "long_text" else None
            return follow_up or Decision(action="enough", reason=f"{len(relevant)} relevant document(s){note}")
        searched = {c.arguments.get("bucket") for c in plan.calls} | {e.call.arguments.get("bucket") for e in evidence}
        others = [b for b in self.catalog.buckets if b not in searched] if not d.doc_ids else []  # named: theirs only
        if route.kind == "long_text" and others and left > 0 and (d.topic_terms or not d.constraints):
            calls = [
                ToolCall(
                    tool="search_semantic",
                    purpose=f"the question in bucket {b}",
                    arguments={"bucket": b, "query": d.question, "top_k": self.context.top_k},
                )
                for b in others
            ][:left]
            return Decision(
                action="more",
                reason=f"nothing relevant in {', '.join(sorted(filter(None, searched)))}{note}; try the other buckets",
                next_calls=calls,
            )
        if not route.fallback_order and (d.doc_ids or d.constraints) and passage_hits(evidence):
            reason = f"no passage of the documents the question is about answers it{note}; the answer says so"
            return Decision(action="enough", reason=reason)
        if not route.fallback_order and d.unheld and passage_hits(evidence) and not failures:
            said = " or ".join(map(repr, d.unheld))
            return Decision(action="enough", reason=f"no passage is about {said}; the answer says so")
        if route.kind == "hybrid" and not passage_hits(evidence) and left > 0 and (named := self._by_name(d, evidence)):
            return named
        return self._too_little(route, left, f"no relevant passage{note}")

    def _asked(self, d: Decomposition) -> list[str]:
        """The fields a lookup asks for: its date fields when it asks "when" ("when does the initial term end?"
        names the term's length too, and asks for its end), else every field it shows."""
        if not WHEN.search(d.question.lower()):
            return d.show_fields
        types = {f.name: f.type for b in d.buckets for f in self.catalog.fields(b)}
        return [f for f in d.show_fields if types.get(f) == "date"] or d.show_fields

    def _text_of_rows(self, d: Decomposition, route: Route, blank: list[str], budget: Budget) -> list[ToolCall]:
        """The searches for passages stating the `blank` fields, inside the documents the rows are of: the hybrid
        route's, for what those fields are (`_search_words`)."""
        text = route.model_copy(update={"kind": "hybrid", "fallback_order": []})
        return self.plan(d.model_copy(update={"show_fields": blank}), text, budget).calls

    def _by_name(self, d: Decomposition, evidence: list[Evidence]) -> Decision | None:
        """When the documents a question names by a name (a party, a shop) have nothing that meets its other
        conditions ("the Pacificap Entertainment content license": the rules found no kind of contract in it; "the
        Marathon Pipe Line transportation services agreement", a Transportation Agreement), its passages, or the
        rows a lookup reads, are searched within the named documents alone, once: the name says which documents,
        the other words only describe them. None when there is no name, nothing else, or that search was made."""
        calls = []
        for e in evidence:
            key = "predicates" if "predicates" in e.call.arguments else "filters"
            conditions = _conditions(e.call)
            names = self._name_fields(e.call)
            kept = {field: condition for field, condition in conditions.items() if field in names}
            if kept and kept != conditions:
                calls.append(e.call.model_copy(update={"arguments": {**e.call.arguments, key: kept}}))
        made = [e.call for e in evidence]
        calls = [c for c in calls if c not in made]
        if not calls:
            return None
        dropped = sorted({f for c in made for f in _conditions(c)} - {f for c in calls for f in _conditions(c)})
        return Decision(
            action="more",
            reason=f"no document the question names meets its {', '.join(dropped)} condition; searching them alone",
            next_calls=calls,
        )

    def _values_not_held(self, d: Decomposition) -> str | None:
        """Why nothing matched when a constraint asks for text values its field holds none of ("currency = GBP" over
        invoices in EUR, USD, INR and PLN), with the values it does hold: the user sees that no document is in
        pounds, not only that nothing matched."""
        parts = []
        for c in d.constraints:
            wanted = [str(v) for v in (c.value if isinstance(c.value, list) else [c.value])]
            if c.op not in ("=", "in") or not any(f.name == c.field for f in self.catalog.categorical(c.bucket)):
                continue
            held = [value for value, _ in self.catalog.values(c.bucket, c.field)]
            if held and not set(wanted) & set(held):
                parts.append(
                    f"no document of {c.bucket} has {c.field} {' or '.join(wanted)} (they hold {', '.join(held)})"
                )
        return "; ".join(parts) or None

    def _follow_up(
        self, d: Decomposition, plan: Plan, evidence: list[Evidence], graded: list[GradedHit], left: int
    ) -> Decision | None:
        """The second hop: when relevant passages are the pages of things the question names, the names those
        pages mention that no search has found yet are where the answer may continue ("the author of The Thing of
        It Is..." -> the novel's page names William Goldman). Looks up the names the question's own words point at
        most, within the calls left, once per plan (never after a call the plan did not make). Not for a question
        split into sides: it has searched for each thing it sets side by side, and those are what it compares. Nor
        for a question that names its documents: the answer is in them."""
        if left <= 0 or len(d.sub_queries) > 1 or d.doc_ids or any(e.call not in plan.calls for e in evidence):
            return None
        leads = self._leads(d, [g for g in graded if g.relevant and g.chunk_id], passage_hits(evidence))[
            : min(left, LOOKUPS)
        ]
        if not leads:
            return None
        calls = [
            ToolCall(
                tool="search_text",
                purpose=f"look up {lead.name}, named on the page of {lead.page}",
                arguments={"bucket": lead.bucket, "query": lead.name, "top_k": LOOKUP_TOP_K},
            )
            for lead in leads
        ]
        named = "; ".join(f"{lead.name!r} (on the page of {lead.page!r})" for lead in leads)
        return Decision(
            action="more",
            reason=f"the passages name what no search has found yet: {named}; look up each",
            next_calls=calls,
        )

    @staticmethod
    def _leads(d: Decomposition, relevant: list[GradedHit], hits: dict[str, PassageHit]) -> list[Lead]:
        """Names on the pages the question names (at most ANCHOR_PASSAGES of them, best first) that are not in the
        question, not the title of a page found, and share no word with their own page's title (a page names its
        subject in full: "Thomas Loren Friedman" on "Thomas Friedman"), the ones the question's other words stand
        near first."""
        pages = page_titles(hits)
        named = named_pages(d.question, pages)
        found = {page.lower() for page in pages.values()}
        question_names = {w.lower() for n in proper_names(d.question) for w in n.text.split()}
        pointers = [stem(t) for t in d.topic_terms if t not in question_names]
        anchors: dict[str, GradedHit] = {}
        for g in relevant:
            if g.doc_id in named:
                anchors.setdefault(g.doc_id, g)
        leads: dict[str, Lead] = {}
        for anchor in list(anchors.values())[:ANCHOR_PASSAGES]:
            own_words = set(stems(pages[anchor.doc_id]))
            for name in proper_names(anchor.text):
                new = (
                    name.text.lower() not in found
                    and name.text.lower() not in leads
                    and not has_phrase(d.question, name.text)
                )
                if new and not own_words & set(stems(name.text)):
                    pointed = holds(around(anchor.text, name).lower(), pointers)
                    leads[name.text.lower()] = Lead(
                        name.text, pages[anchor.doc_id], hits[anchor.doc_id].metadata.bucket, pointed
                    )
        return sorted(leads.values(), key=lambda lead: -lead.pointed)

    def compose(
        self,
        d: Decomposition,
        evidence: list[Evidence],
        graded: list[GradedHit],
        stream: Stream | None = None,
    ) -> Answer:
        """A figure when an aggregate answered, a table of the rows for a list or lookup, otherwise the sentences
        of the passages that answer best (`extractive_answer`). Computed at once, so nothing is streamed."""
        relevant = [g for g in graded if g.relevant]
        if any(e.call.tool == "annotations_aggregate" and e.envelope.total for e in evidence):
            return figure(d, evidence, relevant)
        if any(g.annotation_id for g in relevant) and d.intent in ("list", "count", "sum", "lookup"):
            units = {f.name: f.unit for b in d.buckets for f in self.catalog.fields(b) if f.unit}
            rows = table(d, evidence, relevant, units if d.intent == "lookup" else {})
            blank = _blank(evidence, self._asked(d)) if d.intent == "lookup" and passage_hits(evidence) else []
            if not blank:
                return rows
            return beside(rows, extractive_answer(d.model_copy(update={"show_fields": blank}), evidence, relevant))
        return extractive_answer(d, evidence, relevant)

    @staticmethod
    def _too_little(route: Route, left: int, reason: str) -> Decision:
        if route.fallback_order and left > 0:
            return Decision(action="fallback", reason=f"{reason}; next route: {route.fallback_order[0]}")
        return Decision(action="clarify", clarify_kind="no_low", reason=reason)

    def _in_named_documents(self, call: ToolCall) -> bool:
        """Whether `call` searched only documents named by id or by a name field's value (a party, a shop)."""
        return bool(call.arguments.get("doc_id")) or bool(
            self._name_fields(call) & set(call.arguments.get("filters") or {})
        )

    def _name_fields(self, call: ToolCall) -> set[str]:
        """The fields of names (parties, shops) of the bucket `call` searched."""
        return {f.name for f in self.catalog.fields(call.arguments.get("bucket", "")) if f.role == "name"}


WHEN = re.compile(r"\bwhen\b")
"""A question asking for a date."""


def _unrecorded(evidence: list[Evidence]) -> str:
    """How many documents a search that matched no row could not match for having no value of its fields: an outside
    probe read "no annotation row matches" as none of 30 contracts, where 28 had no notice period recorded."""
    searched = next((e for e in reversed(listed(evidence)) if e.envelope.coverage), None)
    if searched is None or not any(searched.envelope.coverage.missing.values()):
        return ""
    # only who is left out: how the values were read belongs to an answer, not to a question back
    unread = searched.envelope.coverage.model_copy(update={"extracted": {}, "rules_right_percent": {}})
    return f" ({left_out(unread, searched.call.arguments['bucket'], 'matched').rstrip('.')})"


def _topic(d: Decomposition) -> list[str]:
    """The topic words that are more than filler ("law" in "contracts under NY law" only fills the question out)."""
    return [t for t in d.topic_terms if t not in FILLER]


def _search_words(d: Decomposition, catalog: Catalog) -> list[str]:
    """What a search inside the documents the constraints allow looks for: the topic, and the words of a yes/no
    clause the question names ("what does the Arconic license say about assignment?": the clause is what the
    passage must be about; the filter alone would return any passage of a contract that has one), or asks whether a
    document has ("does the iVillage agreement renew automatically?", where its row holds no value), as the
    question says it and by its name (`Decomposition.clause_words`); for a lookup, also what each field it asks for
    is (`_described_by`)."""
    asked = [t for t in d.topic_terms if t not in ASKING_VERBS]  # "say" is how it asks, not what
    described = [w for f in d.show_fields for w in _described_by(catalog, d.buckets, f)] if d.intent == "lookup" else []
    return list(dict.fromkeys([*asked, *(w for words in d.clause_words() for w in words), *described]))


def _described_by(catalog: Catalog, buckets: list[str], field: str) -> list[str]:
    """The content words of what a field of values is ("Date the initial term ends", the description up to its first
    ";"): how a document states the value a lookup asks for, where its row holds none ("when does the Zounds
    agreement end?" searched "end" alone and quoted the end of a notice period, not the term's). A yes/no field's
    words are its clause's (`Decomposition.clause_words`); its description says how it is read, not what the text
    says."""
    for bucket in buckets:
        for f in catalog.fields(bucket):
            if f.name == field and f.type != "boolean" and f.description:
                said = re.split(r"[;(]", f.description.lower())[0]
                return [w for w in re.findall(r"[a-z]+", said) if w not in STOPWORDS | FILLER]
    return []


def _passage_filters(d: Decomposition, bucket: str) -> dict:
    """The constraints a search for passages keeps to: for a question about the text, not its yes/no clauses,
    which say what it is about (searched as words, `_search_words`), not which documents: a contract whose clause
    the rules did not flag still says what it says about assignment."""
    predicates = d.predicates(bucket)
    if d.intent in STRUCTURED_INTENTS:
        return predicates
    flags = {c.field for c in d.constraints if c.bucket == bucket and isinstance(c.value, bool)}
    return {field: condition for field, condition in predicates.items() if field not in flags}


def _conditions(call: ToolCall) -> dict:
    """A search's conditions on fields: an annotation search's predicates, a passage search's filters."""
    return call.arguments.get("predicates") or call.arguments.get("filters") or {}


def _blank(evidence: list[Evidence], fields: list[str]) -> list[str]:
    """The `fields` no matching row has a value for: a lookup whose rows are blank where the question looks (a
    contract's expiry its annotations never recorded) is answered from the text, not by a table of empty cells;
    beside the values its rows do hold when it asks for several ("when does it run out, before any renewals?": the
    renewal term recorded, the end not)."""
    rows = [h.row for e in evidence for h in e.envelope.hits if isinstance(h, AnnotationHit)]
    return [f for f in fields if all(row.get(f) in (None, "", []) for row in rows)]


def _unmapped_reason(d: Decomposition) -> str:
    """What could not be matched, and the nearest values the index holds, or what the index lacks."""
    parts = []
    for u in d.unmapped:
        if u.why:
            parts.append(f"I could not use {u.text!r}: {u.why}")
            continue
        near = "; ".join(c.said() for c in u.nearest)
        parts.append(
            f"I could not match {u.text!r} to anything in {', '.join(d.buckets)}"
            + (f" (nearest: {near})" if near else "")
        )
    figure = {"count": "count", "sum": "figure", "list": "list"}.get(d.intent)
    ending = f"so the {figure} cannot be computed without guessing" if figure else "so no document answers this"
    return "; ".join(parts) + f", {ending}"
