"""The planners: the rules (`rule_planner`, reading questions with `reading/` and `rule_decomposer`) and a chat model
(`llm_planner`), both grounded in the catalog by `grounding`."""
