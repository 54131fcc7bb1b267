"""The answers code computes from the envelopes: a figure with its derivation for counts and sums, a table of
the matching rows for lists and lookups, and the passages a text answer is drawn from.

Every number printed comes from an envelope; every citation is a hit of this run. Document text (values,
passages, document ids) is escaped into the Markdown (`graph.markdown`); field names are not, the catalog admits
only letters, digits and '_' in them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from types import MappingProxyType

from english.numbers import in_years_and_months
from graph.decomposition import Constraint, Decomposition
from graph.markdown import escape
from graph.schemas import Answer, Citation, Evidence, GradedHit
from retrievers.fusion import reciprocal_rank_fusion
from retrievers.postgres.annotation_filters import bound_operators
from tools.envelope import AnnotationHit, Coverage, matched_total

CHECKED = "whether the named documents meet the conditions the question asks about"
"""The purpose of the search that answers a yes/no question's conditions (`Decomposition.checks`): its rows are
the named documents that meet them, so the database compares values exactly as any filter does."""


def cell(value) -> str:
    """A value as the answer's Markdown shows it: a list joined by '; ', nothing for None, a fraction to two
    decimals (an average of 63.182558922558925 reads 63.18), a whole number without a fraction (the longest notice
    period reads 180, not 180.0), escaped."""
    if isinstance(value, float):
        value = int(value) if value.is_integer() else round(value, 2)
    return escape("; ".join(map(str, value)) if isinstance(value, list) else "" if value is None else str(value))


def condition(c: Constraint) -> str:
    """A constraint as the derivation says it: "total between 10 and 50", "total > 10 and < 20", "governing_law !=
    New York", "no governing_law recorded"."""
    if c.op in ("exists", "missing"):
        return f"{'a' if c.op == 'exists' else 'no'} {c.field} recorded"
    if c.op in ("between", "not between") and isinstance(c.value, list) and len(c.value) == 2:
        low, high = (cell(v) for v in c.value)
        if c.bounds == "[]":
            return f"{c.field} {c.op} {low} and {high}"
        above, below = bound_operators(c.bounds)
        said = f"{c.field} {above} {low} and {below} {high}"
        return said if c.op == "between" else f"not ({said})"
    return f"{c.field} {c.op} {cell(c.value)}"


def sentence(text: str) -> str:
    """`text` ended by a full stop, unless a value at its end brings one ("company = Lakeside Taxi Co.")."""
    return text if text.endswith(".") else f"{text}."


def failures(evidence: list[Evidence]) -> str:
    failed = sorted(
        {f"{e.call.tool} ({e.envelope.status}: {e.envelope.hint or ''})" for e in evidence if e.envelope.failed}
    )
    return ("\n\nNot every source answered: " + "; ".join(failed)) if failed else ""


