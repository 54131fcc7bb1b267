"""The documents a name of the question matches, when the question asks about one document: one, several or none.

A lookup, a yes/no check or a question for text that speaks of one document, in the singular and known ("the
contract with Dialog Semiconductor", "When does the Acme distribution agreement expire?", "the Kite Pharma NDA"), is
about one document. Its name finds the documents, each counted once: by a name their title or file name holds
(`buckets.titled`), or by the conditions the value readers made of its words: a party ("the contract with Dialog
Semiconductor"), a kind ("the supply agreement" where the folder holds four), or both. One document:
the question is about it, as before. None: the name is left unmapped and the run says so, as before. Several:
answering for all of them, or from whichever passages a search finds first, is a wrong answer that looks right, so
the decomposition says which documents match (`Several`) and the run asks which (`graph.nodes.review`, clarify kind
"which"), offering them by title with the values that tell them apart. A question about several documents ("Which
contracts do we have with Lakeside Taxi?", "How many agreements with Acme?") is not asked: its name stays a
condition on every document that has it.
"""

from __future__ import annotations

import re

from english.lexicon import DEFINITE, INDEFINITE
from english.value_match import compact
from english.words import plural
from graph.decomposition import Decomposition, NamedDocument, Several
from graph.planners.vocabulary import BucketWords, Mention, Vocabulary

WHICH_OFFERED = 10
"""Documents a clarification offers at most; it says how many match when more do."""
TITLE_MATCHES = WHICH_OFFERED + 1
"""Documents read per name in titles: one more than are offered tells "more than 10" from "10"."""
VALUE_ROWS = 50
"""Annotation rows read for the documents a party's name matches (a document may have several rows)."""
SHOWN_VALUES = 3
"""Fields shown beside an offered document's title: those whose values tell the documents apart."""
SHOWN_ITEMS = 2
"""Items shown of a list value (the first parties)."""
DETERMINER_REACH = 6
"""Words looked back from a document word for its determiner ("the Acme Corp master supply agreement")."""
ONE_DOCUMENT_INTENTS = ("lookup", "qa", "summarize", "list")
"""The intents a question about one document may be read with: "What law governs the strategic alliance agreement?"
reads as the rows of that kind (a list) and still speaks of one agreement; a count or a sum never does."""
_WORD = re.compile(r"[a-z][\w'’]*")


def one_document(text: str, vocabulary: Vocabulary) -> bool:
    """Whether the question speaks of one document already known: a word for a document (an alias of a bucket:
    "contract", "agreement", "NDA") in the singular after a definite determiner ("the contract", "our NDA", "the
    Acme distribution agreement"), and none in the plural ("the contracts with X", "NDAs") or after an indefinite
    one ("a contract", "each NDA")."""
    lowered = text.lower()
    mentions = [m for _, found in vocabulary.named_buckets(lowered) for m in found]
    if not mentions or any(_plural(m) for m in mentions):
        return False
    return all(_definite(lowered[: m.span[0]]) for m in mentions)


def several_documents(text: str, vocabulary: Vocabulary) -> bool:
    """Whether the question speaks of documents in the plural ("how many contracts ...", "which agreements ...")."""
    return any(_plural(m) for _, found in vocabulary.named_buckets(text.lower()) for m in found)


def _plural(m: Mention) -> bool:
    said, alias = m.text.lower().split(), m.alias.lower().split()
    return bool(said) and plural(said[-1]) and not (alias and plural(alias[-1]))


def _definite(before: str) -> bool:
    """The nearest determiner before a word is a definite one; False when there is none near."""
    for word in reversed(_WORD.findall(before)[-DETERMINER_REACH:]):
        if word in DEFINITE:
            return True
        if word in INDEFINITE:
            return False
    return False


def asks_one(d: Decomposition, vocabulary: Vocabulary) -> bool:
    """A lookup, a list, a yes/no check or a question for text, about one document (`one_document`)."""
    return (d.intent in ONE_DOCUMENT_INTENTS or bool(d.checks)) and one_document(d.question, vocabulary)


