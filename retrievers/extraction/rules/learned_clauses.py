"""Yes/no clauses decided by a learned score of a contract's candidate sentences, for the clauses where that beat
the regex rules on CUAD's held-out contracts and for those without a rule where it scored well enough in the tune
split's folds (`evals.extraction.clause_training.ADOPTED`).

Each candidate sentence (`clause_candidates`) is scored by the clause's logistic regression over the sentence's
words and word pairs (tf-idf, as the keyword index weighs them) and, for a clause that gained from it, the sentence's
MiniLM vector from the ingest's own embedder. Weights, bias and threshold are in `learned_clauses.json`, written by
`python -m evals.extraction.clause_training` from the tune split. The contract says Yes when its best sentence
scores at least the threshold, citing that sentence; No (nothing to cite) when none does; a text too short to be a
contract gets no answer, as with the rules. A clause whose decision reads vectors needs a MiniLM embedder (the
weights were learned from MiniLM's vectors: `usable_with`); without one it keeps its regex rule.

The vectors of one document's candidates are embedded in one call and kept while its clauses are read.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path

import numpy as np

from retrievers.engines.embedders.model_names import minilm_precision
from retrievers.extraction.found import FieldRule, Found
from retrievers.extraction.rules.clause_candidates import candidate_text, candidates
from retrievers.extraction.rules.contract_clauses import MIN_CONTRACT_CHARS
from retrievers.protocols import Embedder

WEIGHTS_FILE = Path(__file__).with_name("learned_clauses.json")

MAX_EMBEDDED_SENTENCES = 120
"""The most candidates of one document embedded (the first in the text): a CUAD contract has at most about 100 for
termination for convenience (14 on average), and a hostile text with a cue word in every line would otherwise cost
minutes. A document with more leaves the clause unanswered unless one of those read says it."""

_WORD = re.compile(r"\b\w\w+\b")
"""A word as scikit-learn's `TfidfVectorizer` finds one (two word characters or more), which trained the weights."""


def term_counts(text: str) -> Counter[str]:
    """The lower-cased words of `text` and its pairs of adjacent words ("shall not"), counted."""
    tokens = _WORD.findall(text.lower())
    return Counter(tokens + [f"{a} {b}" for a, b in zip(tokens, tokens[1:], strict=False)])


@dataclass(frozen=True)
class Decision:
    """One clause's logistic regression over a sentence's tf-idf terms (and its vector, where `vector_weights`),
    and the probability a contract's best sentence must reach for a Yes."""

    columns: dict[str, int]
    idf: np.ndarray
    term_weights: np.ndarray
    vector_weights: np.ndarray | None
    bias: float
    threshold: float

    def term_scores(self, texts: list[str]) -> np.ndarray:
        """Each text's tf-idf vector (sublinear counts, L2-normalised) times the term weights."""
        scores = np.zeros(len(texts))
        for row, text in enumerate(texts):
            known = [(self.columns[t], 1.0 + math.log(n)) for t, n in term_counts(text).items() if t in self.columns]
            if known:
                columns = np.array([c for c, _ in known])
                values = np.array([v for _, v in known]) * self.idf[columns]
                scores[row] = values @ self.term_weights[columns] / np.linalg.norm(values)
        return scores

    def probabilities(self, texts: list[str], vectors: np.ndarray | None) -> np.ndarray:
        logits = self.term_scores(texts) + self.bias
        if self.vector_weights is not None and vectors is not None:
            logits = logits + vectors @ self.vector_weights
        return 1.0 / (1.0 + np.exp(-logits))


@cache
def decisions() -> dict[str, Decision]:
    """The learned decisions by field name (the clauses whose rules they replace)."""
    shipped = json.loads(WEIGHTS_FILE.read_text())
    return {
        name: Decision(
            columns={term: column for column, term in enumerate(d["terms"])},
            idf=np.asarray(d["idf"]),
            term_weights=np.asarray(d["term_weights"]),
            vector_weights=None if d["vector_weights"] is None else np.asarray(d["vector_weights"], dtype=np.float32),
            bias=float(d["bias"]),
            threshold=float(d["threshold"]),
        )
        for name, d in shipped["clauses"].items()
    }


def usable_with(model_name: str) -> bool:
    """Whether vectors of the embedder named `model_name` are those the decisions were learned from (MiniLM's,
    in either precision: its variants' vectors lie within cosine 0.9999 of each other)."""
    return minilm_precision(model_name) is not None


class LearnedClauses:
    """The learned rules, reading vectors from `embedder` (None, or another model than MiniLM: only the decisions
    that read no vectors); each reads a body as a `FieldRule` does."""

    def __init__(self, embedder: Embedder | None):
        self._embedder = embedder
        self._body: str | None = None
        self._vectors: dict[tuple[int, int], np.ndarray] = {}

    @cached_property
    def rules(self) -> dict[str, FieldRule]:
        """The rules by field name: every decision's that the embedder can serve."""
        reading = any(d.vector_weights is not None for d in decisions().values())
        vectors = reading and self._embedder is not None and usable_with(self._embedder.model_name)
        return {name: self._rule(name, d) for name, d in decisions().items() if d.vector_weights is None or vectors}

    def _rule(self, name: str, decision: Decision) -> FieldRule:
        def rule(body: str) -> list[Found]:
            if len(body) < MIN_CONTRACT_CHARS:
                return []
            spans = read = candidates(body, name)
            vectors = None
            if decision.vector_weights is not None:
                known = self._vectors_of(body)
                read = [span for span in spans if span in known]
                vectors = np.stack([known[span] for span in read]) if read else None
            if read:
                scores = decision.probabilities([candidate_text(body, span) for span in read], vectors)
                best = int(np.argmax(scores))
                if scores[best] >= decision.threshold:
                    return [Found(True, *read[best])]
            # No when every candidate was read; a text with more than were embedded is left unanswered
            return [Found(False, 0, 0)] if len(read) == len(spans) else []

        return rule

    def _vectors_of(self, body: str) -> dict[tuple[int, int], np.ndarray]:
        """The vectors of the candidates of every decision reading vectors, embedded in one call on `body`'s first
        read."""
        if body is not self._body:
            reading = [name for name, d in decisions().items() if d.vector_weights is not None]
            spans = sorted({span for name in reading for span in candidates(body, name)})[:MAX_EMBEDDED_SENTENCES]
            vectors = self._embedder.embed_documents([candidate_text(body, s) for s in spans]) if spans else []
            self._body = body
            self._vectors = dict(zip(spans, np.asarray(vectors, dtype=np.float32), strict=True))
        return self._vectors


WITHOUT_VECTORS = LearnedClauses(None)
"""The decisions that read no vectors: what extraction runs where no embedder is at hand."""
