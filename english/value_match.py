"""Which stored values of a text field a phrase of a question names, the ways users name them.

Users do not type values as printed: "Mr DIY" is MR. D.I.Y. (M) SDN BHD and MR. D.I.Y. (KUCHAI) SDN BHD, "Bank of
America" is "Bank of America, N.A.", "distribution agreements" are "Distributor Agreement"s, "NDA" is a
"Non-Disclosure Agreement", "gardinia" is GARDENIA. A phrase names every value it matches in one of these ways:

- contained: the phrase, without case, accents, spaces and punctuation, runs inside the value from the start of one
  of its words to the end of one ("mrdiy" in "mrdiymsdnbhd", but "intel" is not in "intelligent");
- by stems: each of the phrase's distinctive words starts like a word of the value ("distribution" and
  "distributor"), for kinds and categories only: names and free text hold too many ordinary words ("applies" and
  "Applied Materials");
- by initials: the phrase is the value's initials, or those of all but its first word ("nda" of "Non-Disclosure
  Agreement" and of "Mutual Non-Disclosure Agreement", "ny" of "New York");
- fuzzily: for names only, a long enough phrase within a small edit distance of as many words of the value
  (RapidFuzz).

Values are indexed by the first letters of their words, so a phrase is compared with the values it could name.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from rapidfuzz import fuzz, process

from english.words import STEM_CHARS

FUZZY_MIN_CHARS = 6
FUZZY_SCORE = 85
"""RapidFuzz's ratio (0-100) a misspelt name needs against a run of as many words of a value: "gardinia" against
"gardenia" is 87.5; on the shipped receipts and contracts, names in no value ("starbucks") stay below 80."""
INITIALS_MIN = 2
CONTRACTED_WORDS = 4
"""The longest run of a phrase's words a value may write as their initials ("intellectual property" as "IP")."""
_DOTTED = re.compile(r"\b(?:\w\.){2,}")
_NON_WORD = re.compile(r"[\W_]+")


def normalise(text: str) -> str:
    """Lower case, no accents, dotted initials joined ("D.I.Y." -> "diy"), punctuation as spaces."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = _DOTTED.sub(lambda m: m.group(0).replace(".", ""), text.lower())
    return " ".join(_NON_WORD.sub(" ", text).split())


def compact(text: str) -> str:
    """Lower case, letters and digits only ("Joint Corp" -> "jointcorp"): how a name is compared with titles and
    file names (`documents_titled`), spaces and punctuation aside."""
    return _NON_WORD.sub("", text.lower())


def word_stem(word: str) -> str:
    return word[:STEM_CHARS]


def initials(words: list[str]) -> str:
    return "".join(w[0] for w in words if w not in ("of", "and", "the", "for"))


@dataclass(frozen=True)
class Match:
    values: list[str]
    how: str
    """exact, contained, stems, initials or fuzzy: how good a sign it is (in that order)."""
    whole: bool = False
    """Some value matched is said whole: the phrase holds each of its words ("Delaware law" says all of "Delaware",
    not of "Greater Delaware Valley Savings Bank"), a better sign of the field meant."""


QUALITY = {"exact": 4, "contained": 3, "stems": 2, "initials": 2, "fuzzy": 1}


NEAREST_CUTOFF = 50
"""rapidfuzz's WRatio from which a value is near enough a phrase to offer."""
NEAREST_TO_A_WORD = 75
"""The same for a lower-case word, which names no value unless misspelt ("ingevty" for "Ingevity Corporation", 77):
"going" is 67.5 of "Ingevity Corporation" and "operating" of "Delaware corporation", offers that say nothing."""


