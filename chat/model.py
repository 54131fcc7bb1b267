"""The chat model from the environment (`chat.settings`): `ChatOpenAI` in every case, pointed at the project's own
llama.cpp server for RAGENT_CHAT=local, so that a local model takes the same code path as a user's vLLM, Ollama or
hosted model."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from chat.settings import ChatSettings
from core.settings import Settings

LOCAL_API_KEY = "local"
"""llama.cpp's server checks no key; the OpenAI client insists on one."""


def chat_model_from_env(settings: Settings | None = None, chat: ChatSettings | None = None) -> BaseChatModel | None:
    """The configured chat model, or None for none. RAGENT_CHAT=local starts the data folder's server now (first
    use), joining and verifying the weights the first time."""
    chat = chat or ChatSettings.from_env()
    if chat.kind == "none":
        return None
    from langchain_openai import ChatOpenAI

    if chat.kind == "local":
        from chat.local.launcher import local_chat_url

        settings = settings or Settings.from_env()
        base_url, api_key = f"{local_chat_url(settings.home, settings.cache_dir, chat)}/v1", LOCAL_API_KEY
    else:
        base_url, api_key = chat.base_url, chat.api_key
    return ChatOpenAI(
        model=chat.model,
        base_url=base_url,
        api_key=api_key,
        timeout=chat.timeout_s,
        max_tokens=chat.max_tokens,
        max_retries=0,
        temperature=0,
        stream_usage=True,  # streamed answers report their tokens too (`ragent ask --explain`)
    )
