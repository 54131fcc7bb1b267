"""The natural question set, `evals/questions/natural.jsonl`: questions phrased the way people type them.

Every phrasing here was written by hand, blind to the planner: without reading `graph/` (its rule decomposer and
word lists) or the project's other question sets and their generator, so that the set measures what a user gets,
not how well the rules match their own wording. Phrasings are short and informal on purpose: synonyms ("bill",
"shop", "NDA", "US dollars", "Indian rupees"), abbreviations, a few misspellings, currency names and symbols,
everyday company names ("Mr DIY"), grouping words, averages, superlatives, OR and negation, months and relative
dates, document ids, text questions ("what does ... say", "why ...") and questions that should be answered with a
clarification because nothing matches or far too much does.

Only the phrasings are hand-written. Every expected answer is computed here from the labels, loaded through the
project's own loaders (`retrievers.loaders`), which is exactly what `ragent ingest --dataset` indexes, over the
union of all seven corpora (the runner ingests them into one folder): a contracts question covers CUAD, Kleister-NDA
and the sample contracts, a receipts question SROIE and the sample receipts, an invoices question invoice2data and
the sample invoices.

The rules the gold follows are the same for every question; each is stated where it is applied:
- `corpus`: the documents of the seven corpora, as the loaders produce them, and the qrels of the qa datasets.
- `labels`: how a label is read (list values, governing law, NDAs and contract types, negation, shop names).
- `recorders`: the `ask_*` helpers that compute and record each item's gold (what a count, a sum, an average, a
  superlative and a lookup are; big lists; relative dates).
- one module per family of questions: `receipts`, `invoices`, `contracts`, `datasheets_certificates`, `text` (qa)
  and `follow_ups` (two-turn conversations), each with the rules that concern it alone.
- `__main__`: asks every family in turn, writes the JSONL and reports.

Run: `.venv/bin/python -m evals.natural_questions` (reads ../shared/data; writes the JSONL and prints counts).
"""