class ValueIndex:
    """The values of one text field, with their document counts, ready to be named by phrases."""

    def __init__(self, values: list[tuple[str, int]], role: str = ""):
        self.values = [v for v, _ in values if isinstance(v, str) and v.strip()]
        self.role = role
        self._words = [normalise(v).split() for v in self.values]
        self._position = {v: i for i, v in enumerate(self.values)}
        self._window_cache: dict[int, tuple[list[str], list[int]]] = {}
        self._squashed = ["".join(w) for w in self._words]
        self._starts = [self._word_starts(words) for words in self._words]
        self._by_prefix: dict[str, set[int]] = defaultdict(set)
        for i, words in enumerate(self._words):
            for w in words:
                self._by_prefix[w[:2]].add(i)

    @staticmethod
    def _word_starts(words: list[str]) -> list[int]:
        starts, at = [], 0
        for w in words:
            starts.append(at)
            at += len(w)
        return starts

    def match(self, phrase_words: list[str], generic: set[str], fuzzy: bool = True) -> Match | None:
        """The values `phrase_words` (normalised) names, by the best way any of them matches; None for none.
        `fuzzy`: whether a misspelling may match (the caller knows whether the words look like a name)."""
        found = self._match(phrase_words, generic, fuzzy)
        if found is None:
            phrase_words, found = next(
                (
                    (short, m)
                    for short in self._contracted(phrase_words)
                    if (m := self._match(short, generic, False)) and m.how != "initials"
                ),
                (phrase_words, None),
            )
        if found is None:
            return None
        said = {word_stem(w) for w in phrase_words} | {word_stem(w) for w in generic}
        whole = any(
            {word_stem(w) for w in self._words[self._position[v]]} <= said for v in found.values if v in self._position
        )
        return Match(found.values, found.how, whole)

    @cached_property
    def words(self) -> frozenset[str]:
        """Every word of every value, normalised ("agape", "atp", "corp" of AGAPE ATP CORP)."""
        return frozenset(w for words in self._words for w in words)

    def _match(self, phrase_words: list[str], generic: set[str], fuzzy: bool) -> Match | None:
        squashed = "".join(phrase_words)
        distinctive = [w for w in phrase_words if w not in generic]
        if len(squashed) < INITIALS_MIN or not distinctive:
            return None
        if len(squashed) < 3:
            return self._by_initials(squashed, generic)
        candidates = self._by_prefix.get(phrase_words[0][:2], set())
        contained = {i for i in candidates if self._contains(i, squashed)}
        by_stems: set[int] = set()
        if self.role == "":
            wanted = {word_stem(w) for w in distinctive}
            by_stems = {i for i in candidates if wanted <= {word_stem(w) for w in self._words[i]}}
        if contained:
            exact = any(self._squashed[i] == squashed for i in contained)
            return Match([self.values[i] for i in sorted(contained | by_stems)], "exact" if exact else "contained")
        if by_stems:
            return Match([self.values[i] for i in sorted(by_stems)], "stems")
        if len(phrase_words) == 1 and (by_initials := self._by_initials(squashed, generic)):
            return by_initials
        if fuzzy and self.role == "name" and len(squashed) >= FUZZY_MIN_CHARS:
            windows, owners = self._windows(len(phrase_words))
            close = process.extract(squashed, windows, scorer=fuzz.ratio, score_cutoff=FUZZY_SCORE, limit=None)
            if close:
                return Match([self.values[i] for i in sorted({owners[k] for _, _, k in close})], "fuzzy")
        return None

    def _contracted(self, phrase_words: list[str]) -> Iterator[list[str]]:
        """The phrase with a run of its words said by their initials where a value writes them so ("intellectual
        property agreement" -> "ip agreement", the kind "IP Agreement": two blind questions asked for "my
        intellectual property agreements" and got passages). The initials must be written in the value, not be its
        initials in turn: "capital contribution" as "cc" is not Cerus Corporation."""
        for size in range(CONTRACTED_WORDS, 1, -1):
            for start in range(len(phrase_words) - size + 1):
                short = initials(phrase_words[start : start + size])
                if len(short) == size and short in self.words:
                    yield [*phrase_words[:start], short, *phrase_words[start + size :]]

    def _windows(self, size: int) -> tuple[list[str], list[int]]:
        """Every run of `size` words of every value, squashed, with the value it is from: a misspelt name is
        compared with runs as long as itself ("gardinia" with "gardenia"), not with a whole long value, inside
        which any common word finds a close stretch ("needing" in "engineering")."""
        if size not in self._window_cache:
            windows, owners = [], []
            for i, words in enumerate(self._words):
                for start in range(max(1, len(words) - size + 1)):
                    windows.append("".join(words[start : start + size]))
                    owners.append(i)
            self._window_cache[size] = (windows, owners)
        return self._window_cache[size]

    def _by_initials(self, squashed: str, generic: set[str]) -> Match | None:
        """The values `squashed` is the initials of: of all their words, all but the first, or all but the words
        the question says anyway (`generic`: "JV agreements" are the Joint Venture Agreements)."""
        said = {squashed, squashed.removesuffix("s")}
        named = [
            value
            for value, words in zip(self.values, self._words, strict=True)
            if len(words) > 1
            and said & {initials(words), initials(words[1:]), initials([w for w in words if w not in generic])}
        ]
        return Match(named, "initials") if named else None

    def _contains(self, i: int, squashed: str) -> bool:
        """`squashed` runs inside value i from the start of one of its words to the end of one."""
        value, starts = self._squashed[i], self._starts[i]
        return any(
            value.startswith(squashed, start)
            and (start + len(squashed) in starts or start + len(squashed) == len(value))
            for start in starts
        )

    def nearest(self, phrase: str, limit: int = 3, cutoff: float = NEAREST_CUTOFF) -> list[str]:
        """The values closest to a phrase that matched nothing, for a clarification to offer."""
        found = process.extract(
            normalise(phrase).replace(" ", ""), self._squashed, scorer=fuzz.WRatio, limit=limit, score_cutoff=cutoff
        )
        return [self.values[i] for _, _, i in found]
