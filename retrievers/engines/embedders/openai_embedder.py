"""Any OpenAI-compatible embeddings endpoint, through langchain-openai's `OpenAIEmbeddings`.

Endpoints do not expose their tokenizer, so chunking counts whitespace-separated words instead of model
tokens; `window_tokens` is set well below common 512-token windows to leave room for subword splits.
The dimension is taken from one probe call unless it is configured.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import openai
from langchain_openai import OpenAIEmbeddings

from core.errors import BackendUnavailable, RateLimited

_WORD = re.compile(r"\S+")
DEFAULT_RETRY_AFTER_S = 5.0


class OpenAIEmbedder:
    """Embeddings from `base_url` with `model`; the index records `model_name` as `openai:<model>`."""

    def __init__(
        self, model: str, *, base_url: str | None, api_key: str, dimension: int | None = None, window_tokens: int = 300
    ):
        self.model_name = f"openai:{model}"
        self.window_tokens = window_tokens
        self._where = base_url or "the OpenAI API"
        self._client = OpenAIEmbeddings(
            model=model, base_url=base_url, api_key=api_key, check_embedding_ctx_length=False, timeout=30, max_retries=2
        )
        self.dimension = dimension or len(self.embed_query("dimension probe"))

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        return [m.span() for m in _WORD.finditer(text)]

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        try:
            return self._client.embed_documents(list(texts))
        except openai.RateLimitError as exc:
            retry_after = float(exc.response.headers.get("retry-after", DEFAULT_RETRY_AFTER_S))
            raise RateLimited(f"embeddings endpoint {self._where} is rate limiting requests", retry_after) from None
        except Exception as exc:  # the openai client raises many transport and status errors; all mean "unusable now"
            raise BackendUnavailable(
                f"embeddings endpoint {self._where} failed ({type(exc).__name__}: {exc}); "
                "check OPENAI_BASE_URL and OPENAI_API_KEY"
            ) from None

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]
