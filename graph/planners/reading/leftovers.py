"""What no reader took: words standing where a name stands that name nothing (unmapped, with the nearest values),
words a question for text asks about that no document holds, and the content words left for a search."""

from __future__ import annotations

import re

from english.lexicon import (
    ASKING_VERBS,
    CLAUSE_WORDS,
    CONTAINING_VERBS,
    COPULAS,
    DEMONYMS,
    FILLER,
    HOLDING_VERBS,
    INDEFINITE,
    STOPWORDS,
)
from english.value_match import NEAREST_CUTOFF, NEAREST_TO_A_WORD
from graph.decomposition import Candidate, Constraint, Unmapped
from graph.planners.reading.claims import TOKEN, has_digit, overlap, plain
from graph.planners.vocabulary import BucketWords, Vocabulary
from retrievers.postgres.field_catalog import CatalogField

NEAREST = 3
THING_WORDS = 3
_ASKED_THING = re.compile(
    r"^(?:what|which|who)(?:['’]?s| is| are| was| were)? (?:the|our|your|its|their|my|a|an) (?P<thing>[^?,.;!]+)"
)
"""The thing a "what is the ..." question asks for (`asked_about` reads it up to its first stop word)."""
_NAMED_THING = re.compile(r"\b(?:from|at|by|with|in|via) (?P<thing>[^?,.;!]+)")
"""What a preposition of means, place or source introduces ("paid in bitcoin", "paid by credit card"): documents
name such things as they are. Not "about" or "for", which introduce a topic the documents may put in other words
("say about uptime" is answered by an availability clause, "screening for poor eyesight" by vision screening)."""
_TOPIC = re.compile(r"\b(?:about|regarding|concerning) (?P<thing>[^?,.;!]+)")
"""The topic a question for text asks about ("a clause about cryptocurrency payments"), which the documents may
put in other words ("poaching employees" for "solicit ... employees"): checked against the index, but only to say
that a passage answers it by its meaning, not by holding its other words (`unheld`)."""


