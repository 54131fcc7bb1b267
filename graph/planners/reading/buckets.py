"""Documents and buckets: the documents a question names by id, the buckets it is about, and the other bucket to
read it in when its first reading leaves names that only another bucket holds."""

from __future__ import annotations

import re

from english.currencies import currency_mentions
from english.intents import AVERAGE, SUM
from english.lexicon import DEFINITE, INDEFINITE, STOPWORDS
from english.places import COUNTRY_NAMES, PLACE_NAMES
from english.value_match import compact, normalise
from english.words import POSSESSIVE, singular
from graph.decomposition import Decomposition, Several
from graph.planners.reading import which
from graph.planners.reading.claims import Claims
from graph.planners.reading.question import Question
from graph.planners.reading.understood import Understood
from graph.planners.vocabulary import BucketWords, Mention, Vocabulary, find_mentions
from retrievers.loaders.files import SUPPORTED_SUFFIXES

VALUE_BUCKET_MARGIN = 0.1
"""How much closer (cosine) another bucket's content may be before a value the question names no longer picks its
bucket: on the shared corpora, Wikipedia questions that merely mention a state or a nationality are 0.2 to 0.3 closer
to the Wikipedia paragraphs than to the contracts, while terse field questions ("What is in EUR?") are within 0.1."""
_DOC_ID = re.compile(r"(?<![\w-])[A-Za-z0-9][\w.-]*\d[\w.-]*(?![\w-])|(?<![\w-])[a-z]+_\w+")
_FILE_NAME = re.compile(
    rf"(?<![\w/.-])\w[\w/.,-]*(?:{'|'.join(re.escape(suffix) for suffix in SUPPORTED_SUFFIXES)})(?!\w)", re.IGNORECASE
)
"""A file's name as a user writes it ("pad-thai.txt", "notes/b.md"): a folder's documents are named by their paths."""
_NAME_RUN = re.compile(r"(?<![\w'’])(?:[A-Z]|[a-z](?=[A-Z]))[\w'’&.-]*(?:\s+(?:[A-Z0-9]|[a-z](?=[A-Z]))[\w'’&.-]*)*")
"""Capitalised words, or written as brands are ("iVillage", "eBay"): the runs that may name a document."""
_NAME_WORD = re.compile(r"[A-Za-z0-9][\w'’&.-]*")
MIN_NAME_CHARS = 4
"""The shortest name a title is searched for: shorter ones ("IBM", "RV") hold in too many titles by chance."""
MOST_NAMED = 3
"""A question that seems to name more documents than this names none of them: its words are common in titles."""


def doc_ids(question: Question, vocabulary: Vocabulary, claims: Claims) -> tuple[dict[str, str], Several | None]:
    """Documents the question names, with their buckets: by id ("receipt X51005361907", "cuad_042"), else by a name
    in their title or file name ("the PaxMedica master service agreement", "the Joint Corp franchise agreement"),
    with the name several titles hold when the question asks about one document by it (`titled`)."""
    said = [*_DOC_ID.finditer(question.text), *_FILE_NAME.finditer(question.text)]
    candidates = {m.group(0).rstrip(".?"): m.span() for m in said}
    found = vocabulary.catalog.documents(list(candidates)) if candidates else {}
    claims.claim(*(candidates[doc_id] for doc_id in found))
    return (found, None) if found else titled(question, vocabulary, claims)


