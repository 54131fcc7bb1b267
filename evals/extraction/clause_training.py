"""Trains the learned yes/no clause decisions (`retrievers/extraction/rules/learned_clauses.json`) on CUAD's tune
split, and prints what each choice scored in five folds there.

A candidate sentence (`clause_candidates`) is a positive example when it overlaps a span CUAD's lawyers marked for
the clause (`contexts` in `derived_contracts.jsonl`), a negative one otherwise. A logistic regression over its tf-idf
terms (and, for `KINDS` "terms+vectors", its MiniLM vector) scores it; a contract says Yes when its best-scoring
candidate passes the clause's threshold. Kind, C and threshold are chosen on the scores each contract got from a
model that did not see it (five folds by contract), for the F1 of the contracts' Yes answers, so the tune split
does not flatter them; the folds score with `learned_clauses.Decision`, the code that runs at ingest.

Vectors of the candidates are kept under `--cache` (one file per contract), so a rerun embeds nothing.
`python -m evals.extraction.clause_training [CLAUSE ...]` prints the cross-validated table and writes the weights of
the clauses named (by default those `ADOPTED`), keeping the other adopted clauses' weights; embedding the 310
contracts' candidates took about 25 minutes on a busy 2-core AMD EPYC, training about 3 minutes a clause.
`--terms-only` reads the terms alone and embeds nothing (under a minute a clause).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from evals.extraction.cuad_clauses import split_contracts
from retrievers.extraction.rules.clause_candidates import CANDIDATE_CUES, candidate_text, candidates
from retrievers.extraction.rules.learned_clauses import WEIGHTS_FILE, Decision
from retrievers.loaders import cuad, dataset_path
from retrievers.loaders.common import snake_case

TERMS_ONLY = (
    "insurance",
    "no_solicit_of_employees",
    "joint_ip_ownership",
    "ip_ownership_assignment",
    "license_grant",
    "non_transferable_license",
    "irrevocable_or_perpetual_license",
    "cap_on_liability",
    "uncapped_liability",
    "liquidated_damages",
    "warranty_duration",
    "minimum_commitment",
    "revenue_profit_sharing",
    "rofr_rofo_rofn",
    "non_disparagement",
    "post_termination_services",
    "covenant_not_to_sue",
)
"""The shipped clauses that had no regex rule, read from terms alone (so that they run with any embedder or none,
and cost no embedding): shipped where their five-fold tune F1 reached 0.60 with precision 0.70. The rest fell short:
source code escrow and third-party beneficiary are read by regex rules instead (`contract_clauses`; held out P 0.80
and 0.88 where the terms scored P 0.63 and 0.39 in the folds), and no-solicit of customers, price restrictions, the
licensor's affiliates' and unlimited licences and competitive restriction exceptions stay without a value (a regex
rule for no-solicit of customers was right in half its held-out Yes answers), as do volume restriction and licences
to the licensee's affiliates, which passed in the folds but were right in only 36% and 59% of their held-out Yes
answers (a value a user reads as the contract's should be right more often than not; docs/benchmarks.md)."""

ADOPTED = ("termination_for_convenience", *TERMS_ONLY)
"""The clauses whose learned decision is shipped. Termination for convenience beat its regex rule on CUAD's
held-out 200 (F1 0.676 -> 0.798, precision 0.750 -> 0.744, shipped alone); non_compete, exclusivity,
change_of_control and most_favored_nation scored below their rules there (docs/benchmarks.md) and keep them."""

FOLDS = 5
C_VALUES = (1.0, 3.0, 10.0)
"""Inverse regularisation strengths tried per clause (chosen by cross-validated F1 on the tune split)."""


@cache
def contexts() -> dict[str, dict[str, list[str]]]:
    """Each contract's marked spans by field name (CUAD's `contexts`; some are stored as a list's repr)."""
    fields = {category: snake_case(category) for category in cuad.YES_NO_CATEGORIES}
    by_contract = {}
    with (dataset_path("cuad") / "derived_contracts.jsonl").open() as lines:
        for line in lines:
            row = json.loads(line)
            marked = {}
            for category, spans in row["contexts"].items():
                if category in fields:
                    if isinstance(spans, str):
                        try:
                            spans = ast.literal_eval(spans)
                        except (SyntaxError, ValueError):
                            spans = [spans]
                    marked[fields[category]] = [s for s in spans if isinstance(s, str)]
            by_contract[row["contract_id"]] = marked
    return by_contract


def marked_ranges(body: str, spans: list[str]) -> list[tuple[int, int]]:
    """Where in `body` each marked span lies (its pieces around CUAD's `<omitted>`, spaces matched loosely)."""
    found = []
    for span in spans:
        for piece in span.split("<omitted>"):
            words = piece.split()
            if len(" ".join(words)) < 15:
                continue
            if match := re.search(r"\s+".join(map(re.escape, words)), body):
                found.append(match.span())
    return found


class SentenceVectors:
    """The MiniLM (float32) vectors of a contract's candidate sentences, kept per contract under `folder`."""

    def __init__(self, folder: Path):
        self.folder = folder
        self._embedder = None

    def of(self, contract_id: str, body: str, spans: list[tuple[int, int]]) -> np.ndarray:
        path = self.folder / f"{contract_id}.npz"
        known: dict[tuple[int, int], np.ndarray] = {}
        if path.exists():
            stored = np.load(path)
            known = {tuple(map(int, s)): v for s, v in zip(stored["spans"], stored["vectors"], strict=True)}
        missing = [s for s in spans if s not in known]
        if missing:
            vectors = self.embedder().embed_documents([candidate_text(body, s) for s in missing])
            known |= dict(zip(missing, np.asarray(vectors, dtype=np.float32), strict=True))
            self.folder.mkdir(parents=True, exist_ok=True)
            every = sorted(known)
            partial = path.with_suffix(".partial.npz")
            np.savez(partial, spans=np.array(every, dtype=np.int64), vectors=np.stack([known[s] for s in every]))
            os.replace(partial, path)
        return np.stack([known[s] for s in spans]) if spans else np.zeros((0, 384), dtype=np.float32)

    def embedder(self):
        if self._embedder is None:
            from retrievers.engines.embedders.minilm import MiniLMEmbedder

            self._embedder = MiniLMEmbedder(precision="float32")
        return self._embedder


@dataclass
class Contract:
    """One contract's candidates for one clause: their spans, vectors and labels, and the contract's label."""

    contract_id: str
    body: str
    spans: list[tuple[int, int]]
    vectors: np.ndarray | None
    marked: np.ndarray
    says: bool | None


def contracts_of(split: str, clause: str, vectors: SentenceVectors | None) -> Iterator[Contract]:
    """The split's contracts with their candidates for `clause`, embedded unless `vectors` is None."""
    for contract_id, body, labels in split_contracts(split):
        spans = candidates(body, clause)
        ranges = marked_ranges(body, contexts().get(contract_id, {}).get(clause, []))
        marked = np.array([any(a < end and start < b for a, b in ranges) for start, end in spans], dtype=bool)
        embedded = None if vectors is None else vectors.of(contract_id, body, spans)
        yield Contract(contract_id, body, spans, embedded, marked, labels.get(clause))


KINDS = ("terms", "terms+vectors")
"""What a decision reads of a sentence: its tf-idf terms alone, or with its MiniLM vector (chosen per clause)."""

MAX_TERMS = 4000
"""The most frequent words and word pairs kept per clause (at least `MIN_CANDIDATES_WITH_TERM` candidates hold
each): the weights file stays small, and a rarer term is noise on a few hundred contracts."""
MIN_CANDIDATES_WITH_TERM = 3


def fit(contracts: list[Contract], kind: str, c: float) -> dict:
    """A decision's weights (as `learned_clauses.json` holds them) learned from `contracts`' candidates."""
    from scipy.sparse import csr_matrix, hstack
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    texts = [candidate_text(k.body, span) for k in contracts for span in k.spans]
    terms = TfidfVectorizer(
        ngram_range=(1, 2), min_df=MIN_CANDIDATES_WITH_TERM, max_features=MAX_TERMS, sublinear_tf=True
    )
    x = terms.fit_transform(texts)
    if kind == "terms+vectors":
        x = hstack([x, csr_matrix(np.concatenate([k.vectors for k in contracts]))]).tocsr()
    y = np.concatenate([k.marked for k in contracts])
    model = LogisticRegression(C=c, class_weight="balanced", max_iter=5000).fit(x, y)
    weights = model.coef_[0]
    vocabulary = sorted(terms.vocabulary_, key=terms.vocabulary_.get)
    return {
        "terms": vocabulary,
        "idf": [round(float(v), 5) for v in terms.idf_],
        "term_weights": [round(float(v), 5) for v in weights[: len(vocabulary)]],
        "vector_weights": [round(float(v), 5) for v in weights[len(vocabulary) :]] if kind == "terms+vectors" else None,
        "bias": round(float(model.intercept_[0]), 5),
        "threshold": 1.0,
    }


def best_scores(decision: Decision, contracts: list[Contract]) -> np.ndarray:
    """Each contract's best candidate's probability (0 where it has none), as the shipped rule computes it."""
    return np.array(
        [
            decision.probabilities([candidate_text(k.body, s) for s in k.spans], k.vectors).max() if k.spans else 0.0
            for k in contracts
        ]
    )


def as_decision(weights: dict) -> Decision:
    return Decision(
        columns={term: column for column, term in enumerate(weights["terms"])},
        idf=np.asarray(weights["idf"]),
        term_weights=np.asarray(weights["term_weights"]),
        vector_weights=None if weights["vector_weights"] is None else np.asarray(weights["vector_weights"]),
        bias=weights["bias"],
        threshold=weights["threshold"],
    )


def held_out_scores(contracts: list[Contract], kind: str, c: float) -> np.ndarray:
    """Each contract's best score from a model trained on the folds it is not in."""
    scores = np.zeros(len(contracts))
    for fold in range(FOLDS):
        train = [k for i, k in enumerate(contracts) if i % FOLDS != fold]
        test = [i for i in range(len(contracts)) if i % FOLDS == fold]
        scores[test] = best_scores(as_decision(fit(train, kind, c)), [contracts[i] for i in test])
    return scores


def f1_at(scores: np.ndarray, gold: np.ndarray, threshold: float) -> tuple[float, float, float]:
    said = scores >= threshold
    hits = int((said & gold).sum())
    p = hits / said.sum() if said.sum() else 0.0
    r = hits / gold.sum() if gold.sum() else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


MIN_PRECISION = 0.70
"""The precision in the folds a clause's threshold must reach to be chosen over one with a better F1: a wrong Yes
that looks right misleads a user more than a missing one."""


def preferred(figures: tuple[float, float, float]) -> tuple[bool, float]:
    """How one choice's (precision, recall, F1) ranks: precision of at least `MIN_PRECISION` first, then F1."""
    return figures[0] >= MIN_PRECISION, figures[2]


def best_threshold(scores: np.ndarray, gold: np.ndarray) -> tuple[float, tuple[float, float, float]]:
    """The threshold with the best F1 among those reaching `MIN_PRECISION` (among all where none does; the
    highest of equals: fewer Yes answers for the same F1)."""
    best = (1.0, (0.0, 0.0, 0.0))
    for threshold in np.unique(scores):
        figures = f1_at(scores, gold, threshold)
        if preferred(figures) >= preferred(best[1]):
            best = (float(threshold), figures)
    return best


def trained(clause: str, vectors: SentenceVectors | None) -> tuple[dict, str]:
    """The clause's decision learned from the whole tune split, with the kind, C and threshold the folds chose
    (terms alone where `vectors` is None), and a line saying what each choice scored."""
    tune = [k for k in contracts_of("tune", clause, vectors) if k.says is not None]
    gold = np.array([k.says is True for k in tune])
    tried = []
    for kind in KINDS if vectors is not None else KINDS[:1]:
        for c in C_VALUES:
            threshold, figures = best_threshold(held_out_scores(tune, kind, c), gold)
            tried.append((figures[2], kind, c, threshold, figures))
            print(
                f"{clause:28} {kind:14} C={c:<5} t={threshold:.3f} P={figures[0]:.3f} R={figures[1]:.3f} "
                f"F1={figures[2]:.3f}",
                flush=True,
            )
    f1, kind, c, threshold, (p, r, _) = max(tried, key=lambda t: preferred(t[4]))
    weights = fit(tune, kind, c) | {"threshold": round(threshold, 5)}
    return weights, f"{clause}: {kind} C={c} threshold {threshold:.3f} (tune, 5 folds: P {p:.3f} R {r:.3f} F1 {f1:.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/clauses-cache/vectors300"))
    parser.add_argument(
        "--terms-only",
        action="store_true",
        help="tf-idf terms alone for every clause named (those of TERMS_ONLY always): nothing is embedded",
    )
    parser.add_argument("clauses", nargs="*", default=list(ADOPTED), help=f"of {', '.join(CANDIDATE_CUES)}")
    args = parser.parse_args()
    if unknown := set(args.clauses) - set(CANDIDATE_CUES):
        parser.error(f"no candidates for {', '.join(sorted(unknown))}")
    vectors = None if args.terms_only else SentenceVectors(args.cache)
    shipped = {}
    for clause in args.clauses:
        shipped[clause], chosen = trained(clause, None if clause in TERMS_ONLY else vectors)
        print(chosen, flush=True)
    # the clauses not named keep the weights they have, unless no longer adopted
    stored = json.loads(WEIGHTS_FILE.read_text())
    stored["clauses"] = {name: d for name, d in stored["clauses"].items() if name in ADOPTED} | shipped
    WEIGHTS_FILE.write_text(json.dumps(stored) + "\n")
    print(f"wrote {WEIGHTS_FILE}; bump RULES_VERSION (retrievers/extraction/rules/__init__.py) if they changed")


if __name__ == "__main__":
    main()
