"""A chat model's reading of a question, as a choice among what the catalog holds: the answer's kind, one bucket,
conditions on its fields, the field a figure is of, what to group by.

Small models (a 0.5B or 1.5B on two cores) cannot take the whole catalog in (4,500 tokens of fields took 85 s to
read) and, asked for a free-form decomposition, write operators like "==", values like "New York law" and intents
that do not fit the question. So the model is shown only what the question can concern (the candidate buckets, each
with its fields most related to the question's words, at most `MAX_FIELDS`), and its output is constrained by a JSON
schema made for this question: every field name, operator, kind and bucket is an enum, so the server's grammar lets
it write nothing else (llama.cpp turns the schema into a grammar; a hosted OpenAI model follows it as
structured output). Values stay free text: `grounding.ground_reading` matches them to the values the index holds,
and `grounding.ground` checks the reading against the question's words, as it checks the rules'. The reading the
model gives is thus a `ModelReading`, and everything after it is the same code the rules go through.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, Field, create_model
from rapidfuzz import fuzz

from english.dates import date_ranges, relative_dates
from english.numbers import parse_number
from english.quantities import in_unit, quantities, time_unit
from english.value_match import normalise
from graph.decomposition import Candidate, OrderBy
from graph.planners.grounding import NO_WORDS, ModelReading, SaidConstraint
from graph.planners.reading.flags import flag_mentions
from graph.planners.vocabulary import BucketWords
from retrievers.postgres.field_catalog import CatalogField
from tools.catalog import Catalog

MAX_FIELDS = 12
FLAGS_A_MODEL_MAY_SET = 4
FLAG_A_MODEL_MAY_SET_FLOOR = 0.25
"""A yes/no field a model sets that the question does not name must be among the 4 closest in meaning to the
question, from a cosine of 0.25, to be offered (`flags_described`). On 30 clauses described blind in everyday
words (`evals/own_contracts/clause_descriptions`), the 1.5B model's 12 right clauses ranked 1st to 4th (0.34 to
0.54); 14 of its 20 wrong ones ranked 6th to 33rd ("veggie" for `vegetarian`, named by no word, is 0.31-0.36)."""
MAX_CONDITIONS = 4
MAX_EXAMPLES = 4
OPS = ("=", "!=", ">", ">=", "<", "<=", "between", "in")
ASKS = {
    "count": "how many documents",
    "list": "which documents (a list)",
    "sum": "the total of a number field",
    "average": "the average of a number field",
    "minimum": "the smallest value of a number field",
    "maximum": "the largest value of a number field",
    "lowest": "the document with the smallest value of a number field",
    "highest": "the document with the largest value of a number field",
    "lookup": "a field's value for documents the question names",
    "text": "an answer in the documents' text",
}
"""What a question asks for, in words a small model chooses well among, each mapped to the decomposition's terms."""
EXAMPLES = """Example. Bucket books, fields:
- genre: text, e.g. Fantasy, History
- pages: number from 90 to 1200
- signed: yes/no
- author: text, e.g. Ann Lee
Question: average page count of signed fantasy books
{"bucket": "books", "asks": "average", "conditions": [{"field": "genre", "op": "=", "value": "fantasy"}, {"field": \
"signed", "op": "=", "value": true}], "of_field": "pages", "group_by": "none", "top": null}
Question: which author has the most history books
{"bucket": "books", "asks": "count", "conditions": [{"field": "genre", "op": "=", "value": "history"}], \
"of_field": "none", "group_by": "author", "top": 1}
Question: books over 500 pages
{"bucket": "books", "asks": "list", "conditions": [{"field": "pages", "op": ">", "value": 500}], "of_field": "none", \
"group_by": "none", "top": null}"""
"""Worked examples on a bucket no one has, so that they teach the form and leak no value (small models copy)."""
FIGURES = {"sum": "sum", "average": "avg", "minimum": "min", "maximum": "max"}
NUMERIC = ("integer", "number")
TODAY = date.today()
"""Any day: `stated` asks only whether the question says a date relative to one."""
MATCHED = 85
"""rapidfuzz's partial ratio at which a value's words are the question's ("vegitarian" for "vegetarian")."""


def _words(text: str) -> set[str]:
    return {w for w in normalise(text).split() if len(w) > 2}


def relevant_fields(
    fields: list[CatalogField], question: str, limit: int = MAX_FIELDS, meant: frozenset[str] = frozenset()
) -> list[CatalogField]:
    """The fields most related to the question: the yes/no fields `meant` by it in other words first (closest in
    meaning, `BucketWords.flags_meant`), then by the words their names, aliases, descriptions and values share with
    it (a bucket of 41 fields shows the dozen that matter); the numeric ones next, since a figure needs one."""
    said = _words(question)

    def related(f: CatalogField) -> tuple[bool, int, int]:
        own = _words(" ".join([f.name.replace("_", " "), f.description, *f.aliases]))
        values = _words(" ".join(str(v) for v in (f.values or f.examples)[:50]))
        return (f.name in meant, 2 * len(said & own) + len(said & values), f.type in NUMERIC)

    ranked = sorted(fields, key=related, reverse=True)
    return ranked[:limit]