def titled(question: Question, vocabulary: Vocabulary, claims: Claims) -> tuple[dict[str, str], Several | None]:
    """Documents the question names by a name their title holds: a run of capitalised words, whole or one of its
    words, that the title of one document only holds (spaces and punctuation aside). When no name holds in one
    title only, and one name holds in several while the question speaks of one document ("the Acme agreement",
    `which.one_document`), those documents are the ones named, with the name, for the run to ask which (`Several`).
    A capitalised name no title holds is looked for in the documents' text the same way (`_held_in_text`), unless
    the question speaks of documents in the plural: "how many contracts mention COVID?" or "... are governed by the
    laws of Mars?" is no question about the one contract whose text holds the word (an outside probe got "I found
    no passage about contracts COVID in" that contract, and a count of 1 from a row of it).
    Words that name something else are not names of a document: dates and quantities, the first word of the
    sentence, stopwords, the scope's bucket and field words, and the values of its fields: a governing law such as
    "Delaware", and a company or
    party a name field holds ("Lakeside Taxi"), which the value readers read as a condition on every document that
    has it. So titles name the documents whose names no field holds (a contract whose parties the rules did not
    find), and only in the buckets whose fields are found in their documents' text (a user's own files, which the
    user names by their file names): in a bucket of labelled pages (an encyclopedia's) a page's title is what the
    question is about, not the one document to read, and the page readers follow it (`graph.planners.pages`)."""
    own = {name for name, view in vocabulary.buckets.items() if any(f.extracted_count for f in view.fields)}
    if not own:
        return {}, None
    common, valued = _not_names(question, vocabulary), _name_values(vocabulary)
    kinds_and_values = _not_names(question, vocabulary, flags=False)
    described = [  # the whole phrase, as one name: its words alone hold in titles by chance ("master")
        ([" ".join(words)], span)
        for words, span in _described_document(question, vocabulary)
        # "the services agreement" says a kind; a clause's words describe a title ("the intellectual property
        # agreement", though "intellectual property" also names ip_ownership_assignment)
        if any(compact(singular(w)) not in kinds_and_values for w in words)
    ]
    name_runs = _name_runs(question)
    runs = [*name_runs, *described]
    capitalised = {span for _, span in name_runs}
    if not runs:
        return {}, None
    wanted: list[tuple[list[str], tuple[int, int], str]] = []
    for words, span in runs:
        whole = [compact(" ".join(words))] if len(words) > 1 else []
        candidates = [
            c
            for c in (*whole, *map(compact, words))
            if c not in common and len(c) >= MIN_NAME_CHARS and not any(c in value for value in valued)
        ]
        if candidates:
            wanted.append((candidates, span, " ".join(words)))
    looked_for = sorted({c for candidates, _, _ in wanted for c in candidates})
    titles = vocabulary.catalog.documents_titled(looked_for, which.TITLE_MATCHES)
    named: dict[str, str] = {}
    shared: list[tuple[tuple[int, int], str, list[tuple[str, str, str]], str]] = []
    for candidates, span, name in wanted:
        for candidate in candidates:
            if len(found := titles.get(candidate, [])) == 1 and found[0][1] in own:
                doc_id, bucket, _ = found[0]
                named[doc_id] = bucket
                claims.claim(span)
                break
        else:
            held = next((found for c in candidates if len(found := titles.get(c, [])) > 1), [])
            if held and {bucket for _, bucket, _ in held} <= own:
                shared.append((span, name, held, "title"))
            elif (
                not held
                and span in capitalised
                and not which.several_documents(question.text, vocabulary)  # "how many contracts mention COVID?"
                and (in_text := _held_in_text(name, common, own, vocabulary))
            ):
                if len(in_text) == 1:
                    named[in_text[0][0]] = in_text[0][1]
                    claims.claim(span)
                else:
                    shared.append((span, name, in_text, "text"))
    if named or len(shared) != 1 or not which.one_document(question.text, vocabulary):
        return (named if len(named) <= MOST_NAMED else {}), None
    span, name, held, by = shared[0]
    claims.claim(span)
    return {doc_id: bucket for doc_id, bucket, _ in held}, which.named_by(name, held, by)


TEXT_NAME_CHUNKS = 20
"""The most chunks a word of a name may be in for the documents holding it to be read: a rarer word narrows more."""