def names_left(
    text: str,
    lowered: str,
    understood: list,
    views: list[BucketWords],
    vocabulary: Vocabulary,
    bucket_spans: list,
    value_spans: list,
    slots: set[str],
    name_spans: list = (),
    kind_spans: list = (),
) -> list[Unmapped]:
    """Words of a count, sum or list question that stand where a name stands and that nothing took, with the
    nearest values of the buckets' name fields. Where a name stands: after one of `slots` ("from", "at", "by",
    "with", "of", "for"; in a sum also AMOUNT_SLOT) or after a verb of holding and a determiner ("have an audti
    right"), after a verb of saying whose subject is the documents, beside a condition read ("Thai recipes
    mention coconut milk"; over a whole bucket, "which agreements mention data hosting?" is a search for text),
    before the bucket's noun with nothing but words a reading took between ("starbucks receipts"; "veggie
    [Indian] recipes", which left out would count every Indian recipe) unless those name a kind (`kind_spans`:
    "web [hosting agreements]" is a finer kind's name), just before a clause word ("arbitration clause"),
    capitalised inside the sentence, holding a digit ("ISO 45001"), or a people's adjective ("korean dishes under
    500 calories" listed every cuisine's: a country or cuisine no value holds). Other words left over ("came",
    "everything") only phrase the question. After "in", the nearest values are the currencies the buckets hold.
    Capitalised words just before a name a name field matched (`name_spans`) are part of that name ("Jim Nantz"). A
    lower-case word sharing its stem with a field's word is a form of that word ("renewing" beside the field word
    "renew"), not a name ("renewco" is one). A name right before the word of a text field ("Ohio law") is a value of
    that field no document holds, said so with the values recorded."""
    known = vocabulary.bucket_words | STOPWORDS | FILLER | CONTAINING_VERBS | ASKING_VERBS
    for view in views:
        known |= view.field_words_all
    field_words = {w for view in views for w in view.field_words_all if len(w) > 2}
    tokens = list(TOKEN.finditer(lowered))
    runs: list[list[int]] = []
    for i, m in enumerate(tokens):
        word = plain(m.group(0))
        left = not any(overlap(m.span(), s) for s in understood) and word not in known
        if left and text[m.start()].islower() and _inflected(word, field_words):
            continue  # "stop them from renewing" where a field says "renew": a form of a field's word, no name
        if left and len(plain(m.group(0))) > 1 and not m.group(0).isdigit() or left and has_digit(m.group(0)):
            if runs and runs[-1][-1] == i - 1:
                runs[-1].append(i)
            else:
                runs.append([i])
    found = []
    for run in runs:
        first, last = tokens[run[0]], tokens[run[-1]]
        before = tokens[run[0] - 1].group(0) if run[0] > 0 else ""
        after = last.end()
        digits = any(has_digit(tokens[i].group(0)) for i in run)
        if not digits and any(0 <= first.start() - s[1] <= 1 for s in name_spans):
            continue  # "the Free fibre invoice": words right after a name that matched describe it
        capitalised = all(text[tokens[i].start()].isupper() for i in run)
        if capitalised and any(0 <= s[0] - last.end() <= 1 for s in name_spans):
            continue  # "Jim Nantz" when "Nantz" matched the party "JAMES W. NANTZ III": a first name of that name
        following = tokens[run[-1] + 1].group(0) if run[-1] + 1 < len(tokens) else ""
        slot = (
            before in slots
            or _held(tokens, run, understood, field_words)
            or (bool(value_spans) and _said_of(tokens, run, bucket_spans, understood))
            or (bool(value_spans) and _said_by_documents(tokens, run, bucket_spans))
            or following in CLAUSE_WORDS
            or any(s[0] >= after and _modifies(lowered, after, s[0], understood, kind_spans) for s in bucket_spans)
            or digits
            or any(tokens[i].start() > 0 and text[tokens[i].start()].isupper() for i in run)
            or lowered[first.start() : last.end()] in DEMONYMS
            or any(plain(tokens[i].group(0)) in DEMONYMS for i in run)
        )
        if slot:
            phrase = text[first.start() : last.end()]
            cutoff = NEAREST_CUTOFF if capitalised or digits else NEAREST_TO_A_WORD
            nearest = [
                Candidate(field=f.name, value=value)
                for view in views
                for f in view.role("name")
                for value in view.values(f).nearest(phrase, cutoff=cutoff)
            ]
            if not capitalised and not digits:  # "from contesting ...": words, not a name; maybe a clause's
                flags = [c for view in views for c in (*view.flags_spelt(phrase), *view.flags_meant(text))]
                nearest = [*{c.field: c for c in flags}.values(), *nearest]  # a field once, first where it came
            if before == "in":
                nearest = [
                    Candidate(field=f.name, value=value)
                    for view in views
                    for f in view.role("currency")
                    for value in view.values(f).values
                ]
            if named := _field_named_after(views, lowered, after):
                view, f = named  # "Ohio law": a value of the governing law no document holds, not a party's name
                held = ", ".join(str(v) for v in view.values(f).values[:NEAREST_HELD])
                why = f"no document of {view.name} has {f.name} {phrase!r} (the values recorded include {held})"
                found.append(Unmapped(text=phrase, nearest=[], why=why))
                continue
            found.append(Unmapped(text=phrase, nearest=nearest[:NEAREST]))
    return found


def _held(tokens: list[re.Match], run: list[int], understood: list, field_words: set[str]) -> bool:
    """Whether the `run` of tokens names a thing documents hold: right after a verb of containing ("use paneer",
    "involving hemp") or after a verb of holding and a determiner ("have an audti right", "with no insurence"):
    left out, every document would be counted; and not describing a word soon after it that a reading took or a
    field's ("have a fixed initial term that ends in 2011": the term is the field's; "include a requirement to carry
    insurance": the clause is read)."""
    first, after = run[0], run[-1] + 1
    verb = tokens[first - 1].group(0) if first >= 1 else ""
    determined = first >= 2 and verb in INDEFINITE and tokens[first - 2].group(0) in HOLDING_VERBS
    if verb not in CONTAINING_VERBS and not determined:
        return False
    following = tokens[after : after + DESCRIBED_WITHIN]
    if following and following[0].group(0) in ASKING_VERBS:  # "recipes without meat take less than 30 minutes"
        return True  # a verb ends the thing held: what follows is said of the documents, not described by it
    return not any(plain(t.group(0)) in field_words or any(overlap(t.span(), s) for s in understood) for t in following)


DESCRIBED_WITHIN = 3
"""How many words after a thing held may name what it describes ("a requirement to carry insurance")."""


