"""Grounding: any planner's reading of a question (the rules' or a model's) made to hold in the catalog, or told
what could not be mapped.

`ground` takes a `Decomposition` and returns it with every constraint in the catalog's terms (a field of its bucket,
an operator the tools take, values the field holds: "New York law" is the governing law "New York", "US dollars"
the currency "USD", "60 days" on a field of days is 60, "20 V" on a datasheet's max is 20 with the unit "V"; a
condition given as words is read as a question's conditions are), and with every check that makes the run ask
instead of answering another question. First, a question in another language than English is asked back
(`not_english`). Against the question's words, for what the reading understood
(`reading.left`): a month without its year, a unit no row is in, a comparison with nothing to compare, a name no
document holds, a word no document holds in a question for text, a sum with no amount. Against the catalog: a
bucket of documents the scope lacks, a bucket word qualifying another noun, a counted noun no bucket holds
(`another_question`), a condition no field records. The rules' constraints are already in the catalog's terms, so
for them only the checks do anything; a model's reading is grounded the same way (`LLMPlanner.decompose`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any, get_args

from pydantic import BaseModel, Field, create_model
from pydantic.json_schema import SkipJsonSchema

from english.currencies import currency_mentions
from english.dates import date_ranges
from english.language import in_another_language
from english.lexicon import DEMONYMS, FILLER, STOPWORDS
from english.numbers import parse_number
from english.quantities import in_unit, quantities, time_unit
from english.value_match import normalise
from graph.decomposition import Candidate, CatalogRead, Constraint, Decomposition, Unmapped
from graph.planners.another_question import another_bucket_or_noun, condition_left_out
from graph.planners.reading import left
from graph.planners.reading.quantities import UnitSaid, measured_in
from graph.planners.reading.understood import Read, Understood, of_model
from graph.planners.vocabulary import BucketWords, Vocabulary
from retrievers.postgres.annotation_filters import Bounds, Op
from retrievers.postgres.field_catalog import CatalogField

OPS = frozenset(get_args(Op))
OP_WORDS = {
    "==": "=", "eq": "=", "is": "=", "equals": "=", "equal": "=", "<>": "!=", "ne": "!=", "neq": "!=", "is not": "!=",
    "gt": ">", "gte": ">=", "ge": ">=", "=>": ">=", "≥": ">=", "lt": "<", "lte": "<=", "le": "<=", "=<": "<=",
    "≤": "<=", "≠": "!=", "not_in": "not in", "nin": "not in", "one of": "in", "range": "between",
}  # fmt: skip
"""Operators as models write them, as the tools' own (`retrievers.postgres.annotation_filters.Op`)."""
YES_WORDS, NO_WORDS = {"true", "yes", "y", "1"}, {"false", "no", "n", "0"}
"""How a model may write a yes/no field's value."""


class SaidConstraint(BaseModel):
    """A condition as a model may write it: any operator ("==", "gte"), any value ("New York law", "60 days")."""

    bucket: str
    field: str
    op: str = "="
    value: Any = None
    bounds: Bounds = "[]"
    source_text: str = ""


ModelReading = create_model(
    "Decomposition",  # the name the model's tool has always had
    __base__=Decomposition,
    __module__=__name__,
    __doc__="""A model's decomposition before grounding: its conditions as `SaidConstraint`s or plain words ("governed
    by New York law"), which `ground_reading` turns into constraints on catalog fields or unmapped words.""",
    constraints=(
        list[SaidConstraint | str],
        Field(
            default_factory=list,
            description="Conditions on catalog fields ({bucket, field, op, value}), or a condition in words",
        ),
    ),
    catalog_reads=(SkipJsonSchema[list[CatalogRead]], Field(default_factory=list, exclude=True)),
    unheld=(SkipJsonSchema[list[str]], Field(default_factory=list, exclude=True)),
    listed_by_text=(SkipJsonSchema[bool], Field(default=False, exclude=True)),
)


Again = Callable[[Decomposition], Read | None]
ReadConditions = Callable[[str, str], tuple[list[Constraint], list[Unmapped]]]


