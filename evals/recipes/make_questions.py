"""Write evals/questions/recipes.jsonl: questions a new user types about the recipes bucket, gold from the labels.

Stdlib only. Run from the repository root after make_recipes.py:

    python evals/recipes/make_questions.py

Every expected value is computed here from evals/recipes/annotations.jsonl (never from the system's answers):
counts and lists filter the rows, sums/means/max/min aggregate them (means rounded to 2 decimals), a superlative
over documents is a one-document list (asserted unique), a lookup is a field value of one document found by its
title (raw.title) or the most frequent value (asserted unique). Questions about things the data does not hold (a
cuisine, an author or a recipe that is not there, a range nothing falls in) expect the clarification "no_low", the
convention of evals/questions/natural.jsonl; a count of 0 would also be an honest answer there. Bounds: "more than"
/ "over" / "under" / "less than" exclude the end; "or less", "at most", "between A and B" include it.
"""

from __future__ import annotations

import collections
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
OUT = ROOT / "evals" / "questions" / "recipes.jsonl"

ROWS = [json.loads(line) for line in (HERE / "annotations.jsonl").read_text(encoding="utf-8").splitlines()]
DOCS = [{"doc_id": r["doc_id"], "title": r["raw"]["title"], **r["row"]} for r in ROWS]


def where(**conds):
    out = []
    for d in DOCS:
        ok = True
        for key, test in conds.items():
            ok = ok and (test(d[key]) if callable(test) else d[key] == test)
        if ok:
            out.append(d)
    return out


def ids(docs):
    return sorted(d["doc_id"] for d in docs)


def by_title(title):
    (d,) = [d for d in DOCS if d["title"] == title]
    return d


def extreme(docs, field, pick):
    best = pick(d[field] for d in docs)
    hits = [d for d in docs if d[field] == best]
    assert len(hits) == 1, (field, best, [h["doc_id"] for h in hits])
    return hits


def most_common(values):
    (a, na), (_, nb) = collections.Counter(values).most_common(2)
    assert na > nb, (a, na, nb)
    return a


def mean(docs, field):
    return round(sum(d[field] for d in docs) / len(docs), 2)


def total(docs, field):
    return sum(d[field] for d in docs)


def nonempty(docs):
    assert docs
    return docs


Q = []


def add(question, kind, expected, turns=None, context=None):
    item = {"id": f"rec-{len(Q) + 1:03d}", "question": question}
    if turns:
        item["turns"] = turns
    # No "datasets" key: `ragent eval` accepts only the shipped dataset names there ("unknown dataset(s)
    # ['recipes']"), even with --home; a set over a user's own folder leaves it out and is run with --home.
    item.update({"kind": kind, "expected": expected, "buckets": ["recipes"]})
    if context:
        item["context"] = context
    Q.append(item)


def count(question, docs):
    add(question, "count", {"value": len(nonempty(docs))})


def lst(question, docs, **kw):
    add(question, "list", {"doc_ids": ids(nonempty(docs))}, **kw)


def agg(question, value, **kw):
    add(question, "sum", {"value": value}, **kw)


def lookup(question, answer):
    add(question, "lookup", {"answer": str(answer)})


def clarify(question, how="no_low", context=None):
    add(question, "clarify", {"clarify": how}, context=context)


veg = lambda v: v is True  # noqa: E731
meat = lambda v: v is False  # noqa: E731

# counts
count("how many thai recipes do we have?", where(cuisine="Thai"))
count("How many vegetarian dishes are there?", where(vegetarian=veg))
count("how many recipes take more than an hour", where(prep_minutes=lambda m: m > 60))
count("number of meals I can make in under 30 minutes", where(prep_minutes=lambda m: m < 30))
count("how many recipes by Priya Sharma?", where(author="Priya Sharma"))
count("how many veggie indian recipes", where(cuisine="Indian", vegetarian=veg))
count("how many recipies are over 600 calories", where(calories=lambda c: c > 600))
count("japanese dishes with fewer than 400 calories - how many?", where(cuisine="Japanese", calories=lambda c: c < 400))
count("how many recipes are there in total", DOCS)
count("How many recipes take between 30 and 60 minutes?", where(prep_minutes=lambda m: 30 <= m <= 60))
count("how many non-vegetarian mexican meals", where(cuisine="Mexican", vegetarian=meat))
count(
    "count the italian recipes that take 45 minutes or less", where(cuisine="Italian", prep_minutes=lambda m: m <= 45)
)

