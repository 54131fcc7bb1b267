"""The sentences of a contract that may state a yes/no clause, and the text of each the embedder reads.

A few broad words per clause (any sentence of the clause holds one) pick candidate sentences cheaply, so that only a
few percent of a contract's sentences are embedded; the learned decision (`learned_clauses`) reads their vectors.
The training script (`evals.extraction.clause_training`) reads the same candidates and the same text, so what was
learned is what runs.
"""

from __future__ import annotations

import re

from retrievers.extraction.rules.contract_sentences import cue, sentences_matching

CANDIDATE_CUES: dict[str, re.Pattern[str]] = {
    "non_compete": cue(r"compet|engage in|similar|prohibited|agrees? not|undertakes? not|covenants? not"),
    "exclusivity": cue(r"exclusiv|\bsole\b|solely|only from|only to|only through|only distributor|any other"),
    "change_of_control": cue(r"control|merge|acqui|consolidat|sale of|ownership|substantially all"),
    "termination_for_convenience": cue(r"convenience|without cause|any reason|no reason|terminat|cancel"),
    "most_favored_nation": cue(
        r"favo|lowest|best price|no less|not less|no greater|not exceed|any other customer|other customers|"
        r"comparable|equivalent|lower|higher|other client"
    ),
}
"""Words one of which every sentence of the clause CUAD marks on the tune split holds (but a few per cent),
for the clauses whose rules fall short; audit rights and anti-assignment are left to their rules, which read them
well enough (F1 0.85 and 0.94 held out)."""

MAX_EMBEDDED_CHARS = 300
"""What the learned decision reads of a candidate: a clause is said in its first few lines, and a sentence running on
(a hard-wrapped list, a hostile line) costs embedding time in proportion to its length."""


def candidates(body: str, clause: str) -> list[tuple[int, int]]:
    """The spans of the sentences of `body` that may state `clause`, in the order of the text."""
    return list(sentences_matching(body, CANDIDATE_CUES[clause]))


def candidate_text(body: str, span: tuple[int, int]) -> str:
    """What the learned decision reads of the sentence at `span`: its words with runs of spaces and line breaks
    closed up (contracts are hard-wrapped and padded), cut at `MAX_EMBEDDED_CHARS`."""
    return " ".join(body[span[0] : span[1]].split())[:MAX_EMBEDDED_CHARS]