def left_out(coverage: Coverage | None, bucket: str, verb: str, *, said_of_others: bool = True) -> str:
    """The sentence that follows a figure or list computed over annotation fields when documents of the bucket have
    no value for a field it depends on: "3 of the 10 contracts have no governing_law recorded and are not counted.";
    and the one that says which values were read from the documents' text rather than labelled, so that a figure
    resting on extraction never reads as if it rested on labels. Nothing when every document has every such field
    from its labels (or the tool said nothing of its coverage). Without `said_of_others` (a lookup that found the
    rows it looked for) only the second: the documents left out are not what the question asked about."""
    if coverage is None or not coverage.documents:
        return ""
    n = coverage.documents
    noun = bucket if bucket.endswith("s") else f"documents of bucket {bucket}"

    def have(k: int) -> str:
        return "has" if k == 1 else "have"

    left = [(k, f"no {field} recorded") for field, k in coverage.missing.items() if k and said_of_others]
    if not coverage.missing and not coverage.ungrouped and coverage.unannotated and said_of_others:
        left = [(coverage.unannotated, "no annotation rows")]  # no condition, or only "missing"
    said = []
    if len(left) == 1:
        ((k, what),) = left
        said.append(f"{k} of the {n} {noun} {have(k)} {what} and {'is' if k == 1 else 'are'} not {verb}")
    elif left:
        listed = " and ".join(f"{k} {what}" if i else f"{k} {have(k)} {what}" for i, (k, what) in enumerate(left))
        said.append(f"Of the {n} {noun}, {listed}; they are not {verb}")
    for field, k in ((f, k) for f, k in coverage.ungrouped.items() if k):
        # a document with a row but no value falls in the blank group; one with no row at all, nowhere
        uncounted = min(k, coverage.unannotated) if coverage.unannotated is not None else None
        said.append(f"{k} of the {n} {noun} {have(k)} no {field} recorded")
        if uncounted == k:
            said[-1] += f" and {'is' if k == 1 else 'are'} not {verb}"
        elif uncounted == 0:
            said[-1] += f" (the blank {field} group)"
        elif uncounted is not None:
            said[-1] += f": {k - uncounted} in the blank group, {uncounted} not {verb}"
    if coverage.extracted:
        read = ", ".join(
            f"{field} in {k}{_how_read(coverage.by_model.get(field, 0), coverage.rules_right_percent.get(field))}"
            for field, k in coverage.extracted.items()
        )
        said.append(f"values read from the documents' text, not labelled: {read} (`ragent documents show` quotes each)")
        if coverage.rules_right_percent:
            said.append(
                f"how often the rules are right was measured on {coverage.rules_measured_on} they were not tuned on"
            )
    if unread := [field for field in coverage.unrecorded if coverage.extracted.get(field) is not None]:
        fields = " or ".join(unread)
        said.append(f"a document with no {fields} recorded may still state one the rules did not read")
    return " ".join(sentence(s[0].upper() + s[1:]) for s in said)


def _how_read(by_model: int, rules_right_percent: int | None) -> str:
    """What a field's extracted values rest on: how many the chat model read, and how often the rules that read the
    rest are right ("a Yes right 61% of the time" for a clause; a figure over clauses read four times in five right
    must not read as if it rested on labels)."""
    parts = [f"{by_model} by the chat model"] if by_model else []
    if rules_right_percent is not None:
        parts.append(f"the rules right {rules_right_percent}% of the time")
    return f" ({'; '.join(parts)})" if parts else ""


def figure(d: Decomposition, evidence: list[Evidence], relevant: list[GradedHit]) -> Answer:
    """The figure and how it was derived; with groups, the table of them, largest first. A question for the group
    with the most ("which shop did we spend most at?") is answered by the first group; amounts in several units
    (d.unit_field) get one figure per unit and no total, which would add dollars to euros."""
    aggregate = next(e for e in evidence if e.call.tool == "annotations_aggregate" and e.envelope.total)
    total, groups = aggregate.envelope.total, aggregate.envelope.groups()
    where = " and ".join(condition(c) for c in d.constraints)
    function = aggregate.call.arguments["aggregate"]
    derived = f"{function} over {total.documents} documents of bucket {aggregate.call.arguments['bucket']}" + (
        f" where {where}" if where else ""
    )
    value = total.value if isinstance(total.value, (int, float)) else None
    per_unit = bool(d.unit_field and groups and len({str(g.group.get(d.unit_field)) for g in groups}) > 1)
    if groups and d.limit == 1:
        top = next((g for g in groups if all(v not in (None, "") for v in g.group.values())), groups[0])
        named = ", ".join(cell(v) for v in top.group.values())
        lines = [f"**{named}**: {cell(top.value)} ({function}, the largest of {len(groups)} groups; {derived})."]
        value = top.value if isinstance(top.value, (int, float)) else None
    elif per_unit:
        lines = [sentence(f"Per {d.unit_field} (amounts in different units are not added together): {derived}")]
        value = None
    else:
        lines = [sentence(f"**{cell(total.value)}**: {derived}")]
    if groups:
        keys = list(groups[0].group)
        valued = function != "count"  # a count's value is its documents: one column says it
        head = [*keys, "documents", *(["value"] if valued else [])]
        lines += ["", f"| {' | '.join(head)} |", "|" + "---|" * len(head)]
        for g in groups:
            row = [*(cell(g.group[k]) for k in keys), str(g.documents), *([cell(g.value)] if valued else [])]
            lines.append(f"| {' | '.join(row)} |")
    if note := left_out(aggregate.envelope.coverage, aggregate.call.arguments["bucket"], "counted"):
        lines[0] += f" {note}"
    citations = [Citation(doc_id=g.doc_id, annotation_id=g.annotation_id) for g in relevant if g.annotation_id]
    return Answer(format="figure", text="\n".join(lines), value=value, citations=citations)


