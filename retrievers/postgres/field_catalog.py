"""The field catalog of a bucket: what each annotation field is, derived from the data.

A loader may declare a field's type, description and vocabulary (`FieldSpec`); everything else (which kind of row it
is on, how many documents have it, example values, and the full value list of low-cardinality fields)
is computed from the stored rows, so the catalog always describes what a predicate will actually match.
A user's own words for a bucket or field (`Vocabulary`) are laid over the catalog when it is read.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, TypeVar

from pydantic import BaseModel, Field

from core.models import FieldRole, FieldSpec, clean_aliases

LOW_CARDINALITY = 40
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class CatalogField(BaseModel):
    """One field of one row kind in a bucket, as the agent and the tool schemas see it."""

    kind: str
    name: str
    type: str
    multi: bool
    description: str = ""
    doc_count: int
    extracted_count: int = 0
    """The documents whose value was found in their own text (`retrievers.extraction`), not labelled."""
    model_count: int = 0
    """Of those, the documents whose value the chat model read (`ragent extract --model`), the rest by rules."""
    bucket_documents: int | None = None
    """The documents of the bucket in the scope when the catalog was computed, with or without this field: what an
    answer over the field compares `doc_count` with to say whom it leaves out (None in catalogs from before)."""
    distinct_count: int
    examples: list[Any]
    values: list[Any] | None = None
    min: Any = None
    max: Any = None
    # The vocabulary (see FieldSpec). Defaults, so that entries stored before it existed still validate.
    aliases: list[str] = Field(default_factory=list)
    role: FieldRole = ""
    unit: str = ""
    unit_field: str = ""


Described = TypeVar("Described", "CatalogField", FieldSpec)
"""What the user's words lay over: a catalog entry or a field's declaration (both carry the vocabulary)."""


class Vocabulary(BaseModel):
    """What a user said about a bucket (`field` '') or one of its fields, with `ragent catalog describe`.

    Kept apart from the loader's specs, so that a re-ingest (which records the loader's specs again) never wipes it,
    and laid over the catalog whenever it is read, so that it counts at once, with no catalog refresh. Empty text
    means "as the loader says"; `removed_aliases` takes back words the loader declared.
    """

    bucket: str
    field: str = ""
    aliases: list[str] = Field(default_factory=list)
    removed_aliases: list[str] = Field(default_factory=list)
    description: str = ""
    role: FieldRole = ""
    unit: str = ""
    unit_field: str = ""

    def edited(
        self,
        *,
        aliases: list[str],
        remove_aliases: list[str],
        description: str | None,
        role: str | None,
        unit: str | None,
        unit_field: str | None,
    ) -> Vocabulary:
        """This vocabulary with one edit applied: aliases added or removed (the latest word wins, so an alias
        removed earlier can be added back), and the given texts set ('' gives the loader's back)."""
        added, removed = clean_aliases(aliases), clean_aliases(remove_aliases)
        gone = {a.casefold() for a in removed}
        if both := [a for a in added if a.casefold() in gone]:
            raise ValueError(f"alias {both[0]!r} is both added and removed; say which")
        now = {a.casefold() for a in added}
        texts = {"description": description, "role": role, "unit": unit, "unit_field": unit_field}
        return Vocabulary.model_validate(
            {
                **self.model_dump(),
                "aliases": [a for a in clean_aliases([*self.aliases, *added]) if a.casefold() not in gone],
                "removed_aliases": [
                    a for a in clean_aliases([*self.removed_aliases, *removed]) if a.casefold() not in now
                ],
                **{name: value.strip() for name, value in texts.items() if value is not None},
            }
        )

    def aliases_over(self, declared: list[str]) -> list[str]:
        """The loader's aliases with the user's added and the user's removals taken out."""
        removed = {a.casefold() for a in self.removed_aliases}
        return [a for a in clean_aliases([*declared, *self.aliases]) if a.casefold() not in removed]

    def over(self, entry: Described) -> Described:
        """The catalog entry (or the field's declaration) as the user describes it."""
        return entry.model_copy(
            update={
                "aliases": self.aliases_over(entry.aliases),
                "description": self.description or entry.description,
                "role": self.role or entry.role,
                "unit": self.unit or entry.unit,
                "unit_field": self.unit_field or entry.unit_field,
            }
        )


def infer_type(values: list[Any]) -> str:
    """The narrowest type every value fits: boolean, integer, number, date (ISO strings) or string."""
    if all(isinstance(v, bool) for v in values):
        return "boolean"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "integer"
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return "number"
    if all(isinstance(v, str) and _ISO_DATE.match(v) for v in values):
        return "date"
    return "string"


def _of_type(value: Any, ftype: str) -> bool:
    """Whether `value` is of a catalog type (an integer counts as a number, a boolean as neither)."""
    if ftype == "date":
        return isinstance(value, str) and bool(_ISO_DATE.match(value))
    if ftype == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def build_field(
    kind: str,
    name: str,
    value_counts: Counter,
    doc_count: int,
    multi: bool,
    spec: FieldSpec | None,
    bucket_documents: int | None = None,
    extracted_count: int = 0,
    model_count: int = 0,
) -> CatalogField:
    """Catalog entry from the (value -> rows) counts of one field. The range of a number or date field is that of
    its values of that type: a field declared a number may still hold a stray text value ("n/a"), which the
    predicates skip as they skip it, and which cannot be ordered beside numbers."""
    values = list(value_counts)
    ftype = spec.type if spec else infer_type(values)
    by_frequency = [v for v, _ in value_counts.most_common()]
    ordered = sorted(v for v in values if _of_type(v, ftype)) if ftype in ("integer", "number", "date") else None
    return CatalogField(
        kind=kind,
        name=name,
        type=ftype,
        multi=multi or bool(spec and spec.multi),
        description=spec.description if spec else "",
        doc_count=doc_count,
        extracted_count=extracted_count,
        model_count=model_count,
        bucket_documents=bucket_documents,
        distinct_count=len(values),
        examples=by_frequency[:5],
        values=by_frequency if ftype in ("string", "boolean") and len(values) <= LOW_CARDINALITY else None,
        min=ordered[0] if ordered else None,
        max=ordered[-1] if ordered else None,
        **(spec.model_dump(include={"aliases", "role", "unit", "unit_field"}) if spec else {}),
    )