def _held_in_text(name: str, common: set[str], own: set[str], vocabulary: Vocabulary) -> list[tuple[str, str, str]]:
    """The documents (id, bucket, title), of the buckets whose fields are found in their text, whose text holds
    every word of a capitalised name no title or field holds: one ("How much notice does Brett Haumann need to
    give?": the executive of an employment agreement whose parties the rules did not read) is the document named;
    several are asked which when the question speaks of one ("our Deloitte contract", where two contracts name
    Deloitte as their auditor). None (an empty list) when no document holds it or every word of it is in too many
    chunks to tell (`TEXT_NAME_CHUNKS`). A name with a word of a name field's value ("Agape ODM": the party AGAPE
    ATP CORP) or a place ("Canadian law") is the value readers' to read, not a document's name."""
    words = [w for w in normalise(name).split() if w not in common and w not in STOPWORDS and len(w) > 2]
    name_words = set().union(*(view.values(f).words for view in vocabulary.buckets.values() for f in view.role("name")))
    if any(w in PLACE_NAMES or w in COUNTRY_NAMES or w in name_words for w in words):
        return []
    found: list[tuple[str, str, str]] = []
    for bucket in sorted(own):
        holding = {w: vocabulary.catalog.documents_holding(bucket, w, limit=TEXT_NAME_CHUNKS) for w in words}
        known = [docs for docs in holding.values() if docs is not None]
        if not known or not all(known):
            continue  # every word too common to tell, or one no document of the bucket holds
        unknown = [w for w, docs in holding.items() if docs is None]
        held = set.intersection(*map(set, known))
        every = [d for d in held if all(_holds(vocabulary, bucket, d, w) for w in unknown)]
        if every:
            rows, _ = vocabulary.catalog.documents_matching(bucket, {}, doc_ids=sorted(every), limit=which.VALUE_ROWS)
            titles = {doc_id: title for doc_id, title, _ in rows}
            found += [(doc_id, bucket, titles.get(doc_id) or doc_id) for doc_id in sorted(every)]
    return found


def _holds(vocabulary: Vocabulary, bucket: str, doc_id: str, word: str) -> bool:
    """Whether the document's text holds `word` (in more chunks than are read counts)."""
    return vocabulary.catalog.documents_holding(bucket, word, doc_id, limit=TEXT_NAME_CHUNKS) != []


def _name_runs(question: Question) -> list[tuple[list[str], tuple[int, int]]]:
    """The runs of capitalised words that may name something, each as its words and its span; not a date or a
    quantity ("March 2018"), nor the sentence's first word or leading stopwords ("The Joint Corp" is "Joint Corp")."""
    said = [d.span for d in (*question.dates, *question.relative_dates)] + [q.span for q in question.quantities]
    runs = []
    for run in _NAME_RUN.finditer(question.text):
        if any(start < run.end() and run.start() < end for start, end in said):
            continue
        words = [POSSESSIVE.sub("", w) for w in _NAME_WORD.findall(run.group(0))]
        if run.start() == 0 and (len(words) == 1 or words[0].lower() in STOPWORDS):
            words = words[1:]  # capitalised because it begins the sentence
        while words and words[0].lower() in STOPWORDS:
            words = words[1:]
        if words:
            runs.append((words, run.span()))
    return runs


_LOWER_WORD = re.compile(r"[a-z][\w'’&-]*")


def _described_document(question: Question, vocabulary: Vocabulary) -> list[tuple[list[str], tuple[int, int]]]:
    """The words between the determiner and the document word of a question about one document, with that word
    ("the content license agreement"): written in lower case, they still describe the title the user means, and
    "content" is no name left over. Read only where the question gives no name ("the Arconic trademark license"
    is Arconic's, whichever other titles say "trademark license")."""
    if not which.one_document(question.text, vocabulary):
        return []
    lowered = question.lowered
    runs = []
    for _, mentions in vocabulary.named_buckets(lowered):
        for m in mentions:
            before = list(_LOWER_WORD.finditer(lowered, max(0, m.span[0] - 80), m.span[0]))
            words: list[re.Match[str]] = []
            for word in reversed(before[-which.DETERMINER_REACH :]):
                said = word.group(0)
                if question.text[word.start()].isupper():
                    words = []  # a name is said too, and read as one (`_name_runs`): the words only qualify it
                    break
                if said in DEFINITE or said in INDEFINITE or said in STOPWORDS:
                    break
                words.insert(0, word)
            if words:
                runs.append(([*(w.group(0) for w in words), *m.text.split()], (words[0].start(), m.span[1])))
    # "license" inside "content license agreement" is a document word too: the longest phrase only
    return [r for r in runs if not any(o[1][0] <= r[1][0] and r[1][1] < o[1][1] for o in runs)]


