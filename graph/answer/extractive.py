"""The extractive answer: the few sentences of the graded evidence that best answer a text question, each with its
citation, then the sources. What a question for text gets when no chat model writes the answer (or the model's
answer fails its checks): quoted sentences, so nothing in it is unsupported, and short enough to read.

Hand-written because it is a scoring of a few dozen sentences that must use this run's evidence, the index's own
embedder and the planner's reading of the question; a summarisation library would bring a model or its own idea
of relevance. A sentence scores by meaning and by words. Meaning is the embedder's cosine of its passage with the
question, as the run's semantic search measured it: embedding every candidate sentence again scored no better on
the tuning sets (HotpotQA dev answer found 0.58 and SciFact train relevant cited 0.68 either way) and cost
0.2-1 s per answer on two busy cores, against about a millisecond. Words are the question's words the
sentence holds, each weighted by how rare it is among the candidate sentences (a word every sentence holds tells
them apart no better than none). A sentence scores a little more when it adds names or figures the question does
not hold (a restatement of the question answers nothing), and the passage's rank in the fused searches breaks
near ties. When the question names things (proper names, quoted titles), the answer starts from a sentence that names
one of them or is on the page of one; the sentences after it come from other documents, those on a page an
earlier sentence names first (the second hop of "the director of the film that ...").

A question about particular documents ("what does the Arconic trademark license say about assignment?": it names
them, or its conditions select them, and the searches were confined to them) is answered from those documents
only, several sentences of one document if they answer, and only by sentences that hold what it asks about: the
words that name the documents (their titles, the values that selected them: "Arconic", "trademark license") are in
every sentence of them and answer nothing. When no sentence holds what it asks about, the answer says so ("I found
no passage about assignment in ...") rather than quoting the closest sentence of the document. So does a question
over whole buckets about something a word of which no document holds (`Decomposition.unheld`), when no passage is
close to the question in meaning; and a sentence quoted for it must hold the topic's other words ("employees" for
"a clause about poaching employees", which the documents call soliciting employees): the embedder scores any
contract clause close to "which contracts have a clause about ...", whatever the topic, and does not know that
poaching is soliciting, so a topic said in a single word no document holds finds no sentence.

Tuned on HotpotQA dev and SciFact train (`evals.bench_answers`); the weights below are what that tuning chose.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from english.lexicon import ASKING_VERBS, FILLER, STOPWORDS
from english.names import proper_names
from english.sentences import split_sentences
from english.words import counted, has_phrase, occurs, states_a_number_of, stem, stems
from graph.answer.computed import about_documents, best_passages
from graph.decomposition import Decomposition
from graph.markdown import escape
from graph.planners.pages import page_title, passage_hits
from graph.schemas import Answer, CheckedSentence, Citation, Evidence, GradedHit
from tools.snippets import ELLIPSIS, PARAGRAPH_BREAK

MAX_SENTENCES = 3
CANDIDATE_PASSAGES = 8
MEANING_WEIGHT = 0.5
RANK_WEIGHT = 0.1
LEAD_WEIGHT = 0.05
"""The first sentence of a passage says what its page is about, and so often holds the answer a page is for."""
BRIDGE_WEIGHT = 0.8
NEW_WEIGHT = 0.1
KEEP_RATIO = 0.4
"""A sentence after the first is kept only when it scores at least this share of the first's: a third sentence
far below the best one lengthens the answer without answering more."""
MIN_CHARS = 25
HEADING_WORDS = 8
NO_PASSAGE = "I found no passage that answers this."
NAMED_TITLES = 3
"""The documents a "found no passage" answer names by title; past this many it names the conditions that chose
them."""

_DIGITS = re.compile(r"\b\d[\d,.]*\b")
_PUNCTUATION_FIRST = re.compile(r"^…?\s*[)\]},;:.!?%]")
_LOWER_FIRST = re.compile(r"^…?\s*[a-z]")
_ENDED = re.compile(r"[.!?][\"'”)]?$")


NO_LIST_LEAD = "Not a complete list: no field of {buckets} records this; the passages closest to it:"
"""The line before quotes for documents asked for in words no field records (`Decomposition.listed_by_text`): three
passages read as "these are the contracts" where no one could say which contracts are (a blind question: "which of
my contracts are losing us money?")."""
LOOSE_LEAD = "No passage of {titles} says this in the question's words; the passages holding some of them:"
"""The line before quotes that were found only by holding a word of the question (`GradedHit.loose`)."""


@dataclass(frozen=True)
class Candidate:
    passage: GradedHit
    rank: int
    position: int
    text: str

    @property
    def page(self) -> str:
        """What the page is about: its title without a qualifier ("Kiss and Tell (1945 film)" is "Kiss and Tell")."""
        return page_title(self.passage.title or "")


def _candidates(passages: list[GradedHit]) -> list[Candidate]:
    """The sentences of the passages. A fragment too short to say anything ("Hey Pa!", which the segmenter cut off
    a title) joins the sentence after it; the last one stands alone ("The locker fee is 5 EUR.", a whole note, was
    never quoted). A line without a full stop (a title, a heading: "VPN setup guide for
    remote staff"), a numbered heading ("4. Return of Protected Information.") and a piece that starts with
    punctuation (") weeks following") are left out. A sentence the snippet or the chunk began in the middle of (it
    starts in lower case) or cut short at its end is kept, with "…" where it is cut, as it often holds the answer."""
    found = []
    for rank, passage in enumerate(passages):
        sentences = split_sentences(passage.text, PARAGRAPH_BREAK)
        carried = ""
        for position, sentence in enumerate(sentences):
            sentence = f"{carried} {sentence}".strip()
            if len(sentence) < MIN_CHARS and position < len(sentences) - 1:
                carried = sentence
                continue
            carried = ""
            cut_short = position == len(sentences) - 1 and passage.text.endswith(ELLIPSIS)
            if _PUNCTUATION_FIRST.search(sentence) or (not _ENDED.search(sentence) and not cut_short):
                continue
            if _is_heading(sentence):
                continue
            if _LOWER_FIRST.search(sentence) and not sentence.startswith(ELLIPSIS):
                sentence = ELLIPSIS + sentence
            found.append(Candidate(passage, rank, position, sentence))
    return found


def _is_heading(sentence: str) -> bool:
    """A section heading the segmenter took for a sentence ("4. Return of Protected Information."): a few words,
    every long one capitalised."""
    words = re.findall(r"[A-Za-z]+", sentence)
    return len(words) <= HEADING_WORDS and all(w[0].isupper() for w in words if len(w) > 3)


def _word_scores(terms: list[str], candidates: list[Candidate]) -> list[float]:
    """Share of the question's words (`terms`, stemmed) each sentence holds, every word weighted by its inverse
    frequency among the sentences."""
    held = [set(stems(c.text)) for c in candidates]
    weights = {t: math.log(1 + len(candidates) / (1 + sum(t in h for h in held))) for t in terms}
    total = sum(weights.values()) or 1.0
    return [sum(w for t, w in weights.items() if t in h) / total for h in held]


def _passage_cosines(evidence: list[Evidence]) -> dict[str, float]:
    """The cosine of each passage with the question, as the run's semantic searches measured it. A passage only the
    keyword search found is below every semantic hit, so it is given the lowest of theirs rather than 0, which
    would rank a page that names everything the question asks about below one that merely sounds like it."""
    cosines: dict[str, float] = {}
    for e in evidence:
        if e.call.tool == "search_semantic":
            for hit in e.envelope.passages():
                cosines[hit.chunk_id] = max(cosines.get(hit.chunk_id, 0.0), hit.score)
    return cosines


def _chosen(
    d: Decomposition,
    candidates: list[Candidate],
    score: dict[int, float],
    worded: set[int],
    confined: bool,
    titles: list[str],
) -> list[Candidate]:
    """Up to MAX_SENTENCES sentences from different documents (when the question is `confined` to its documents,
    from a document already quoted once the others have none to give), best first. When the question sets things side by
    side (its sub-queries after the question itself: "Arthur's Magazine", "First for Women"), the first sentences
    name one side each, so that both are there to compare; otherwise the first names something the question names
    (when any sentence does; for a value looked up, not the names of the documents it is confined to, which their
    insurance clause says as well as their governing law: `_names_documents`). Each later one is weighed with
    BRIDGE_WEIGHT more when it is on a page a chosen sentence names (the next hop). A sentence must hold a word of
    the question (`worded`) or be on such a page: one that shares nothing with the question is no answer to it,
    however close it sounds. None is taken below KEEP_RATIO of the first one's score."""
    sides = d.sub_queries[1:]
    again = confined and not _one_value(d)  # a value looked up is stated once: no more sentences of its document
    names = [n.text for n in proper_names(d.question) if not (_one_value(d) and _names_documents(n.text, d, titles))]
    named = {i for i in score if _names_one(candidates[i], sides or names)}
    chosen: list[Candidate] = []
    first = None
    while len(chosen) < MAX_SENTENCES:
        docs = {c.passage.doc_id for c in chosen}
        said = {c.text for c in chosen}
        open_ = [
            i
            for i in score
            if (again or candidates[i].passage.doc_id not in docs)
            and candidates[i].text not in said
            and (i in worded or not confined and _bridged(candidates[i], chosen))
        ]
        uncovered = [s for s in sides if not any(_names_one(c, [s]) for c in chosen)]
        wanted = [i for i in open_ if _names_one(candidates[i], uncovered)] if uncovered else []
        leading = [i for i in open_ if i in named] if not chosen else []
        fresh = [i for i in open_ if candidates[i].passage.doc_id not in docs]
        open_ = wanted or leading or fresh or open_
        if not open_:
            break
        weighed = {i: score[i] + BRIDGE_WEIGHT * _bridged(candidates[i], chosen) for i in open_}
        best = max(weighed, key=weighed.__getitem__)
        if first is not None and not wanted and weighed[best] < KEEP_RATIO * first:
            break
        first = weighed[best] if first is None else first
        chosen.append(candidates[best])
    return chosen


def _one_value(d: Decomposition) -> bool:
    """A lookup of fields: one value a document, which one sentence of it states ("when does the Zounds agreement
    end?" was answered by its term, then by a notice period and a mediation clause of the same agreement)."""
    return d.intent == "lookup" and bool(d.show_fields)


def _field_words(d: Decomposition, evidence: list[Evidence]) -> set[str]:
    """The stems a search for a field's value added to the question's words (what the field is: "initial term" for
    an expiration date), which a sentence stating the value holds; a preamble holding the names the question gives
    ("JVLS (Vaccines 2Go)") states no term. With them, the words of the fields' names, though the question says
    them ("which law governs ...": the sentence headed "GOVERNING LAW" states it). None when the searches added no
    such words (they looked for the question as it is)."""
    added = set(_searched_stems(evidence)) - set(stems(d.question))
    named = [w for f in d.show_fields for w in f.split("_") if w not in STOPWORDS | FILLER] if added else []
    return added | set(stems(" ".join(named)))


def _unrecorded(d: Decomposition, titles: list[str]) -> str | None:
    """What a lookup of fields answered from the text says first: one whose documents' rows hold no value for them
    (else their table answers), so a quote is the reader's to check, not a value found; and when none is found,
    that none is recorded either (an outside probe read only "I found no passage about end", as if the text
    were all there is)."""
    if not _one_value(d):
        return None
    where = escape(", ".join(titles)) or "the documents named"
    return f"No {escape(' or '.join(d.show_fields))} is recorded for {where}"


def _names_documents(name: str, d: Decomposition, titles: list[str]) -> bool:
    """Whether a name the question gives names the documents it is confined to: spelt in their titles ("Dragon
    Systems" in "DRAGONSYSTEMSINC_...") or read as a condition that selected them (a party)."""
    squashed = re.sub(r"[^a-z0-9]", "", name.lower())
    in_titles = bool(squashed) and squashed in re.sub(r"[^a-z0-9]", "", " ".join(titles).lower())
    return in_titles or any(c.source_text and name in c.source_text for c in d.constraints)


def _bridged(candidate: Candidate, chosen: list[Candidate]) -> bool:
    page = candidate.page
    return bool(page) and any(has_phrase(c.text, page) for c in chosen)


def _tells_something_new(text: str, question: str) -> float:
    """Share of the sentence's names and numbers the question does not hold: a sentence that only restates the
    question ("X occurred on April 2, 2012 in Oakland") answers nothing; the answer is a name or figure it adds."""
    found = [n.text for n in proper_names(text)] + _DIGITS.findall(text)
    new = [f for f in found if not has_phrase(question, f)]
    return min(1.0, len(new) / 2)


def _names_one(candidate: Candidate, names: list[str]) -> bool:
    """The sentence, or the title of its page, names one of `names` as it is written (case counts: "First for
    Women" is not named by "the first women's magazine")."""
    page = candidate.page
    return any(occurs(candidate.text, n) or (page and occurs(page, n)) for n in names)


def _sources(chosen: list[Candidate]) -> str:
    pages = dict.fromkeys((c.passage.doc_id, (c.passage.title or "").strip()) for c in chosen)
    return "Sources: " + "; ".join(escape(doc_id) + (f" ({escape(page)})" if page else "") for doc_id, page in pages)


def _searched_titles(evidence: list[Evidence]) -> list[str]:
    """The titles (else ids) of the documents the searches for passages found, best first."""
    return list(dict.fromkeys((hit.metadata.title or hit.doc_id).strip() for hit in passage_hits(evidence).values()))


def _asked_terms(d: Decomposition, titles: list[str], evidence: list[Evidence]) -> list[str]:
    """The stems of what a question confined to its documents asks about: its words and the words its searches
    looked for (a yes/no clause's name: "acquired" is the Change of Control section; the description of a field it
    looks up where the rows hold none: "Date the initial term ends"), less those that name the documents (their
    `titles`, the words of the conditions that selected them; a yes/no clause's words stay: "about assignment" asks
    about the clause), the words that only phrase a question ("say", "tell") and the filler."""
    selecting = " ".join(c.source_text for c in d.constraints if not isinstance(c.value, bool))
    squashed = re.sub(r"[^a-z0-9]", "", " ".join(titles).lower())
    spelt_in_titles = [w for w in re.findall(r"[a-z0-9]{4,}", d.question.lower()) if w in squashed]
    naming = {*stems(" ".join([selecting, *titles, *spelt_in_titles])), *(stem(w) for w in ASKING_VERBS | FILLER)}
    clauses = [stem(w) for words in d.clause_words() for w in words]  # whichever route searched the text
    return [t for t in dict.fromkeys([*stems(d.question), *clauses, *_searched_stems(evidence)]) if t not in naming]


def _searched_stems(evidence: list[Evidence]) -> list[str]:
    """The stems of what the keyword searches looked for: the question's words, or, inside the documents it names,
    its topic with the clause and field words a search adds (`rule_planner._search_words`)."""
    return stems(" ".join(e.call.arguments.get("query", "") for e in evidence if e.call.tool == "search_text"))


def _searched_buckets(evidence: list[Evidence]) -> list[str]:
    """The buckets the searches for passages looked in, in the order searched."""
    searches = [e.call.arguments for e in evidence if not e.call.tool.startswith("annotations_")]
    return list(dict.fromkeys(a["bucket"] for a in searches if a.get("bucket")))


def _nothing_about(d: Decomposition, terms: list[str], titles: list[str], buckets: list[str]) -> str:
    """ "I found no passage about <what it asks> in <the documents>.", in the question's own words; for a question
    over whole `buckets`, about what it asks that no document holds a word of (`Decomposition.unheld`)."""
    if d.unheld and not titles and buckets:
        return f"I found no passage about {escape(' or '.join(d.unheld))} in {escape(', '.join(buckets))}."
    if not terms or not titles:
        return NO_PASSAGE
    words = [w for w in re.findall(r"[\w'’-]+", d.question) if stem(w.lower()) in terms]
    conditions = " and ".join(f"{c.field} {c.op} {c.value}" for c in d.constraints)
    where = (
        ", ".join(escape(t) for t in titles)
        if len(titles) <= NAMED_TITLES or not conditions
        else f"the documents where {escape(conditions)}"
    )
    return f"I found no passage about {escape(' '.join(dict.fromkeys(words)))} in {where}."


def extractive_answer(d: Decomposition, evidence: list[Evidence], relevant: list[GradedHit]) -> Answer:
    """At most MAX_SENTENCES sentences, best first, each cited by its document and chunk; for a "how many" question
    only sentences that put a number on what it counts (a sentence that merely mentions employees is no count)."""
    confined = about_documents(d, evidence)
    titles = _searched_titles(evidence) if confined else []
    terms = _asked_terms(d, titles, evidence) if confined else list(dict.fromkeys(stems(d.question)))
    nothing = _nothing_about(d, terms, titles, _searched_buckets(evidence))
    unrecorded = _unrecorded(d, titles)
    if unrecorded and titles:  # of documents it found: else which documents it names is what is unknown
        nothing = f"{unrecorded}. {nothing}"
    per_document = CANDIDATE_PASSAGES if confined else 1
    candidates = _candidates(best_passages(evidence, relevant, CANDIDATE_PASSAGES, per_document))
    if (things := counted(d.question)) and not d.listed_by_text:  # "how many ...": a sentence with a number on it
        candidates = [c for c in candidates if states_a_number_of(c.text, things)]
    if d.unheld:  # "about poaching employees": only a sentence on employees may say it in other words
        topic = set(stems(" ".join(d.unheld)))
        candidates = [c for c in candidates if topic & set(stems(c.text))]
    if _one_value(d) and (what := _field_words(d, evidence)):  # a sentence naming the document only is no value
        candidates = [c for c in candidates if what & set(stems(c.text))]
    if not candidates:
        return Answer(format="prose", text=nothing, composed_by="extractive")
    words = _word_scores(terms, candidates)
    meaning = _passage_cosines(evidence)
    unseen = min(meaning.values(), default=0.0)
    score = {
        i: MEANING_WEIGHT * meaning.get(c.passage.chunk_id or "", unseen)
        + (1 - MEANING_WEIGHT) * words[i]
        + RANK_WEIGHT / (1 + c.rank)
        + LEAD_WEIGHT * (c.position == 0)
        + NEW_WEIGHT * _tells_something_new(c.text, d.question)
        for i, c in enumerate(candidates)
    }
    worded = {i for i in score if words[i] > 0 or confined and not terms}
    chosen = _chosen(d, candidates, score, worded, confined, titles)
    if not chosen:
        return Answer(format="prose", text=nothing, composed_by="extractive")
    sentences = [
        CheckedSentence(
            text=c.text,
            citations=[Citation(doc_id=c.passage.doc_id, chunk_id=c.passage.chunk_id)],
            verdict="supported",
        )
        for c in chosen
    ]
    lines = [f"- {escape(c.text)} [{escape(c.passage.doc_id)}]" for c in chosen]
    if unrecorded:
        lines.insert(0, f"{unrecorded}; the passage that may state it:")
    elif d.listed_by_text and not confined:
        lines.insert(0, NO_LIST_LEAD.format(buckets=escape(", ".join(d.buckets))))
    elif all(c.passage.loose for c in chosen):  # "can we walk away ...?": words of it, not an answer found as such
        lines.insert(0, LOOSE_LEAD.format(titles=escape(", ".join(titles)) or "the documents named"))
    return Answer(
        format="prose",
        text="\n".join([*lines, "", _sources(chosen)]),
        composed_by="extractive",
        sentences=sentences,
        citations=[c for s in sentences for c in s.citations],
    )
