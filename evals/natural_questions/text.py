"""Text (qa) questions: what the sample's documents, the contract clauses, SciFact and HotpotQA say.

The qa items take their relevant documents from the datasets' qrels (SciFact train, HotpotQA dev: the splits meant
for tuning) or, for the sample corpus and the contract clauses, from the labels.
"""

from __future__ import annotations

from evals.natural_questions.corpus import read_qrels, read_queries
from evals.natural_questions.labels import G, K, flag, party
from evals.natural_questions.recorders import ask_qa, expect, matching

# SciFact (qrels/train.tsv); the claim as written in queries.jsonl is in the comment, the question is ours.
SCIFACT_QA = [
    ("168", "does weight loss surgery lower colon cancer risk?"),  # Bariatric surgery reduces colorectal cancer.
    ("797", "do mitochondria matter much for energy production"),  # Mitochondria play a major role in energy ...
    # Taking 400mg of a-tocopheryl acetate in combination with vitamin C reduces the risk of prostate cancer.
    ("1141", "vitamin E plus vitamin C - does it cut prostate cancer risk?"),
    ("116", "are anthrax spores still deadly until the area is decontaminated?"),  # Anthrax spores remain deadly ...
    ("825", "what does the N348I mutation do to nevirapine resistance"),  # N348I mutations reduce resistance ...
    ("804", "can an antibody against N-cadherin slow tumour growth?"),  # Monoclonal antibody targeting of N-cadherin
    ("138", "is screening elderly people for poor eyesight actually useful?"),  # Asymptomatic visual impairment ...
    ("90", "where do adult tissue macrophages come from, yolk sac?"),  # Adult tissue-resident macrophages stem ...
    ("149", "does autophagy loss in the liver make insulin resistance worse"),  # Autophagy deficiency in the liver ...
]
# HotpotQA (qrels/dev.tsv); both gold paragraphs are expected.
HOTPOT_QA = [
    ("5a7bbb64554299042af8f7cc", "annie morton or terry richardson, who's older?"),  # Who is older, Annie Morton ...
    ("5ae383e15542992f92d822fb", "which came out later, apple dumpling gang or heavyweights"),
    # What was the name of the 1996 loose adaptation of William Shakespeare's "Romeo & Juliet" written by James Gunn?
    ("5ae37c765542992f92d822d4", "name of the romeo and juliet spoof james gunn wrote in 96?"),
    # Based on a True Story... is an album by which country music star, with the single My Eyes?
    ("5a818387554299260e20a291", "who's the country singer behind Based on a True Story... with My Eyes on it"),
    # hree Men on a Horse is a play by a playwright born in which year ?
    ("5ab659e355429954757d324e", "what year was the guy who wrote Three Men on a Horse born"),
    # Other than racing, what sport does the 1998 champion of the Toyota GRand Prix practice?
    ("5a8dd5f955429917b4a5bcc7", "the guy who won the 1998 toyota grand prix - what other sport does he do?"),
]


def text_questions() -> None:
    """qa: the sample's documents, contract clauses, SciFact claims and HotpotQA questions."""
    ask_qa("What caused the outage described in the postmortem?", G, ["sample-generic-005"])
    ask_qa("why did the invoice export job stop on 14 march?", G, ["sample-generic-005"])
    ask_qa("how long do we keep supplier bills?", G, ["sample-generic-004"])
    ask_qa("vpn keeps dropping at the hotel, what do I do", G, ["sample-generic-002"])
    ask_qa("when does the office open again after xmas?", G, ["sample-generic-003"])
    ask_qa("do I need itemised receipts for my expenses?", G, ["sample-generic-001"])
    ask_qa("what certificates do new suppliers have to give us", G, ["sample-generic-006"])
    ask_qa("what does the Nimbus hosting agreement say about uptime?", K, ["sample-contract-010"])
    ask_qa(
        "What does the Kestrel / Northwind MSA say about audits?",
        K,
        [d.doc_id for d in matching(K, lambda d: party(d, "Kestrel Analytics") and party(d, "Northwind Components"))],
    )
    escrow = [d.doc_id for d in matching(K, lambda d: flag(d, "source_code_escrow"))]
    ask_qa("What do the contracts with a source code escrow say about releasing the code?", K, escrow)
    ask_qa("Summarize the source code escrow terms in contracts that have one", K, escrow)

    for dataset, split, items, relevant in (("scifact", "train", SCIFACT_QA, 1), ("hotpotqa", "dev", HOTPOT_QA, 2)):
        qrels, queries = read_qrels(dataset, split), read_queries(dataset)
        for query_id, question in items:
            expect(
                query_id in queries and len(qrels[query_id]) == relevant,
                f"{dataset} query {query_id} is not in {split} with {relevant} relevant documents",
            )
            ask_qa(question, G, qrels[query_id])
