"""The rule planner's readers: small typed readings of a question, each `read(question, view, claims)`.

A reader reads one thing (document ids, buckets, intent, kinds, dates, quantities, currencies, flags, values) from
the `Question` (its text, read once: quantities, dates, mentions of buckets) in the words of one bucket
(`BucketWords`), and claims the spans of the question it took in `Claims`, so that a later reader does not read them
again. The order they run in is declared once, by `graph.planners.rule_decomposer`. What a reading understood
(`understood`: the rules' claims, or a model's reading laid on the question's words) is what grounding checks the
question against (`left`), for either planner.
"""