def _said_of(tokens: list[re.Match], run: list[int], bucket_spans: list, understood: list) -> bool:
    """Whether the `run` says what the documents the question names are, after a copula at the end of the question
    or of one of its clauses ("Indian recipes are spicy", "contracts under Texas law are losing money"), perhaps
    negated ("Thai recipes are not spicy") or after words a reading took and "and"/"or" ("recipes that are Thai and
    gluten-free"); not a verb of it ("are governed by", "were signed in", which readings of fields take). Asked
    beside a condition read only: over a whole bucket ("how many invoices are unpaid?") the yes/no fields close in
    meaning are offered instead (`another_question.condition_left_out`)."""
    first, after = run[0], run[-1] + 1
    copula = first - 1
    while copula >= 0 and (
        plain(tokens[copula].group(0)) in _BETWEEN_COPULA_AND_SAID
        or any(overlap(tokens[copula].span(), s) for s in understood)
    ):
        copula -= 1
    if copula < 0 or tokens[copula].group(0) not in COPULAS:
        return False
    if not any(end <= tokens[copula].start() for _, end in bucket_spans):
        return False
    return after == len(tokens) or tokens[after].group(0) in ("and", "or", "but")


def _said_by_documents(tokens: list[re.Match], run: list[int], bucket_spans: list) -> bool:
    """Whether the `run` follows a verb of saying ("mention", "say", "cover") whose subject is the documents: right
    after the bucket's noun or a relative pronoun ("Thai recipes mention ...", "contracts that cover ..."), not the
    user ("would you say ...")."""
    first = run[0]
    if first < 2 or tokens[first - 1].group(0) not in ASKING_VERBS:
        return False
    subject = tokens[first - 2]
    return subject.group(0) in ("that", "which", "who") or any(end == subject.end() for _, end in bucket_spans)


_BETWEEN_COPULA_AND_SAID = {"not", "and", "or", "also", "both"}
"""Words that may stand between a copula and what it says of the documents ("are not spicy", "are Thai and
gluten-free", beside words a reading took)."""


def _modifies(lowered: str, start: int, end: int, understood: list, kind_spans: list) -> bool:
    """Whether words ending at `start` modify the noun at `end`: nothing but words a reading took (and spaces or
    hyphens) stands between, and no kind's name starts there."""
    if any(start <= s < end for s, _ in kind_spans):
        return False
    return all(ch in " -" or any(s <= i < e for s, e in understood) for i, ch in enumerate(lowered[start:end], start))


NEAREST_HELD = 6
"""How many of a field's values a question back says it holds, when the question names the field with a value it
does not hold ("Ohio law") or with none it could read (`another_question.field_left_out`)."""


def _field_named_after(views: list[BucketWords], lowered: str, end: int) -> tuple[BucketWords, CatalogField] | None:
    """The text field with values that the question names right after `end` ("Ohio law": governing_law), if any."""
    for view in views:
        for f in view.typed("string"):
            if f.role == "name" or not view.values(f).values:
                continue
            if any(m.span[0] >= end and not lowered[end : m.span[0]].strip() for m in view.field_mentions(lowered, f)):
                return view, f
    return None


_INFLECTIONS = re.compile(r"(?:s|es|d|ed|ing|al|als|er|ers|ation|ations)?")
"""Endings that make another form of the same word ("renew": "renews", "renewed", "renewing", "renewal")."""


def _inflected(word: str, field_words: set[str]) -> bool:
    """Whether `word` is a field word with an English ending ("renewing"; "expiring" for "expire")."""
    for w in field_words:
        root = w[:-1] if w.endswith("e") else w
        if word.startswith(root) and _INFLECTIONS.fullmatch(word, len(root)):
            return True
    return False


def absent(
    words: list[str], buckets: list[str], constraints: list[Constraint], vocabulary: Vocabulary
) -> list[Unmapped]:
    """Words naming what a question for text asks about (`asked_about`) that no document it can be about holds (the
    keyword index finds no chunk with them): the documents its constraints allow ("the parental leave policy" is
    about policies), else every document of the scope, the question's own buckets first; a search that fails says
    nothing, so its words are not absent. The thing is in none of them ("bitcoin", "parental leave", a password),
    so the passages closest to it would answer another question."""
    searched = searched_documents(buckets, constraints, vocabulary)
    missing = held_by_none(words, searched, vocabulary)
    if not missing:
        return []
    held = "this word" if len(missing) == 1 else "these words"
    allowed = [c for c in constraints if c.bucket in searched]
    where = ", ".join(searched) + (
        f" where {' and '.join(f'{c.field} {c.op} {c.value}' for c in allowed)}" if allowed else ""
    )
    return [Unmapped(text=" ".join(missing), why=f"no document holds {held} (searched the text of {where})")]


def searched_documents(
    buckets: list[str], constraints: list[Constraint], vocabulary: Vocabulary
) -> dict[str, dict | None]:
    """The documents a question for text can be about, as {bucket: filters}: those its constraints allow, else
    every document of the scope, the question's own buckets first."""
    filters = {b: {c.field: c.condition() for c in constraints if c.bucket == b} for b in buckets}
    if not any(filters.values()):
        filters = dict.fromkeys([*buckets, *(b for b in vocabulary.buckets if b not in buckets)])
    return {b: f for b, f in filters.items() if f is None or f}


