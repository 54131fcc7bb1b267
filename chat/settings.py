"""Which chat model the agent uses, from the environment.

RAGENT_CHAT            local: the project's own llama.cpp server (`chat.local`); openai: the OpenAI-compatible
                       endpoint of OPENAI_BASE_URL with OPENAI_API_KEY; none: no model. Unset: openai when
                       OPENAI_API_KEY is set, none otherwise.
RAGENT_CHAT_MODEL      the model: a local model's name (`chat.local.weights.MODELS`), or the endpoint's
RAGENT_CHAT_TIMEOUT_S  the most one model call may take (a local model on two cores reads ~100 tokens/s)
RAGENT_CHAT_IDLE_STOP_S  how long the local server stays up with no request
RAGENT_CHAT_THREADS, RAGENT_CHAT_CONTEXT  the local server's threads (the usable cores) and context (tokens)
RAGENT_CHAT_COMPOSE    how the model writes an answer: text (sentences ending in [n] markers, streamed as each is
                       checked) or json (sentences and their item numbers in a JSON schema the endpoint enforces, so
                       every sentence cites an item that exists). Default: json for the local model, text otherwise
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from core.errors import InvalidInput

KINDS = ("local", "openai", "none")
COMPOSE_FORMATS = ("text", "json")
DEFAULT_OPENAI_MODEL = "gpt-4o-mini"
DEFAULT_LOCAL_MODEL = "qwen2.5-coder-1.5b"
OPENAI_TIMEOUT_S = 30.0
LOCAL_TIMEOUT_S = 180.0
LOCAL_IDLE_STOP_S = 600.0
LOCAL_CONTEXT = 8192
LOCAL_MAX_TOKENS = 512
"""What one reply of the local model may write: the longest the modes ask for (a plan, a written answer) is about 300
tokens. Inside a JSON-schema grammar the 1.5B model once kept writing a plan's arguments until the 180 s client
timeout, which opened the breaker for the rest of an evaluation; cut off, the reply fails its parse and is asked
again or left to the rules within a minute."""


def _number(env: Mapping[str, str], name: str, default: float, minimum: float) -> float:
    value = env.get(name, "").strip()
    if not value:
        return default
    try:
        number = float(value)
    except ValueError:
        number = minimum - 1
    if number < minimum:
        raise InvalidInput(f"{name} must be a number, at least {minimum:g}; it is {value!r}")
    return number


@dataclass(frozen=True)
class ChatSettings:
    kind: Literal["local", "openai", "none"]
    model: str
    timeout_s: float
    base_url: str | None = None
    api_key: str | None = None
    idle_stop_s: float = LOCAL_IDLE_STOP_S
    threads: int = 1
    context: int = LOCAL_CONTEXT
    max_tokens: int | None = None
    compose: Literal["text", "json"] = "text"

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> ChatSettings:
        kind = env.get("RAGENT_CHAT", "").strip().lower() or ("openai" if env.get("OPENAI_API_KEY") else "none")
        if kind not in KINDS:
            raise InvalidInput(f"RAGENT_CHAT must be one of {', '.join(KINDS)}; it is {env['RAGENT_CHAT']!r}")
        if kind == "openai" and not env.get("OPENAI_API_KEY"):
            raise InvalidInput("RAGENT_CHAT=openai needs OPENAI_API_KEY (and OPENAI_BASE_URL for another endpoint)")
        local = kind == "local"
        compose = env.get("RAGENT_CHAT_COMPOSE", "").strip().lower() or ("json" if local else "text")
        if compose not in COMPOSE_FORMATS:
            raise InvalidInput(f"RAGENT_CHAT_COMPOSE must be text or json; it is {env['RAGENT_CHAT_COMPOSE']!r}")
        return cls(
            kind=kind,
            model=env.get("RAGENT_CHAT_MODEL", "").strip() or (DEFAULT_LOCAL_MODEL if local else DEFAULT_OPENAI_MODEL),
            timeout_s=_number(env, "RAGENT_CHAT_TIMEOUT_S", LOCAL_TIMEOUT_S if local else OPENAI_TIMEOUT_S, 1),
            base_url=env.get("OPENAI_BASE_URL") or None,
            api_key=env.get("OPENAI_API_KEY") or None,
            idle_stop_s=_number(env, "RAGENT_CHAT_IDLE_STOP_S", LOCAL_IDLE_STOP_S, 1),
            threads=int(_number(env, "RAGENT_CHAT_THREADS", len(os.sched_getaffinity(0)), 1)),
            context=int(_number(env, "RAGENT_CHAT_CONTEXT", LOCAL_CONTEXT, 512)),
            max_tokens=int(_number(env, "RAGENT_CHAT_MAX_TOKENS", LOCAL_MAX_TOKENS, 16)) if local else None,
            compose=compose,
        )
