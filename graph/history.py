"""A thread's conversation, bounded: what one run may bring to it and what the thread keeps of it.

A thread keeps its questions and answers as `messages` (`graph.state.Conversation`) for chat front ends and for the
turns the single loop shows its model (the last two, `graph.single_loop.model.THREAD_MESSAGES`); the orchestrator
reads only the question and the previous turn's decomposition. Nothing reads further back, while a thread that kept
every message a client sent grows without end, and each run's checkpoints store the whole list again (12 runs of
450 pasted messages took 500 MB). So:
- a run's input carries the new turn, not the conversation (the thread has it): at most RUN_MESSAGES_MAX messages
  and RUN_CHARS_MAX characters of them (`checked_run_messages`; the server refuses more with 413 before the run is
  stored);
- a thread keeps its last THREAD_MESSAGES_KEPT messages and THREAD_CHARS_KEPT characters: each question removes
  the older turns, whole and from the oldest (`trimmed`, as LangGraph trims a chat: `trim_messages` and a
  `RemoveMessage` for each message left out);
- a checkpoint whose messages go far beyond that is refused by the checkpointer (`graph.checkpointing`): a client
  can write a thread's state by other ways than a run (`update_state`, a thread created with `supersteps`).
"""

from __future__ import annotations

import json

from langchain_core.messages import AnyMessage, BaseMessage, RemoveMessage, trim_messages

from core.errors import InvalidInput

RUN_MESSAGES_MAX = 6
"""The question and the two turns before it, with room for a client that sends its system message too."""
RUN_CHARS_MAX = 16_000
THREAD_MESSAGES_KEPT = 20
"""Ten turns: five times what the single loop shows its model, for a chat front end's scroll-back."""
THREAD_CHARS_KEPT = 64_000
STORED_MESSAGES_MAX = 4 * THREAD_MESSAGES_KEPT
STORED_CHARS_MAX = 4 * THREAD_CHARS_KEPT
"""Far above what a run leaves (the kept turns, one run's input and its answer): only a state written around the
graph reaches them."""


def _chars(messages: list[BaseMessage]) -> int:
    return sum(len(m.model_dump_json()) for m in messages)


def checked_run_messages(given: object) -> None:
    """Raises InvalidInput, saying what to send instead, for a run input's `messages` beyond the run's bounds."""
    if given is None:
        return
    count = len(given) if isinstance(given, list) else 1
    chars = len(json.dumps(given, default=str))
    if count > RUN_MESSAGES_MAX or chars > RUN_CHARS_MAX:
        raise InvalidInput(
            f"the run's input carries {count} messages; a run takes at most {RUN_MESSAGES_MAX}, of at most "
            f"{RUN_CHARS_MAX} characters in all (this input has {chars}): send the new question only, the thread "
            "keeps the conversation"
        )


def trimmed(messages: list[AnyMessage], question: AnyMessage) -> list[RemoveMessage]:
    """The removals that bring the thread, with `question` last, to its kept turns (never the question itself)."""
    thread = messages if messages and messages[-1].id == question.id else [*messages, question]
    kept = trim_messages(thread, max_tokens=THREAD_MESSAGES_KEPT, token_counter=len, start_on="human")
    kept = trim_messages(kept, max_tokens=THREAD_CHARS_KEPT, token_counter=_chars, start_on="human")
    keep = {m.id for m in kept} | {question.id}
    return [RemoveMessage(id=m.id) for m in messages if m.id not in keep]


def checked_stored_messages(messages: list[AnyMessage]) -> None:
    """Raises InvalidInput for a thread state holding more messages than any run leaves (see the module)."""
    count, chars = len(messages), _chars(messages)
    if count > STORED_MESSAGES_MAX or chars > STORED_CHARS_MAX:
        raise InvalidInput(
            f"the thread's state would hold {count} messages of {chars} characters; a thread keeps at most "
            f"{STORED_MESSAGES_MAX} messages and {STORED_CHARS_MAX} characters: start a new thread"
        )
