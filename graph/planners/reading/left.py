"""What a reading left that makes the run ask, checked against the question's words (`Understood`), whichever planner
read it: `grounding.ground` runs these checks for the rules' readings and a model's alike.

For a count, sum or list (not of documents named by id): a month without its year, a unit no row is in, a
comparison with nothing to compare, words standing where a name stands that name nothing. For a question for text:
the words naming what it asks about that no document holds, and the topics it asks about that hold such a word
(`unheld`, which do not make the run ask). For a sum: an amount to add up.
"""

from __future__ import annotations

import re

from english.dates import MONTH_WORD
from english.intents import is_claim
from english.lexicon import AMOUNT_SLOT, CLAUSE_WORDS, FILLER, NAME_SLOT, STOPWORDS, TOPIC_SLOT
from graph.decomposition import STRUCTURED_INTENTS, Constraint, Decomposition, Unmapped
from graph.planners.reading import leftovers, quantities
from graph.planners.reading.understood import Understood
from graph.planners.vocabulary import BucketWords, Vocabulary


def unmapped(d: Decomposition, vocabulary: Vocabulary, understood: Understood, anyway: list[str]) -> list[Unmapped]:
    """Every check of `d` against the question's words, in this order: those of a count, sum or list (`unreadable`)
    or of a question for text (`absent`), then the amount a sum needs. A question for text about documents it names
    (by id, or by a party's name) is searched in them whatever words it uses: they are the documents it is about,
    so their passages can only be theirs, and the answer says when none holds what it asks ("NFL" where the
    endorsement says "National Football League"); so is a claim `anyway` says to search (`searched_anyway`)."""
    views = [vocabulary.buckets[b] for b in d.buckets if b in vocabulary.buckets]
    found: list[Unmapped] = []
    if not d.doc_ids and d.intent in STRUCTURED_INTENTS:
        found += unreadable(understood, views, d.constraints, d.intent, vocabulary)
    elif not (d.doc_ids or on_names(views, d.constraints) or anyway):
        found += absent(understood, views, d.buckets, d.constraints, vocabulary)
    if d.intent == "sum" and d.aggregate is None:
        found.append(Unmapped(text=f"an amount to add up in {', '.join(d.buckets)}"))
    return found


def unreadable(
    understood: Understood, views: list[BucketWords], constraints: list[Constraint], intent: str, vocabulary: Vocabulary
) -> list[Unmapped]:
    """What a count, sum or list cannot be computed without: `unread` words, then names left."""
    return [*unread(understood, views, constraints), *names(understood, views, constraints, intent, vocabulary)]


def clause_held(
    understood: Understood, buckets: list[str], constraints: list[Constraint], vocabulary: Vocabulary
) -> bool:
    """A clause named by words the documents hold, just before a word for a clause ("which agreements have a
    non-solicitation clause covering staff?"): a list of the documents with that clause, which the passages its
    words find are not (a blind question was answered with passages on rebates and confidentiality). A clause said
    only by what it is about ("a clause about cryptocurrency payments") stays a question for text, whose answer
    says when no document speaks of it."""
    lowered = understood.question.lowered
    named = [w for m in _NAMED_CLAUSE.finditer(lowered) for w in _after_the_last_stopword(m["name"])]
    if not named:
        return False
    return not leftovers.held_by_none(named, leftovers.searched_documents(buckets, constraints, vocabulary), vocabulary)


def _after_the_last_stopword(words: str) -> list[str]:
    """ "have a non-solicitation" -> ["non", "solicitation"]; "contracts have a" -> []."""
    found = re.findall(r"[a-z]+", words)
    stops = [i for i, w in enumerate(found) if w in STOPWORDS]
    return [w for w in found[stops[-1] + 1 if stops else 0 :] if w not in FILLER]


_NAMED_CLAUSE = re.compile(rf"(?P<name>(?:[a-z][\w-]*\s+){{1,3}}?)(?:{'|'.join(sorted(CLAUSE_WORDS))})\b")
"""Up to three words before a word for a clause; those after a stopword ("a", "any") name it."""


def unread(understood: Understood, views: list[BucketWords], constraints: list[Constraint]) -> list[Unmapped]:
    """Words read that no field can take: months without their year, units no row is in, comparisons with nothing
    to compare."""
    return [*months(understood), *units(understood, views, constraints), *quantities.dangling(understood.question)]


def months(understood: Understood) -> list[Unmapped]:
    """A month said without its year ("in March"), which the readings set aside: of which year?"""
    lowered = understood.question.lowered
    return [
        Unmapped(text=f"{lowered[s:e]} (of which year?)")
        for s, e in understood.set_aside
        if MONTH_WORD.fullmatch(lowered[s:e])
    ]


def units(understood: Understood, views: list[BucketWords], constraints: list[Constraint]) -> list[Unmapped]:
    """A unit said after a number a condition compares with ("above 3 hertz", "over 5 volts") that the field's rows
    are never in (`quantities.measured_in`)."""
    question = understood.question
    found: list[Unmapped] = []
    for view in views:
        for c in constraints:
            f = view.get(c.field) if c.bucket == view.name else None
            if f is None or f.type not in ("integer", "number") or not c.source_text:
                continue
            said = c.source_text.lower()
            for q in question.quantities:
                if q.text in said or said in q.text:
                    unit = quantities.measured_in(view, f, question.lowered, q.span[1])
                    if unit is not None and unit.why and all(u.text != unit.text for u in found):
                        found.append(Unmapped(text=unit.text, why=unit.why))
    return found


