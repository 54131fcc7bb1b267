"""The `ragent` command: above every other package (it imports graph, evals for its `eval` and `bench` commands, tools,
retrievers and core; nothing imports it)."""