def ground(
    d: Decomposition,
    vocabulary: Vocabulary,
    *,
    understood: Understood | None = None,
    within: list[str] | None = None,
    again: Again | None = None,
    today: date | None = None,
) -> Decomposition:
    """`d` in the catalog's terms, or with what cannot be used in `unmapped` (the run then asks), in steps: its
    constraints grounded (`ground_constraints`), with the units their numbers are said in (`units`); the checks
    against the question's words (`reading.left`); a reading of another bucket's documents than the question is
    about (`another_bucket_or_noun`); a second reading to take instead (`again`: the rules read the question again
    in the bucket holding its names), grounded and checked the same way; a condition left out of a figure over a
    whole bucket. `understood`: which words of the question the reading took (the rules say it; a model's reading
    is laid on the question's words, `understood.of_model`, relative dates read on `today`); `within`: the buckets
    of the conversation a follow-up stays in (a follow-up's conditions are the previous turn's too, so none is left
    out)."""
    if in_another_language(d.question):
        return not_english(d, vocabulary)
    d = checked(d, vocabulary, understood or of_model(d, vocabulary, today or date.today()))
    if absent := another_bucket_or_noun(d, vocabulary, vocabulary.catalog):
        return d.model_copy(update={"unmapped": [absent]})
    if again is not None and (second := again(d)):
        d = checked(second.decomposition, vocabulary, second.understood)
    if not d.unmapped and not within and (left_out := condition_left_out(d, vocabulary)):
        return d.model_copy(update={"unmapped": [left_out]})
    return d


QUOTED_CHARS = 80
"""How much of a question in another language the run's question back quotes."""


def not_english(d: Decomposition, vocabulary: Vocabulary) -> Decomposition:
    """A question in another language than English, asked back as it is: its words read as English would be names
    no document holds ("contrato", "rige"), and the nearest values offered for them (parties' names) answer nothing.
    Nothing of the reading is kept, so nothing is searched; its buckets are every bucket of the scope, so that no
    wider search is offered either."""
    quoted = d.question if len(d.question) <= QUOTED_CHARS else d.question[:QUOTED_CHARS].rstrip() + "…"
    why = "it is not in English, the one language I read (ask it in English, please)"
    buckets = list(vocabulary.buckets) or d.buckets
    return Decomposition(question=d.question, intent="qa", buckets=buckets, unmapped=[Unmapped(text=quoted, why=why)])


def checked(d: Decomposition, vocabulary: Vocabulary, understood: Understood) -> Decomposition:
    """`d` grounded (`ground_constraints`, `units`) and checked against the question's words (`left.unmapped`)."""
    d = units(ground_constraints(d, vocabulary), vocabulary, understood)
    anyway = left.searched_anyway(d, vocabulary, understood)  # its index reads made once, for both checks
    if found := left.unmapped(d, vocabulary, understood, anyway):
        return d.model_copy(update={"unmapped": [*d.unmapped, *found]})
    return d.model_copy(update={"unheld": left.unheld(d, vocabulary, understood, anyway)})


def units(d: Decomposition, vocabulary: Vocabulary, understood: Understood) -> Decomposition:
    """A unit the question says after a number a constraint compares with ("above 20 V"), as a constraint on the
    field recording that number's unit, where no constraint is on it yet (the rules read it themselves; a model may
    leave it in its words): 400 mV is not above 20 V. A unit no row is in is left to `left.units`."""
    added: list[Constraint] = []
    for c in d.constraints:
        view = vocabulary.buckets.get(c.bucket)
        f = view.get(c.field) if view is not None else None
        if f is None or f.type not in ("integer", "number") or not c.source_text:
            continue
        said = c.source_text.lower()
        for q in understood.question.quantities:
            if q.text in said or said in q.text:
                unit = measured_in(view, f, understood.question.lowered, q.span[1])
                taken = {(k.bucket, k.field) for k in (*d.constraints, *added)}
                if unit is not None and unit.unit is not None and (c.bucket, unit.field.name) not in taken:
                    added.append(Constraint(bucket=c.bucket, field=unit.field.name, op="=", value=unit.unit,
                                            source_text=unit.word))  # fmt: skip
    return d.model_copy(update={"constraints": [*d.constraints, *added]}) if added else d