def named_by(name: str, found: list[tuple[str, str, str]], by: str = "title") -> Several:
    """The documents whose title (or text, `by`) holds the name (`TITLE_MATCHES` read), before their values are read
    (`settled`)."""
    documents = [NamedDocument(doc_id=doc_id, bucket=bucket, title=title) for doc_id, bucket, title in found]
    return Several(
        name=name,
        by=by,
        matched=min(len(found), WHICH_OFFERED),
        more=len(found) > WHICH_OFFERED,
        documents=documents[:WHICH_OFFERED],
    )


def settled(d: Decomposition, vocabulary: Vocabulary) -> Decomposition:
    """The reading with the documents its name matches when it asks about one document and several match: those a
    title or text holds (found while reading, `named_by`), else those that meet its conditions ("the Acme distribution
    agreement" is Acme's distribution agreements; "the supply agreement" every supply agreement), named by the
    party where one is said, each with the values that tell it apart. Unchanged when it names one document, none,
    or asks about several, or when nothing tells the documents apart (`_with_values`)."""
    if d.unmapped or not asks_one(d, vocabulary):  # words that name nothing are asked about first
        return d.model_copy(update={"several": None}) if d.several else d
    if d.several is not None:
        d = _meeting_the_conditions(d, vocabulary)
    if d.several is not None:
        view = vocabulary.buckets.get(d.several.documents[0].bucket)
        return d.model_copy(update={"several": _told_apart(d.several, view, vocabulary)})
    if d.doc_ids:
        return d
    said = [c for c in d.constraints if c.op in ("=", "in") and not isinstance(c.value, bool)]
    if not said:
        return d
    named = next((c for c in said if _is_name(vocabulary, c.bucket, c.field)), said[0])
    bucket = named.bucket
    naming = {c.field for c in said}  # a yes/no clause is what is asked of the document, not which one it is
    predicates = {f: condition for f, condition in d.predicates(bucket).items() if f in naming}
    found, more = vocabulary.catalog.documents_matching(bucket, predicates, limit=VALUE_ROWS)
    if len(found) < 2 and said == [named] and _is_kind(vocabulary, bucket, named.field):
        found += _titled_as(named.value, bucket, {doc_id for doc_id, _, _ in found}, vocabulary)
    if len(found) == 1:  # the document asked about: both routes confined to it, as if its title had named it
        return d.model_copy(update={"doc_ids": [found[0][0]]})
    if not found:
        return d
    value = named.value
    several = Several(
        name=" or ".join(map(str, value)) if isinstance(value, list) else str(value),
        by="value",
        matched=len(found),
        more=more,
        documents=[NamedDocument(doc_id=doc_id, bucket=bucket, title=title) for doc_id, title, _ in found][
            :WHICH_OFFERED
        ],
    )
    rows = {doc_id: row for doc_id, _, row in found}
    return d.model_copy(update={"several": _with_values(several, vocabulary.buckets[bucket], rows)})


def _meeting_the_conditions(d: Decomposition, vocabulary: Vocabulary) -> Decomposition:
    """The documents a title or text holds the name of, kept to those that meet the question's other conditions
    on named values ("Under the Meet Group cooperation agreement, can the Harvest investors ...": two contracts
    hold "Harvest", one has the party The Meet Group): one left is the document asked about, several are asked
    which. Unchanged when none or all meet them, or when more match than were read."""
    several = d.several
    if several is None or several.more:
        return d
    bucket = several.documents[0].bucket
    said = {
        c.field for c in d.constraints if c.bucket == bucket and c.op in ("=", "in") and not isinstance(c.value, bool)
    }
    predicates = {f: condition for f, condition in d.predicates(bucket).items() if f in said}
    if not predicates:
        return d
    offered = [doc.doc_id for doc in several.documents]
    found, _ = vocabulary.catalog.documents_matching(bucket, predicates, doc_ids=offered, limit=VALUE_ROWS)
    kept = [doc for doc in several.documents if doc.doc_id in {doc_id for doc_id, _, _ in found}]
    if not kept or len(kept) == len(offered):
        return d
    doc_ids = [doc.doc_id for doc in kept]
    if len(kept) == 1:
        return d.model_copy(update={"doc_ids": doc_ids, "several": None})
    narrowed = several.model_copy(update={"documents": kept, "matched": len(kept)})
    return d.model_copy(update={"doc_ids": doc_ids, "several": narrowed})