def fields_lines(fields: list[CatalogField]) -> str:
    lines = []
    for f in fields:
        if f.type == "boolean":
            kind = "yes/no"
        elif f.type in NUMERIC:
            kind = f"number from {f.min} to {f.max}" if f.min is not None else "number"
            kind += f" ({f.unit})" if f.unit else ""
        elif f.type == "date":
            kind = f"date from {f.min} to {f.max}" if f.min is not None else "date"
        else:
            shown = (f.values if f.values is not None else f.examples)[:MAX_EXAMPLES]
            kind = "text, e.g. " + ", ".join(str(v) for v in shown)
        about = f"; {f.description}" if f.description else ""
        lines.append(f"- {f.name}: {kind}{about}")
    return "\n".join(lines)


def reading_schema(buckets: list[str], fields: list[CatalogField]) -> type[BaseModel]:
    """The output schema for this question: enums of these buckets, these fields, the operators and the kinds."""
    names = tuple(dict.fromkeys(f.name for f in fields)) or ("none",)
    numbers = tuple(dict.fromkeys(f.name for f in fields if f.type in NUMERIC)) or ("none",)
    condition = create_model(
        "Condition",
        field=(Literal[names], ...),
        op=(Literal[OPS], ...),
        value=(str | float | bool | list[str | float], Field(description="the value the question says")),
    )
    return create_model(
        "Reading",
        bucket=(Literal[tuple(buckets)], ...),
        asks=(Literal[tuple(ASKS)], ...),
        conditions=(list[condition], Field(default_factory=list, max_length=MAX_CONDITIONS)),
        of_field=(Literal[("none", *numbers)], Field("none", description="the number field of a figure")),
        group_by=(Literal[("none", *names)], Field("none", description="a field to give one figure per value of")),
        top=(int | None, Field(None, description="how many the question asks for, when it says (1 for 'the most')")),
    )


def prompt(question: str, views: dict[str, list[CatalogField]]) -> tuple[str, str]:
    """The system text (the same for every question: the server keeps it read) and the question's part."""
    kinds = "\n".join(f"- {name}: {words}" for name, words in ASKS.items())
    system = (
        "You read a question about a collection of documents and answer with JSON only.\n"
        "Choose what it asks for (asks):\n"
        f"{kinds}\n"
        "Give one condition per thing the question requires of the documents: a field, an operator and the value "
        "as the question says it; no condition the question does not say. For a figure, give the number field it "
        "is of (of_field). group_by and top only when the question asks per something or for the top ones. Use only "
        "the fields listed.\n"
        f"{EXAMPLES}"
    )
    return system, f"{shown(views)}\n\nQuestion: {question}"


def shown(views: dict[str, list[CatalogField]]) -> str:
    """The buckets and fields a model is shown, one line a field."""
    return "\n".join(f"Bucket {bucket}, fields:\n{fields_lines(fields)}" for bucket, fields in views.items())


def candidate_views(catalog: Catalog, buckets: list[str], question: str) -> dict[str, list[CatalogField]]:
    """Each bucket's fields a model is shown for the question (`relevant_fields`)."""
    return {
        b: relevant_fields(
            catalog.fields(b), question, meant=frozenset(c.field for c in BucketWords(b, catalog).flags_meant(question))
        )
        for b in buckets
        if catalog.fields(b)
    }


def flags_named(catalog: Catalog, buckets: list[str], question: str) -> frozenset[str]:
    """The yes/no fields the question names by their words, as the rules' reader finds them (`flags.flag_mentions`):
    the ones a model's reading may set."""
    lowered = question.lower()
    return frozenset(
        f.name for b in buckets for f in BucketWords(b, catalog).typed("boolean") if flag_mentions(f, lowered)
    )


def flags_described(catalog: Catalog, buckets: list[str], question: str) -> list[Candidate]:
    """The yes/no fields the question may describe in its own words (the `FLAGS_A_MODEL_MAY_SET` closest in
    meaning, `BucketWords.flags_meant`), as their Yes: a model's reading that sets one of these is a guess the
    human confirms. One it sets that is neither named nor described is dropped: a small model adds clauses the
    question never speaks of ("can one side walk away ... with notice" as termination for convenience and
    non-compete)."""
    return [
        c
        for b in buckets
        for c in BucketWords(b, catalog).flags_meant(question, FLAGS_A_MODEL_MAY_SET, FLAG_A_MODEL_MAY_SET_FLOOR)
    ]


