"""The `model` finder: the chat model reads a document for the fields declared `found_by="model"`, and code checks
every answer against the text before anything is stored.

The model answers one JSON object per document (`method="json_schema"`: llama.cpp turns the schema into a grammar,
so a local model's reply always parses): for each field the value and the words of the document that state it.
A value is kept only when that quote is in the document (spaces and case aside) and says the value: a string value
occurs in it, a number, date, duration or yes/no reads the same from it (`typed_value`). So a small model's guess,
or a value from its own knowledge, is dropped rather than stored as if the document said it.

A long document is cut to the passages that mention the fields' names, aliases or description words (its opening
always kept, where parties and dates are), within `PASSAGE_CHARS`, so that the prompt fits a small model's context.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field, create_model

from core.models import FieldSpec
from retrievers.extraction.found import Found
from retrievers.extraction.labelled_lines import names
from retrievers.extraction.typed_value import typed

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

PASSAGE_CHARS = 6_000
"""About 1,500 tokens of document per call: the recipes and forms whole, a contract's most relevant passages."""
_PARAGRAPH = re.compile(r"\n\s*\n")
_WORD = re.compile(r"[a-z]{3,}")
INSTRUCTIONS = (
    "You copy facts out of one document. For each field asked, give its value as the document states it and the "
    "quote: one line or sentence copied word for word from the document that states the value. When the document "
    "does not state a field, give null for both. Never guess and never use knowledge from outside the document."
)


class Stated(BaseModel):
    value: str | None = Field(description="the value as the document states it, or null")
    quote: str | None = Field(description="the line or sentence of the document that states it, copied exactly")


def _schema(specs: Sequence[FieldSpec]) -> type[BaseModel]:
    return create_model("DocumentFields", **{spec.name: (Stated, ...) for spec in specs})


def _field_words(specs: Sequence[FieldSpec]) -> set[str]:
    text = " ".join(" ".join(names(spec)) + " " + spec.description for spec in specs).lower()
    return set(_WORD.findall(text))


def passages(body: str, specs: Sequence[FieldSpec], budget: int = PASSAGE_CHARS) -> str:
    """The document cut to `budget` characters: whole when it fits, else its opening and the paragraphs that say
    the most of the fields' words, in the document's order."""
    if len(body) <= budget:
        return body
    spans = [(0, 0)]
    for match in _PARAGRAPH.finditer(body):
        spans[-1] = (spans[-1][0], match.start())
        spans.append((match.end(), match.end()))
    spans[-1] = (spans[-1][0], len(body))
    words = _field_words(specs)
    scored = sorted(
        range(1, len(spans)),
        key=lambda i: -sum(w in words for w in _WORD.findall(body[spans[i][0] : spans[i][1]].lower())),
    )
    chosen, used = {0}, min(spans[0][1] - spans[0][0], budget // 4)
    for i in scored:
        size = spans[i][1] - spans[i][0]
        if used + size <= budget:
            chosen.add(i)
            used += size
    return "\n\n".join(body[spans[i][0] : spans[i][1]][: budget // 4 if i == 0 else None] for i in sorted(chosen))


def _fields_text(specs: Sequence[FieldSpec]) -> str:
    lines = []
    for spec in specs:
        said = f"{spec.type}{' (several values)' if spec.multi else ''}{f', in {spec.unit}' if spec.unit else ''}"
        about = spec.description or ", ".join(names(spec))
        lines.append(f"- {spec.name}: {said}. {about}")
    return "\n".join(lines)


def _normalised(text: str) -> str:
    return " ".join(text.split()).casefold()


def _located(body: str, quote: str) -> tuple[int, int] | None:
    """Where `quote` stands in `body`, spaces and case aside; None when the document does not hold it."""
    words = quote.split()
    if not words:
        return None
    pattern = r"\s+".join(map(re.escape, words))
    match = re.search(pattern, body, re.IGNORECASE)
    return match.span() if match else None


def checked(body: str, spec: FieldSpec, stated: Stated) -> Found | None:
    """The model's answer for one field as a `Found`, when the quote is in the document and states the value."""
    if not stated.value or not stated.quote:
        return None
    span = _located(body, stated.quote)
    value = typed(stated.value, spec)
    if span is None or value is None:
        return None
    quote = body[span[0] : span[1]]
    says = _normalised(stated.value) in _normalised(quote) if spec.type == "string" else typed(quote, spec) == value
    return Found(value, *span) if says else None


class ModelReader:
    """A `ModelFinder` (see extractor) over one chat model."""

    def __init__(self, model: BaseChatModel):
        self.model = model

    def __call__(self, body: str, specs: list[FieldSpec]) -> dict[str, list[Found]]:
        structured = self.model.with_structured_output(_schema(specs), method="json_schema")
        prompt = f"Fields:\n{_fields_text(specs)}\n\nDocument:\n{passages(body, specs)}"
        reply = structured.invoke([("system", INSTRUCTIONS), ("human", prompt)])
        found: dict[str, list[Found]] = {}
        for spec in specs:
            answer = checked(body, spec, getattr(reply, spec.name))
            found[spec.name] = [answer] if answer else []
        return found