def _is_kind(vocabulary: Vocabulary, bucket: str, field: str) -> bool:
    view = vocabulary.buckets.get(bucket)
    return view is not None and view.kind is not None and view.kind.name == field


def _titled_as(kind, bucket: str, known: set[str], vocabulary: Vocabulary) -> list[tuple[str, str | None, dict]]:
    """The other documents of the bucket whose title says the kind ("AMENDMENT TO THE DISTRIBUTOR AGREEMENT ..."
    where the rules read no kind): "our distributor agreement" may mean them too, so they are offered beside the
    one whose kind was read, with their rows."""
    kinds = kind if isinstance(kind, list) else [kind]
    titled = vocabulary.catalog.documents_titled([compact(k) for k in kinds], TITLE_MATCHES)
    others = sorted({doc_id for found in titled.values() for doc_id, b, _ in found if b == bucket} - known)
    if not others:
        return []
    rows, _ = vocabulary.catalog.documents_matching(bucket, {}, doc_ids=others, limit=VALUE_ROWS)
    return rows


def _is_name(vocabulary: Vocabulary, bucket: str, field: str) -> bool:
    view = vocabulary.buckets.get(bucket)
    f = view.get(field) if view is not None else None
    return f is not None and f.role == "name"


def _told_apart(several: Several, view: BucketWords | None, vocabulary: Vocabulary) -> Several | None:
    """The documents a title holds, with their values read (one search of their rows)."""
    if view is None:
        return several
    ids = [doc.doc_id for doc in several.documents]
    found, _ = vocabulary.catalog.documents_matching(view.name, {}, doc_ids=ids, limit=VALUE_ROWS)
    return _with_values(several, view, {doc_id: row for doc_id, _, row in found})


def _with_values(several: Several, view: BucketWords, rows: dict[str, dict]) -> Several | None:
    """Each document with the values of the fields that tell the documents apart: of kinds (a text field with a
    short value list), dates and names, in that order, those whose values differ among them, at most
    `SHOWN_VALUES`. None when neither their titles nor those values tell any two apart: copies of one document
    (the same invoice ingested twice), whose answer is the same whichever is read."""
    kinds = [f.name for f in view.fields if f.type == "string" and f.values is not None and f.role != "name"]
    fields = [*kinds, *(f.name for f in view.typed("date")), *(f.name for f in view.role("name"))]
    shown = {doc.doc_id: {f: _shown(rows.get(doc.doc_id, {}).get(f)) for f in fields} for doc in several.documents}
    apart = [f for f in fields if len({values[f] for values in shown.values()}) > 1][:SHOWN_VALUES]
    if not apart and len({doc.title for doc in several.documents}) == 1:
        return None
    documents = [
        doc.model_copy(update={"values": {f: shown[doc.doc_id][f] for f in apart if shown[doc.doc_id][f]}})
        for doc in several.documents
    ]
    return several.model_copy(update={"documents": documents})


def _shown(value: object) -> str:
    """A value as a label shows it: a list by its first items."""
    if value is None or value == [] or value == "":
        return ""
    if isinstance(value, list):
        head = ", ".join(map(str, value[:SHOWN_ITEMS]))
        return head + (f" and {len(value) - SHOWN_ITEMS} more" if len(value) > SHOWN_ITEMS else "")
    return str(value)