def stated(question: str, value: Any, f: CatalogField) -> bool:
    """Whether the question states a condition's value: a number it says (in the field's unit of time, for a field
    of time: "an hour" is 60 on a field of minutes), words it has (typos allowed), any value of a yes/no field
    (its words are the field's), and a date where it says one (grounding reads which). A small model copies values
    from the fields it is shown ("calories >= 897", the top of the range) and makes dates up ("after the deal ends"
    as expiration_date 2020-03-01): a condition the question never stated is dropped."""
    if isinstance(value, list):
        return all(stated(question, v, f) for v in value)
    if f.type == "boolean":
        return True
    if f.type == "date":
        return bool(re.search(r"\b\d{4}\b", question) or date_ranges(question) or relative_dates(question, TODAY))
    if f.type in NUMERIC:
        number = value if isinstance(value, (int, float)) and not isinstance(value, bool) else parse_number(str(value))
        said = {parse_number(n) for n in re.findall(r"\d[\d,]*(?:\.\d+)?", question)}
        unit = time_unit(f.unit, f.name)
        said |= {in_unit(q, unit) if unit and q.unit else q.value for q in quantities(question)}
        return number is not None and any(s is not None and abs(s - number) < 1e-6 for s in said)
    text = normalise(str(value))
    return bool(text) and fuzz.partial_ratio(text, normalise(question)) >= MATCHED


class ModelChoice(NamedTuple):
    """A model's reading in the decomposition's terms, for the grounding step, and what code took out of it:
    `dropped`, conditions stated nowhere in the question (a value it never says, a yes/no field it neither names
    nor describes); `guessed`, yes/no fields the question describes without naming them (`flags_described`), to
    offer the human first rather than count. Asked about 30 clauses described blind in everyday words, the 1.5B
    model's counts over such guesses were right 4 times and wrong 6 (and once for a clause no field records), and a
    wrong count looks right."""

    reading: ModelReading
    dropped: list[str]
    guessed: list[Candidate]


def as_model_reading(
    question: str,
    chosen: BaseModel,
    fields: dict[str, CatalogField],
    named: frozenset[str],
    described: list[Candidate],
) -> ModelChoice:
    """The model's choice (`ModelChoice`), its yes/no fields checked against those the question names (`named`,
    `flags_named`) and describes (`described`, `flags_described`). A field the question describes is a guess only
    among others it may describe as well: where it is the one yes/no field close in meaning ("veggie" where a bucket
    of recipes has `vegetarian` alone), the model's reading of it is taken."""
    figure = FIGURES.get(chosen.asks)
    of_field = None if chosen.of_field == "none" else chosen.of_field
    group_by = [] if chosen.group_by == "none" else [chosen.group_by]
    reading: dict[str, Any] = {"question": question, "buckets": [chosen.bucket], "limit": chosen.top}
    if chosen.asks == "count":
        reading |= {"intent": "count", "aggregate": "count", "group_by": group_by}
    elif figure and of_field:
        reading |= {"intent": "sum", "aggregate": f"{figure}({of_field})", "group_by": group_by}
    elif chosen.asks in ("lowest", "highest") and of_field:
        direction = "asc" if chosen.asks == "lowest" else "desc"
        reading |= {
            "intent": "list",
            "order_by": OrderBy(field=of_field, direction=direction),
            "limit": chosen.top or 1,
        }
    elif chosen.asks in ("list", "lookup"):
        reading |= {"intent": chosen.asks, "show_fields": [of_field] if of_field else []}
    else:  # a figure or an extreme with no number field: the text, where the grounding finds what is missing
        reading |= {"intent": "qa"}
    sole = {described[0].field} if len(described) == 1 else set()
    said, dropped, guessed = [], [], []
    for c in chosen.conditions:
        f = fields.get(c.field)
        flag = f is not None and f.type == "boolean" and f.name not in named | sole
        meant = next((m for m in described if m.field == c.field), None) if flag else None
        if meant is not None:
            yes = c.value if isinstance(c.value, bool) else str(c.value).strip().lower() not in NO_WORDS
            guessed.append(meant if yes else Candidate(field=c.field, value=False))
            continue
        if f is not None and (flag or not stated(question, c.value, f)):
            dropped.append(f"{c.field} {c.op} {c.value}")
            continue
        op = "=" if c.op == "in" and not isinstance(c.value, list) else c.op  # "in" one value is "="
        said.append(
            SaidConstraint(bucket=chosen.bucket, field=c.field, op=op, value=c.value, source_text=_source(question, c))
        )
    return ModelChoice(ModelReading(**reading, constraints=said), dropped, guessed)


def _source(question: str, condition: BaseModel) -> str:
    """The words of the question the condition's value came from, where they are there to find."""
    value = condition.value if not isinstance(condition.value, list) else " ".join(map(str, condition.value))
    text = str(value)
    match = re.search(re.escape(text), question, re.IGNORECASE) if text else None
    return match.group(0) if match else text