def listed(evidence: list[Evidence]) -> list[Evidence]:
    """The searches whose rows are the answer's: every annotations search but the one that checks conditions."""
    return [e for e in evidence if e.call.tool == "annotations_search" and e.call.purpose != CHECKED]


def table(
    d: Decomposition,
    evidence: list[Evidence],
    relevant: list[GradedHit],
    units: Mapping[str, str] = MappingProxyType({}),
) -> Answer:
    """The rows that answer, one per document's row, with the fields asked and those the conditions are on; a value
    of a field with a unit (`units`, given for a lookup) is said with it: "60 days", as a user asks "how much
    notice"."""
    columns = list(dict.fromkeys([*(c.field for c in d.constraints), *d.show_fields]))
    total = matched_total(e.envelope for e in listed(evidence))
    rows = list(
        {
            g.annotation_id: {
                "doc_id": g.doc_id,
                "annotation_id": g.annotation_id,
                **{c: (g.row or {}).get(c) for c in columns},
            }
            for g in relevant
            if g.annotation_id
        }.values()
    )
    if d.order_by:  # a superlative: the rows at the top of the order, out of all that match
        rows = _with_ties(rows, d.order_by.field, d.limit or 1)
        extreme = "largest" if d.order_by.direction == "desc" else "smallest"
        tied = f", {len(rows)} tied" if len(rows) > (d.limit or 1) else ""
        heading = f"The {extreme} {d.order_by.field} of {total.said} matching row(s){tied}:"
    elif total.lower_bound:
        heading = f"{total.said.capitalize()} matching rows (counting stopped there: ask how many for the figure), "
        heading += f"showing {len(rows)}:"
    else:
        heading = f"{total.count} matching row(s)" + (f", showing {len(rows)}" if len(rows) < total.count else "") + ":"
    lines = [
        heading,
        "",
        "| doc_id | " + " | ".join(columns) + " |",
        "|---|" + "---|" * len(columns),
    ]
    lines += [
        f"| {escape(r['doc_id'])} | " + " | ".join(_with_unit(r[c], units.get(c)) for c in columns) + " |" for r in rows
    ]
    if d.checks:
        lines = [*verdicts(d, evidence, rows), "", *lines]
    # the coverage of the search whose rows are shown: an earlier one may have had a condition dropped since
    covered = [e for e in listed(evidence) if e.envelope.coverage]
    searched = next((e for e in reversed(covered) if e.envelope.hits), covered[-1] if covered else None)
    of_others = not (d.intent == "lookup" and rows)
    verb = "compared" if d.order_by else "listed"  # a superlative's rows with no value are never its extreme
    if searched and (
        note := left_out(searched.envelope.coverage, searched.call.arguments["bucket"], verb, said_of_others=of_others)
    ):
        lines += ["", note]
    return Answer(
        format="table",
        text="\n".join(lines),
        rows=rows,
        citations=[Citation(doc_id=r["doc_id"], annotation_id=r["annotation_id"]) for r in rows],
    )