def names(
    understood: Understood, views: list[BucketWords], constraints: list[Constraint], intent: str, vocabulary: Vocabulary
) -> list[Unmapped]:
    """Words standing where a name stands that no reading took (`leftovers.names_left`); in a sum, also after the
    words that say what was paid for; beside a condition read, also what the documents are said to be about
    ("New York law contracts about software": a figure over them all would leave it out; "contracts with a clause
    about cryptocurrency" alone is a question for the text)."""
    question = understood.question
    slots = NAME_SLOT | (TOPIC_SLOT if constraints else set()) | (AMOUNT_SLOT if intent == "sum" else set())
    found = leftovers.names_left(
        question.text,
        question.lowered,
        understood.spans,
        views,
        vocabulary,
        list(understood.bucket_spans),
        said_at(understood, constraints),
        slots,
        name_spans=said_at(understood, on_names(views, constraints)),
        kind_spans=said_at(understood, on_kinds(views, constraints)),
    )
    asked = {(c.field, repr(c.value)) for c in constraints}  # "quick vegetarian": not "did you mean vegetarian?"
    return [
        u.model_copy(update={"nearest": [c for c in u.nearest if (c.field, repr(c.value)) not in asked]}) for u in found
    ]


def absent(
    understood: Understood,
    views: list[BucketWords],
    buckets: list[str],
    constraints: list[Constraint],
    vocabulary: Vocabulary,
) -> list[Unmapped]:
    """The words a question for text asks about that no document it can be about holds (`leftovers.absent`): the
    names it gives that nothing read, first (a name no document holds means the documents it is about are not
    there: "our Starbucks supply contract"), then what it asks about; a field's words are no topic ("the due date
    on ..."), nor a first name of a party the question names."""
    return leftovers.absent(asked_words(understood, views, constraints, vocabulary), buckets, constraints, vocabulary)


def asked_words(
    understood: Understood, views: list[BucketWords], constraints: list[Constraint], vocabulary: Vocabulary
) -> list[str]:
    """The names a question for text gives that nothing read, then the words naming what it asks about, less the
    fields' words and a first name of a party it names (`absent`)."""
    fields = set().union(*(view.field_words_all for view in views))
    question = understood.question
    name_spans = said_at(understood, on_names(views, constraints))
    read = [*understood.spans, *leftovers.first_names(question.text, question.lowered, name_spans)]
    named = leftovers.names_unread(question.text, question.lowered, read, fields | vocabulary.bucket_words)
    asked = [w for w in leftovers.asked_about(question.lowered, read) if w not in fields]
    return list(dict.fromkeys([*named, *asked]))


WORDS_BESIDES = 4
"""How many of a claim's topic words the documents must hold besides those they hold none of for it to be searched
all the same: a claim that says four other things ("the DdrB protein from Deinococcus radiodurans is an alternative
SSB", "genomic aberrations found in matasteses ...") is about them, and one word no document holds is a typo or a
symbol the documents write otherwise. A question's word no document holds is what it asks about ("which contracts
let us get paid in bitcoin?", "the VPN password"), and the run asks."""


def searched_anyway(d: Decomposition, vocabulary: Vocabulary, understood: Understood) -> list[str]:
    """The words a claim over whole buckets (`is_claim`) is about that no document holds, when it says at least
    WORDS_BESIDES topic words the documents do hold: its passages are searched for, and only one that is close in
    meaning answers (`Decomposition.unheld`); none when the run should ask instead."""
    views = [vocabulary.buckets[b] for b in d.buckets if b in vocabulary.buckets]
    if d.intent in STRUCTURED_INTENTS or d.doc_ids or on_names(views, d.constraints):
        return []  # a figure's words are checked otherwise; named documents are searched whatever its words
    if len(d.topic_terms) < WORDS_BESIDES or not is_claim(understood.question.lowered):
        return []  # too few words besides the missing ones, read before any index read
    searched = leftovers.searched_documents(d.buckets, d.constraints, vocabulary)
    missing = leftovers.held_by_none(asked_words(understood, views, d.constraints, vocabulary), searched, vocabulary)
    others = [t for t in d.topic_terms if t not in missing]
    if not missing or len(others) < WORDS_BESIDES:
        return []
    held = len(others) - len(leftovers.held_by_none(others, searched, vocabulary))
    return missing if held >= WORDS_BESIDES else []


def said_at(understood: Understood, constraints: list[Constraint]) -> list[tuple[int, int]]:
    """Where the question says the words `constraints` were read from."""
    text = understood.question.text
    return [
        s for s in understood.claimed if any(c.source_text and text[s[0] : s[1]] in c.source_text for c in constraints)
    ]


def on_kinds(views: list[BucketWords], constraints: list[Constraint]) -> list[Constraint]:
    """The constraints on a bucket's kind field (a contract's type)."""
    kinds = {(view.name, view.kind.name) for view in views if view.kind is not None}
    return [c for c in constraints if (c.bucket, c.field) in kinds]


def on_names(views: list[BucketWords], constraints: list[Constraint]) -> list[Constraint]:
    """The constraints on a field of names (a party, a shop)."""
    named_by = {(view.name, f.name) for view in views for f in view.role("name")}
    return [c for c in constraints if (c.bucket, c.field) in named_by]


def unheld(d: Decomposition, vocabulary: Vocabulary, understood: Understood, anyway: list[str]) -> list[str]:
    """The topics a question for text (not about documents named by id) asks about that hold a word no document it
    can be about holds (`leftovers.unheld`), and the words it is searched without (`anyway`, from
    `searched_anyway`); none for a count, sum or list."""
    if d.doc_ids or d.intent in STRUCTURED_INTENTS:
        return []
    about = leftovers.unheld(understood.question.lowered, understood.spans, d.buckets, d.constraints, vocabulary)
    return [*about, *anyway]