def held_by_none(words: list[str], searched: dict[str, dict | None], vocabulary: Vocabulary) -> list[str]:
    """The `words` no chunk of the `searched` documents holds (a failed count says nothing: not missing)."""
    catalog = vocabulary.catalog
    return [w for w in words if all(catalog.text_hits(b, w, f) == 0 for b, f in searched.items())]


def unheld(
    lowered: str, understood: list, buckets: list[str], constraints: list[Constraint], vocabulary: Vocabulary
) -> list[str]:
    """The topics a question for text asks about (after "about", "regarding", "concerning": "cryptocurrency
    payments") holding a word no document it can be about holds. Another word may say the same thing ("poaching"
    for "solicit"), so the run still searches; but a passage then answers only by being close in meaning: one that
    holds the topic's other words ("payments") is about something else."""
    topics = _things(lowered, understood, (_TOPIC,))
    words = list(dict.fromkeys(w for topic in topics for w in topic))
    if not words:
        return []
    missing = set(held_by_none(words, searched_documents(buckets, constraints, vocabulary), vocabulary))
    return [" ".join(topic) for topic in topics if missing & set(topic)]


def asked_about(lowered: str, understood: list) -> list[str]:
    """The content words that name what a question for text is about: the thing a "what is the ..." question asks
    for, and the words a preposition introduces, each up to THING_WORDS words and never past a stop word or a verb
    that asks (`ASKING_VERBS`), not taken by any reading. A question's other words may phrase it in words no
    document uses ("how do I get onto the VPN" is answered by how to install it), so they are not checked."""
    return list(dict.fromkeys(w for thing in _things(lowered, understood, (_ASKED_THING, _NAMED_THING)) for w in thing))


def _things(lowered: str, understood: list, patterns: tuple[re.Pattern, ...]) -> list[list[str]]:
    """The content words of each thing the `patterns` introduce, up to THING_WORDS words, never past a stop word or
    a verb that asks, and none that a reading took."""
    things = []
    for pattern in patterns:
        for m in pattern.finditer(lowered):
            words = []
            tokens = list(TOKEN.finditer(lowered, m.start("thing"), m.end("thing")))[:THING_WORDS]
            for token in tokens:
                word = plain(token.group(0))
                if word in STOPWORDS or word in ASKING_VERBS:
                    break
                taken = any(overlap(token.span(), s) for s in understood)
                if not taken and len(word) > 2 and not word.isdigit() and word not in FILLER:
                    words.append(word)
            if words:
                things.append(words)
    return things


def first_names(text: str, lowered: str, name_spans: list) -> list[tuple[int, int]]:
    """The capitalised words just before a name a name field matched (`name_spans`): its first names ("Jim Nantz"
    when "Nantz" matched the party "JAMES W. NANTZ III")."""
    found: list[tuple[int, int]] = []
    for start, _ in name_spans:
        for token in reversed([t for t in TOKEN.finditer(lowered[:start])]):
            if not text[token.start()].isupper() or start - token.end() > 1:
                break
            found.append(token.span())
            start = token.start()
    return found


def names_unread(text: str, lowered: str, understood: list, known: set[str]) -> list[str]:
    """The words capitalised inside the question ("our Starbucks supply contract") that no reading took and that
    are not `known` words (the scope's bucket and field words): a name the question gives what it is about, in
    whatever place it stands, which the documents hold as it is written when any holds it."""
    words, common = [], STOPWORDS | FILLER | known
    for token in TOKEN.finditer(lowered):
        word = plain(token.group(0))
        taken = any(overlap(token.span(), s) for s in understood)
        capitalised = token.start() > 0 and text[token.start()].isupper()
        if capitalised and not taken and len(word) > 2 and not word.isdigit() and word not in common:
            words.append(word)
    return list(dict.fromkeys(words))


def content(lowered: str, understood: list) -> bool:
    """Whether words no reading took are left: what a search for text would look for."""
    return any(w not in FILLER for w in topic_terms(lowered, understood))


def topic_terms(lowered: str, used: list) -> list[str]:
    """Content words no constraint, bucket or intent took."""
    kept = "".join(" " if any(s <= i < e for s, e in used) else ch for i, ch in enumerate(lowered))
    return list(
        dict.fromkeys(
            w for w in re.findall(r"[a-z0-9]+", kept) if w not in STOPWORDS and len(w) > 2 and not w.isdigit()
        )
    )