def _name_values(vocabulary: Vocabulary) -> set[str]:
    """The values of the scope's name fields (companies, parties), compacted."""
    return {
        compact(value)
        for view in vocabulary.buckets.values()
        for f in view.role("name")
        for value in view.values(f).values
    }


def _not_names(question: Question, vocabulary: Vocabulary, flags: bool = True) -> set[str]:
    """The compacted words that name buckets, fields (but yes/no fields unless `flags`) or non-name values of the
    scope, and the stopwords."""
    words = {compact(w) for w in (*STOPWORDS, *question.bucket_words)}
    for view in vocabulary.buckets.values():
        for f in (f for f in view.fields if flags or f.type != "boolean"):
            said = [f.name, *f.name.split("_"), *f.aliases, *([] if f.role == "name" else map(str, f.values or []))]
            words |= {compact(part) for text in said for part in (text, *str(text).split())}
    return words


def named(question: Question, vocabulary: Vocabulary, within: list[str] | None, doc_ids: dict[str, str]) -> list[str]:
    """The buckets the question is about (`buckets`); where its words name them is kept in `question.mentions`."""
    names, question.mentions = buckets(question, vocabulary, within, doc_ids)
    return names


def buckets(
    question: Question, vocabulary: Vocabulary, within: list[str] | None, doc_ids: dict[str, str]
) -> tuple[list[str], list[tuple[str, list[Mention]]]]:
    """The buckets, and where the words name them. The bucket of a document the question names; a bucket the words
    name; for a sum or an average, the one bucket with a number field it names; else the one bucket whose values the
    question names, unless its content is clearly farther from the
    question than another bucket's (a value is a weak sign on its own: "Virginia" in "Virginia Woolf" also matches
    a governing law); else the bucket whose content is closest."""
    if doc_ids:
        return list(dict.fromkeys(doc_ids.values())), []
    lowered = question.lowered
    named = vocabulary.named_buckets(lowered)
    if named:
        return [b for b, _ in named][:2], named[:2]
    if within := [b for b in within or () if b in vocabulary.buckets]:
        return within, []
    if len(measured := _measuring(lowered, vocabulary)) == 1:
        return measured, []
    by_values = [b for b, view in vocabulary.buckets.items() if _names_a_value(view, lowered)]
    closeness = vocabulary.catalog.closeness(question.text) if len(vocabulary.buckets) > 1 else {}
    closest = max(closeness, key=closeness.get) if closeness else None
    if len(by_values) == 1 and (
        closest is None or closeness.get(by_values[0], -1.0) >= closeness[closest] - VALUE_BUCKET_MARGIN
    ):
        return by_values, []
    every = vocabulary.buckets
    return [closest or ("generic" if "generic" in every else next(iter(every)))], []


def _measuring(lowered: str, vocabulary: Vocabulary) -> list[str]:
    """For a sum or an average ("what is the average rating?"), the buckets with a number field the question names:
    a figure is computed over one, and the bucket closest in content (contracts) holds no rating."""
    if not (AVERAGE.search(lowered) or SUM.search(lowered)):
        return []
    return [
        name
        for name, view in vocabulary.buckets.items()
        if any(view.field_mentions(lowered, f) for f in view.typed("integer", "number"))
    ]


