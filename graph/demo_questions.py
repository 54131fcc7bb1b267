"""What `ragent demo` asks of the sample corpus, also the load of the server and load benchmarks: every route, and
one question that needs a clarification (with the settings that make it ask). In `graph`, which both of its readers
import: the CLI's demo and the server benchmarks of `evals`, which sit beside each other above the graph."""

DEMO_QUESTIONS: list[tuple[str, dict]] = [
    ("Which contracts have a notice period under 60 days?", {}),
    ("How many contracts per governing law?", {}),
    ("What is the total amount of invoices in EUR?", {}),
    ("Summarize the limitation of liability in contracts governed by Delaware law", {}),
    ("How do I get onto the VPN when working from home?", {}),
    ("Which contracts have a notice period of at least 30 days?", {"max_hits": 3}),
]
