"""The single-loop agent: one chat model with the tools bound, a decision after each result, the orchestrator's cap,
clarification and verified compose (`graph.single_loop.builder`)."""