def searched_too(d: Decomposition, understood: Understood, vocabulary: Vocabulary) -> Decomposition:
    """A question for text that names a bucket, with no condition or document, searched in the closest bucket too
    (`with_closest`)."""
    if d.intent not in ("qa", "summarize") or not understood.bucket_spans or d.constraints or d.doc_ids:
        return d
    return d.model_copy(update={"buckets": with_closest(d.question, vocabulary, d.buckets)})


def with_closest(text: str, vocabulary: Vocabulary, buckets: list[str]) -> list[str]:
    """A question for text that names a bucket ("why did the invoice export job stop?") may be answered by a
    document of another (the postmortem among the memos): the bucket whose content is closest is searched too."""
    closeness = vocabulary.catalog.closeness(text) if len(vocabulary.buckets) > 1 else {}
    closest = max(closeness, key=closeness.get) if closeness else None
    return buckets if closest is None or closest in buckets else [*buckets, closest]


def _names_a_value(view: BucketWords, lowered: str) -> bool:
    """Whether the question names a whole value of one of the bucket's short-listed fields (a governing law, a
    currency, a kind of document), or a currency its currency field holds ("Indian rupees"): the sign that picks a
    bucket no word names."""
    for f in view.role("currency"):
        held = set(view.values(f).values)
        if any(set(m.codes) & held for m in currency_mentions(lowered, held)):
            return True
    said = f" {normalise(lowered)} "
    return any(f" {value} " in said or f" {value}s " in said for value in view.short_values)


def bucket_instead(d: Decomposition, vocabulary: Vocabulary) -> str | None:
    """Another bucket to read the question in: the one holding every name left unmatched (unless the question says
    its bucket by name), or, for a sum in a bucket without amounts, the closest bucket with some."""
    names_left = d.unmapped and not any(u.why for u in d.unmapped)
    if names_left and not _names_a_bucket_by_name(d, vocabulary) and (holding := _bucket_holding(d, vocabulary)):
        return holding
    if d.intent == "sum" and d.aggregate is None:
        return _bucket_with_amounts(d, vocabulary)
    return None


def _bucket_with_amounts(d: Decomposition, vocabulary: Vocabulary) -> str | None:
    """For a sum or average asked of a bucket chosen by closeness that holds no amount ("How much did we spend at
    Starbuks?" is close to a Wikipedia paragraph): the closest bucket that has an amount field."""
    if d.constraints or d.doc_ids or vocabulary.named_buckets(d.question.lower()):
        return None
    with_amounts = [b for b, view in vocabulary.buckets.items() if view.role("money")]
    closeness = vocabulary.catalog.closeness(d.question)
    ranked = sorted(with_amounts, key=lambda b: closeness.get(b, -1.0), reverse=True)
    return ranked[0] if ranked else None


def _names_a_bucket_by_name(d: Decomposition, vocabulary: Vocabulary) -> bool:
    """The question says a bucket's own name ("receipts", "contract"), not just a word of it ("bill"): then an
    unmatched name is looked for in that bucket only ("receipts from ab" is not the contracts of Ameris Bancorp,
    whose initials are AB)."""
    lowered = d.question.lower()
    return any(find_mentions(lowered, [b, b.rstrip("s")], whole=True) for b in vocabulary.buckets)


def _bucket_holding(d: Decomposition, vocabulary: Vocabulary) -> str | None:
    """The one other bucket whose values every unmapped phrase names: "largest gardenia bill" says "bill" (an
    invoice word) of a shop whose receipts are in another bucket. Not for words whose `why` says what the index
    lacks (a currency the amounts are not in, a word no document holds): they name no value."""
    holding = []
    for name, view in vocabulary.buckets.items():
        if name in d.buckets:
            continue
        fields = view.typed("string")
        if all(any(view.values(f).match(normalise(u.text).split(), STOPWORDS) for f in fields) for u in d.unmapped):
            holding.append(name)
    return holding[0] if len(holding) == 1 else None
