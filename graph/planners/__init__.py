"""The planners: the rules (`rule_planner`, reading questions with `reading/` and `rule_decomposer`) and a chat model
(`llm_planner`), both grounded in the catalog by `grounding`."""

from core.settings import Settings
from english.currencies import keep_tables_in

keep_tables_in(lambda: Settings.from_env().cache_dir)  # Babel's currency tables, kept in the cache folder
