"""The `ragent` command: above every other package (it imports evals, graph, tools and retrievers; nothing imports
it)."""