def ground_reading(reading: ModelReading, vocabulary: Vocabulary, read: ReadConditions) -> Decomposition:
    """A model's reading as a decomposition in the catalog's terms: each condition grounded (`ground_constraints`),
    each condition in words read in the reading's buckets as a question's conditions are (`read`)."""
    said = [c for c in reading.constraints if isinstance(c, SaidConstraint)]
    words = [c for c in reading.constraints if isinstance(c, str)]
    constraints, unmapped = _grounded_all(said, vocabulary)
    for text in words:
        found: list[Constraint] = []
        left: list[Unmapped] = []
        for bucket in reading.buckets:
            if bucket in vocabulary.buckets:
                more, less = read(text, bucket)
                found += more
                left += less
        constraints += found
        unmapped += left if found or left else [Unmapped(text=text, why="no field of the buckets read records it")]
    fields = reading.model_dump(exclude={"constraints", "unmapped", "catalog_reads"})
    return Decomposition(**fields, constraints=constraints, unmapped=[*reading.unmapped, *unmapped])


def ground_constraints(d: Decomposition, vocabulary: Vocabulary) -> Decomposition:
    """Every constraint of `d` in the catalog's terms; what cannot be is unmapped, with the nearest values. A
    constraint already in them (every one the rules read) is kept as it is."""
    constraints, unmapped = _grounded_all(d.constraints, vocabulary)
    if constraints == d.constraints and not unmapped:
        return d
    return d.model_copy(update={"constraints": constraints, "unmapped": [*d.unmapped, *unmapped]})


def _grounded_all(said: list, vocabulary: Vocabulary) -> tuple[list[Constraint], list[Unmapped]]:
    constraints: list[Constraint] = []
    unmapped: list[Unmapped] = []
    for c in said:
        grounded = _grounded(c, vocabulary)
        (constraints if isinstance(grounded, Constraint) else unmapped).append(grounded)
        unit = _unit_in_value(c, vocabulary) if isinstance(grounded, Constraint) else None
        if unit is not None and all((k.bucket, k.field) != (c.bucket, unit.field.name) for k in constraints):
            constraints.append(
                Constraint(bucket=c.bucket, field=unit.field.name, op="=", value=unit.unit, source_text=unit.word)
            )
    return constraints, unmapped


_NUMBER_THEN = re.compile(r"\s*[-+]?\d[\d,]*(?:\.\d+)?(?=\s*[a-zA-Z%])")
"""A number with words after it ("20 V", "500 mV"), as a model may give a value."""


def _unit_in_value(c: Constraint | SaidConstraint, vocabulary: Vocabulary) -> UnitSaid | None:
    """The unit a model's value says after its number ("20 V"), as the value its field's unit field holds."""
    view = vocabulary.buckets[c.bucket]
    f = view.get(c.field)
    value = c.value[0] if isinstance(c.value, list) and c.value else c.value
    m = _NUMBER_THEN.match(value) if isinstance(value, str) and f.type in ("integer", "number") else None
    unit = measured_in(view, f, value.lower(), m.end()) if m else None
    return unit if unit is not None and unit.unit is not None else None


def _grounded(c: Constraint | SaidConstraint, vocabulary: Vocabulary) -> Constraint | Unmapped:
    view = vocabulary.buckets.get(c.bucket)
    f = view.get(c.field) if view is not None else None
    source = c.source_text or f"{c.field} {c.op} {c.value}"
    if f is None:
        return Unmapped(text=source, why=f"{c.bucket} has no field {c.field}")
    op = OP_WORDS.get(str(c.op).strip().lower(), str(c.op).strip().lower())
    if op not in OPS:
        return Unmapped(text=source, why=f"{c.op!r} is no comparison the fields take ({', '.join(sorted(OPS))})")
    if op in ("~", "exists", "missing"):  # a text pattern, or whether the field has a value: nothing to match
        return Constraint(bucket=c.bucket, field=c.field, op=op, value=c.value, source_text=c.source_text)
    ranged = op in ("between", "not between")
    listed = op in ("in", "not in") or ranged
    said = c.value if isinstance(c.value, list) else [c.value]
    values = _values(view, f, said)
    if isinstance(values, Unmapped):
        return values.model_copy(update={"text": source}) if not values.text else values
    if ranged and len(values) != 2:
        return Unmapped(text=source, why="a range needs two ends")
    if not listed and len(values) > 1:
        op = {"=": "in", "!=": "not in"}.get(op)
        if op is None:
            return Unmapped(text=source, why=f"{c.op} compares with one value, not {len(values)}")
    value = values if listed else values[0]
    if listed and not ranged and len(values) == 1 and not isinstance(c.value, list):
        value = values
    return Constraint(bucket=c.bucket, field=c.field, op=op, value=value, bounds=c.bounds, source_text=c.source_text)


