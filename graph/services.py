"""What the agent's graphs run with: the engines, the tool runner, the catalog, the chat model and its breaker.

Engines cannot travel in the runtime context (it must be serialisable for the server), so one `AgentServices` is
built by whoever builds the graph and bound into its nodes (`graph.builder.build_agent(services)`): a node's
signature shows what it uses, and one process can hold two sets of engines. The CLI, the evals and the tests build
their own; the LangGraph server's entry point (`graph.server`) builds one lazily, which opens the engines at the
first run that needs them.

Every engine read made on behalf of a question goes through `tools` (tool calls, with the scope's timeouts and
envelopes) or `catalog(scope)` (buckets, fields, value lists, under the same timeouts).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import date
from functools import cached_property

from langchain_core.language_models import BaseChatModel

from chat.model import chat_model_from_env
from chat.settings import ChatSettings
from core.errors import InvalidInput
from core.settings import Settings
from graph.context import AgentContext
from graph.ingest_roots import ingest_roots
from graph.planners.base import Planner
from graph.planners.chat_breaker import ChatBreaker
from graph.planners.llm_planner import LLMPlanner
from graph.planners.rule_decomposer import RuleDecomposer
from graph.planners.rule_planner import RulePlanner
from graph.served_paths import served_path
from retrievers.stack import Stack, open_stack
from tools.catalog import Catalog
from tools.context import ToolLimits
from tools.tool_runner import ToolRunner


class AgentServices:
    """`stack` is an open Stack (the caller keeps ownership and closes it) or a function that opens one on first
    use (the services own it and close it). `chat_model` is a model, None for none, or a function that makes one
    on first use (by default from the environment)."""

    def __init__(
        self,
        stack: Stack | Callable[[], Stack],
        *,
        chat_model: BaseChatModel | None | Callable[[], BaseChatModel | None] = None,
        limits: ToolLimits | None = None,
    ):
        self._stack = stack if isinstance(stack, Stack) else None
        self._open_stack = None if isinstance(stack, Stack) else stack
        self._chat_model = chat_model
        self._chat_model_made = chat_model is None or isinstance(chat_model, BaseChatModel)
        self._limits = limits
        self._tools: ToolRunner | None = None
        self._lock = threading.RLock()
        self.breaker = ChatBreaker()
        self._kept: dict[str, tuple[tuple, Catalog, RuleDecomposer]] = {}

    @classmethod
    def from_env(cls, settings: Settings | None = None) -> AgentServices:
        """Services on the engines the settings (by default the environment) name, opened on first use."""
        return cls(lambda: open_stack(settings), chat_model=lambda: chat_model_from_env(settings))

    @property
    def stack(self) -> Stack:
        with self._lock:
            if self._stack is None:
                self._stack = self._open_stack()
            return self._stack

    @property
    def tools(self) -> ToolRunner:
        with self._lock:
            if self._tools is None:
                self._tools = ToolRunner(self.stack, self._limits, self._shown_source)
            return self._tools

    def _shown_source(self, scope: str) -> Callable[[str], str]:
        """A document's source file from the scope's ingest root that holds it, else by its name
        (`graph.served_paths`): tool answers reach a server's clients in the run's state."""
        roots = ingest_roots(self.stack.settings.home, scope)
        return lambda path: served_path(path, roots)

    def catalog(self, scope: str) -> Catalog:
        """The catalog of `scope` as it is now (a new one per call: it keeps what it reads)."""
        return Catalog(self.tools.context(scope))

    @property
    def chat_model(self) -> BaseChatModel | None:
        with self._lock:
            if not self._chat_model_made:
                self._chat_model, self._chat_model_made = self._chat_model(), True
            return self._chat_model

    @cached_property
    def compose_format(self) -> str:
        """How the chat model writes answers (`RAGENT_CHAT_COMPOSE`; json for the local model)."""
        return ChatSettings.from_env().compose

    def planner(self, context: AgentContext) -> Planner:
        """The planner for a run step, seeing the catalog as it is now. While the chat model's breaker is open (its
        endpoint just failed), the rules plan even when `llm` is asked for."""
        model = self.chat_model if context.planner in ("auto", "llm") else None
        if context.planner == "llm" and model is None:
            raise InvalidInput(
                "planner 'llm' needs a chat model: set RAGENT_CHAT=local (the local model), or OPENAI_API_KEY (and "
                "OPENAI_BASE_URL for another OpenAI-compatible endpoint)"
            )
        catalog, decomposer = self._readers(context.scope)
        if model is None or self.breaker.is_open:
            return RulePlanner(context, catalog, decomposer)
        return LLMPlanner(
            context,
            catalog,
            model,
            self.breaker,
            decomposer,
            everywhere=context.planner == "llm",
            compose_format=self.compose_format,
        )

    def _readers(self, scope: str) -> tuple[Catalog, RuleDecomposer]:
        """The scope's catalog and rule decomposer, kept while the index and the day stay the same: a run's six
        planner steps, and the runs after it, read the catalog and build value indexes once, not at every step
        (one cheap version query per step says whether anything changed: an ingest, a describe, a new day for
        relative dates)."""
        catalog = self.catalog(scope)
        version = (catalog.version(), date.today())
        with self._lock:
            kept = self._kept.get(scope)
            if kept is None or kept[0] != version:
                kept = self._kept[scope] = (version, catalog, RuleDecomposer(catalog))
        return kept[1], kept[2]

    def close(self) -> None:
        """Close the tool contexts, and the stack when these services opened it."""
        with self._lock:
            self._kept.clear()
            if self._tools is not None:
                self._tools.close()
                self._tools = None
            if self._open_stack is not None and self._stack is not None:
                self._stack.close()
                self._stack = None

    def __enter__(self) -> AgentServices:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
