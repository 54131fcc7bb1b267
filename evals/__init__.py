"""Evaluations and benchmarks (`ragent eval`, `ragent bench`): beside the CLI, above the graph. They import graph and
what lies below it; nothing but the CLI's `eval` and `bench` commands imports them."""