def _values(view: BucketWords, f: CatalogField, said: list[Any]) -> list[Any] | Unmapped:
    """The values of `f` the model's values name, in the field's type."""
    found: list[Any] = []
    for value in said:
        one = _value(view, f, value)
        if isinstance(one, Unmapped):
            return one
        found += [v for v in one if v not in found]
    return found


def _value(view: BucketWords, f: CatalogField, value: Any) -> list[Any] | Unmapped:
    text = str(value).strip()
    if f.type == "boolean":
        if isinstance(value, bool):
            return [value]
        if text.lower() in YES_WORDS | NO_WORDS:
            return [text.lower() in YES_WORDS]
        return Unmapped(text=text, why=f"{f.name} is yes or no")
    if f.type in ("integer", "number"):
        return _number(view, f, value, text)
    if f.type == "date":
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            return [text]
        ranges = date_ranges(text)
        if ranges and ranges[0].op == "=":
            return [ranges[0].value]
        return Unmapped(text=text, why=f"{f.name} takes a date (YYYY-MM-DD)")
    return _text_value(view, f, text)


def _number(view: BucketWords, f: CatalogField, value: Any, text: str) -> list[Any] | Unmapped:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return [value]
    said = quantities(f"= {text}") or quantities(text)
    if said and (said[0].unit or said[0].money or said[0].op == "="):
        q = said[0]
        unit = time_unit(f.unit, f.name)
        return [round(in_unit(q, unit), 2) if q.unit and unit else q.value]
    number = parse_number(text)
    if number is None and (m := _NUMBER_THEN.match(text)):  # "20 V": the number, in a unit its rows may be in
        unit = measured_in(view, f, text.lower(), m.end())
        if unit is not None and unit.why:
            return Unmapped(text=text, why=unit.why)
        number = parse_number(m.group(0)) if unit is not None else None
    return [number] if number is not None else Unmapped(text=text, why=f"{f.name} takes a number")


def _text_value(view: BucketWords, f: CatalogField, text: str) -> list[Any] | Unmapped:
    index = view.values(f)
    if text in index.values:
        return [text]
    if f.role == "currency" and re.fullmatch(r"[A-Z]{3}", text):
        return [text]  # a code, held or not (a constraint on a currency no document is in matches none, and says so)
    if f.role == "currency":
        codes = [code for m in currency_mentions(text, set(index.values)) for code in m.codes if code in index.values]
        if codes:
            return list(dict.fromkeys(codes))
    generic = view.field_words_all | STOPWORDS | FILLER
    words = normalise(text).split()
    for size in range(len(words), 0, -1):  # the longest run of words that names values, no generic word at its ends
        for start in range(len(words) - size + 1):
            part = words[start : start + size]
            if part[0] in generic or part[-1] in generic:
                continue
            match = index.match(part, generic, fuzzy=True)
            if match and (left := [w for w in words[:start] + words[start + size :] if w not in generic]):
                # "ISO 45001": "ISO" names values, "45001" none of them; every ISO standard is not what was asked
                nearest = [Candidate(field=f.name, value=v) for v in list(match.values)[:5]]
                return Unmapped(text=text, nearest=nearest, why=f"no {f.name} of {view.name} is {' '.join(left)!r}")
            if match:
                return list(match.values)
            if country := DEMONYMS.get(" ".join(part)):
                held = [v for v in index.values if country.lower() in v.lower()]
                if held:
                    return held
    nearest = [Candidate(field=f.name, value=v) for v in index.nearest(text)]
    return Unmapped(text=text, nearest=nearest, why=f"no {f.name} of {view.name} is {text!r}")