# lists
lst("list the vegetarian Italian recipes", where(cuisine="Italian", vegetarian=veg))
lst("which mexican dishes take under 30 minutes", where(cuisine="Mexican", prep_minutes=lambda m: m < 30))
lst("french recipes over 700 calories", where(cuisine="French", calories=lambda c: c > 700))
lst("show me veggie meals under 300 calories", where(vegetarian=veg, calories=lambda c: c < 300))
lst("recipes by Kenji Watanabe", where(author="Kenji Watanabe"))
lst("which thai recipes are not vegetarian", where(cuisine="Thai", vegetarian=meat))
lst("dishes that take more than 2 hours", where(prep_minutes=lambda m: m > 120))
lst(
    "vegetarian indian recipes with less than 400 calories",
    where(cuisine="Indian", vegetarian=veg, calories=lambda c: c < 400),
)
lst("which is the quickest Mexican dish", extreme(where(cuisine="Mexican"), "prep_minutes", min))
lst("what's the most calorific recipe?", extreme(DOCS, "calories", max))
lst("lowest calorie japanese dish", extreme(where(cuisine="Japanese"), "calories", min))
lst("non-veggie recipes ready in 20 min or less", where(vegetarian=meat, prep_minutes=lambda m: m <= 20))
lst("Diego Ramirez recipes", where(author="Diego Ramirez"))
lst("vegitarian mexican recipes", where(cuisine="Mexican", vegetarian=veg))

# sums, means, max, min
agg("average calorie count of the Thai dishes", mean(where(cuisine="Thai"), "calories"))
agg("total calories across all the French recipes", total(where(cuisine="French"), "calories"))
agg("whats the average prep time for japanese recipes", mean(where(cuisine="Japanese"), "prep_minutes"))
agg("what's the highest calorie count of any recipe", max(d["calories"] for d in DOCS))
agg("shortest prep time among the indian recipes, in minutes", min(d["prep_minutes"] for d in where(cuisine="Indian")))
agg("avg calories of vegetarian recipes", mean(where(vegetarian=veg), "calories"))
agg("total prep time of all of Sophie Laurent's recipes", total(where(author="Sophie Laurent"), "prep_minutes"))
agg("longest cooking time for an italian dish?", max(d["prep_minutes"] for d in where(cuisine="Italian")))

# lookups
lookup("who wrote the most recipes", most_common(d["author"] for d in DOCS))
lookup("which cuisine has the most recipes?", most_common(d["cuisine"] for d in DOCS))
lookup("how many calories in the pad thai", by_title("Pad Thai with Prawns")["calories"])
lookup("who wrote the butter chicken recipe", by_title("Butter Chicken")["author"])
lookup("how long does the lasagne take", by_title("Lasagne al Forno")["prep_minutes"])
lookup("is the ratatouille vegetarian?", str(by_title("Ratatouille")["vegetarian"]).lower())
lookup("which cuisine is tiramisu from", by_title("Tiramisu")["cuisine"])
lookup("who has written the most french recipes?", most_common(d["author"] for d in where(cuisine="French")))

# things the data does not hold, and a list too long to show
assert not where(cuisine="Ethiopian") and not where(author="Gordon Ramsay")
assert not where(prep_minutes=lambda m: m > 300)
clarify("how many ethiopian recipes")
clarify("how long does the beef wellington take to make")
clarify("recipes by Gordon Ramsay")
clarify("korean dishes under 500 calories")
clarify("What's the average calorie count of the Greek dishes?")
clarify("recipes that take more than 5 hours")
clarify("list all recipes", "overload", context={"max_hits": 20})

# follow-ups (the last turn is scored)
lst(
    "which of them are indian?",
    where(vegetarian=veg, cuisine="Indian"),
    turns=["vegetarian recipes", "which of them are indian?"],
    context={"max_hits": 100},
)
agg(
    "what's their average calorie count?",
    mean(where(cuisine="Thai"), "calories"),
    turns=["thai dishes", "what's their average calorie count?"],
)


def main() -> None:
    with OUT.open("w", encoding="utf-8") as f:
        for item in Q:
            f.write(json.dumps(item, ensure_ascii=False) + "\n")
    kinds = collections.Counter(q["kind"] for q in Q)
    print(f"wrote {len(Q)} questions to {OUT}: {dict(kinds)}")


if __name__ == "__main__":
    main()
