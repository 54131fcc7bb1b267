"""The checks a written answer passes before anyone sees it: deterministic, no second model.

A draft is text whose sentences end with the numbers of the evidence items they rest on ("... in 1943 [2]."). For
each sentence:
- every citation must be an item of the evidence given (a number outside the list, or anything else in brackets,
  is a fabricated citation);
- every number it writes must be in the items it cites or in the question (an aggregate's figure is an item);
- its key terms must be in the items it cites: the words of every proper name it writes, and at least SUPPORT_SHARE of
  its content words that the question does not already hold (a sentence from the model's own knowledge, citing
  an item about something else, fails here);
- it must cite something.
A fabricated citation or a number the evidence does not hold is `fatal`: the draft cannot be trusted in part and
is written again. A sentence that only fails on support is dropped from the answer and kept, with its reasons, in
the record.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from english.names import Name, proper_names
from english.numbers import COUNT_WORDS
from english.sentences import numbers, same_number, split_sentences
from english.words import holds, stem, stems
from graph.schemas import CheckedSentence, Citation
from tools.snippets import PARAGRAPH_BREAK

SUPPORT_SHARE = 0.5
NUMBER_STEMS = {stem(word) for word in COUNT_WORDS}
"""A count's word is checked as a number, not as a word the evidence must hold."""
_MARKERS = re.compile(r"\s*\[([^\[\]]{1,60})\]")
_LEADING_MARKERS = re.compile(r"^(?:\s*\[[^\[\]]{1,60}\])+")
_KEY_SEPARATOR = re.compile(r"[,;]")


@dataclass(frozen=True)
class EvidenceItem:
    """One numbered piece of evidence the model is shown: a passage, or the computed figure or table, with the
    citations a sentence resting on it carries."""

    number: int
    label: str
    text: str
    citations: tuple[Citation, ...]


@dataclass(frozen=True)
class Checked:
    sentence: CheckedSentence
    items: tuple[EvidenceItem, ...]
    fatal: bool


def _keys(text: str) -> list[str]:
    return [k.strip() for m in _MARKERS.finditer(text) for k in _KEY_SEPARATOR.split(m.group(1)) if k.strip()]


def parse_draft(text: str) -> list[tuple[str, list[str]]]:
    """The draft's sentences without their markers, each with the keys its markers hold. Markers a segmenter put
    at the start of the next sentence ("... 1943. [2] The ...") belong to the sentence before."""
    drafts: list[tuple[str, list[str]]] = []
    for sentence in split_sentences(text, PARAGRAPH_BREAK):
        leading = _LEADING_MARKERS.match(sentence)
        if leading and drafts:
            drafts[-1][1].extend(_keys(leading.group()))
            sentence = sentence[leading.end() :]
        if plain := _MARKERS.sub("", sentence).strip():
            drafts.append((plain, _keys(sentence)))
    return drafts


def _unsupported_numbers(text: str, cited: list[EvidenceItem], question: str) -> list[str]:
    held = [n for item in cited for n in numbers(item.text)] + numbers(question)
    return [str(n) for n in numbers(text) if not any(same_number(n, h) for h in held)]


def _has_digit(word: str) -> bool:
    """A word with digits ("RM33", "2019") is a quantity, which the number check judges."""
    return any(ch.isdigit() for ch in word)


def _name_words(name: Name, sentence: str) -> list[str]:
    """The words of a name that the evidence must hold, by their stems: all of them ("Richard Nixon" is held by
    "Richard Milhous Nixon"), except a first word that only starts the sentence ("After Mummulgum", "If Nike")."""
    words = [w for w in stems(name.text) if not _has_digit(w)]
    opens = not sentence[: name.span[0]].strip()
    return words[1:] if opens and len(words) > 1 else words


def _unsupported_terms(text: str, cited: list[EvidenceItem], question: str) -> list[str]:
    """Why the cited items do not hold the sentence's key terms; nothing when they do."""
    source = " ".join(item.text for item in cited)
    known = f"{source} {question}".lower()
    problems = [
        f"the name {name.text!r} is not in the evidence it cites"
        for name in proper_names(text)
        if (words := _name_words(name, text)) and holds(known, words) < 1
    ]
    asked = set(stems(question))
    terms = [t for t in dict.fromkeys(stems(text)) if t not in asked and t not in NUMBER_STEMS and not _has_digit(t)]
    if terms and holds(source.lower(), terms) < SUPPORT_SHARE:
        missing = [t for t in terms if not holds(source.lower(), [t])]
        problems.append(f"the evidence it cites does not hold most of its words (missing: {', '.join(missing)})")
    return problems


def check_sentence(text: str, keys: list[str], items: list[EvidenceItem], question: str) -> Checked:
    by_number = {str(item.number): item for item in items}
    fabricated = [k for k in keys if k not in by_number]
    cited = [by_number[k] for k in dict.fromkeys(keys) if k in by_number]
    problems = [f"it cites [{k}], which is not an evidence item (1-{len(items)})" for k in fabricated]
    wrong_numbers = _unsupported_numbers(text, cited, question)
    problems += [f"the number {n} is not in the evidence it cites" for n in wrong_numbers]
    if not keys:
        problems.append("it cites no evidence")
    elif cited:
        problems += _unsupported_terms(text, cited, question)
    sentence = CheckedSentence(
        text=text,
        citations=[c for item in cited for c in item.citations],
        verdict="unsupported" if problems else "supported",
        problems=problems,
    )
    return Checked(sentence, tuple(cited), fatal=bool(fabricated or wrong_numbers))


def check_draft(draft: str, items: list[EvidenceItem], question: str) -> list[Checked]:
    """Every sentence of the draft, checked."""
    return [check_sentence(text, keys, items, question) for text, keys in parse_draft(draft)]