def _with_ties(rows: list[dict], field: str, limit: int) -> list[dict]:
    """The first `limit` rows of a superlative's order, with those after them that tie with the last ("the highest
    rating" where two recipes are rated 4.9: both, not whichever the index returned first)."""
    if len(rows) <= limit:
        return rows
    last = rows[limit - 1].get(field)
    return rows[:limit] + [r for r in rows[limit:] if last is not None and r.get(field) == last]


def _with_unit(value, unit: str | None) -> str:
    """A value with its unit; days also in the years and months they make ("730 days (2 years)"), as contracts write
    renewal terms and notice periods."""
    if not unit or value in (None, "", []) or isinstance(value, bool):
        return cell(value)
    said = []
    for v in value if isinstance(value, list) else [value]:
        months = in_years_and_months(v) if unit == "days" and isinstance(v, int) else None
        said.append(f"{cell(v)} {escape(unit)}" + (f" ({months})" if months else ""))
    return "; ".join(said)


def verdicts(d: Decomposition, evidence: list[Evidence], rows: list[dict]) -> list[str]:
    """Yes or no for each named document, with its values: "No: ... has governing_law Pennsylvania (asked:
    governing_law = Delaware)." A document with no value for a condition gets neither: what is not recorded is
    not a no."""
    met = {
        h.annotation_id
        for e in evidence
        if e.call.purpose == CHECKED
        for h in e.envelope.hits
        if isinstance(h, AnnotationHit)
    }
    asked = " and ".join(condition(c) for c in d.checks)
    said = []
    for r in rows:
        has = ", ".join(f"{c.field} {cell(r.get(c.field))}" for c in d.checks if r.get(c.field) not in (None, "", []))
        blank = [c.field for c in d.checks if r.get(c.field) in (None, "", [])]
        if r["annotation_id"] in met:
            said.append(f"Yes: {escape(r['doc_id'])} has {has} (asked: {asked}).")
        elif blank:
            said.append(f"Not recorded: {escape(r['doc_id'])} has no {' or '.join(blank)} recorded, so I cannot say "
                        f"whether {asked}.")  # fmt: skip
        else:
            said.append(f"No: {escape(r['doc_id'])} has {has} (asked: {asked}).")
    return said


def beside(rows: Answer, passages: Answer) -> Answer:
    """A lookup's table of the values its rows hold, then the passage that may state those they lack (or that none
    was found): both cited."""
    return rows.model_copy(
        update={
            "text": f"{rows.text}\n\n{passages.text}",
            "sentences": [*rows.sentences, *passages.sentences],
            "citations": [*rows.citations, *passages.citations],
        }
    )


def about_documents(d: Decomposition, evidence: list[Evidence]) -> bool:
    """Whether the question is about particular documents: it names them, or every search for passages was made
    only in the documents its conditions allow. Its answer may then quote several passages of one document."""
    searches = [e.call.arguments for e in evidence if not e.call.tool.startswith("annotations_")]
    return bool(d.doc_ids) or bool(searches) and all(a.get("filters") or a.get("doc_id") for a in searches)


def best_passages(
    evidence: list[Evidence], relevant: list[GradedHit], limit: int, per_document: int = 1
) -> list[GradedHit]:
    """The best relevant passages, at most `per_document` of each document (one: as many documents as there are
    passages), ordered by reciprocal-rank fusion of the searches that found them (BM25 and cosine scores are not
    comparable)."""
    fused = dict(reciprocal_rank_fusion([[h.chunk_id for h in e.envelope.passages()] for e in evidence]))
    passages: list[GradedHit] = []
    taken: Counter[str] = Counter()
    for g in sorted((g for g in relevant if g.chunk_id), key=lambda g: -fused.get(g.chunk_id, 0.0)):
        if taken[g.doc_id] < per_document:
            taken[g.doc_id] += 1
            passages.append(g)
        if len(passages) == limit:
            break
    return passages
