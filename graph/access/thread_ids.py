"""A thread's id is the server's to choose, so that naming one tells a client nothing about other tenants' threads.

Thread ids are global: a create naming an id another identity holds cannot make that thread, and LangGraph answers
409 'already exists' where every read of it answers 404 (that identity's thread does not exist for others), and a
tenant who names an id first takes it from one who would name it later. The one answer that cannot tell the two
apart is the same refusal for both, so a client may not choose the id of the thread it creates (`threads.create`
with a `thread_id`, a run with `if_not_exists: "create"`): the server makes it.

The handlers cannot see whether the request named the id (LangGraph fills in its own before asking them); they can
see how old it is. The server makes ids as UUIDv7, whose first 48 bits are the millisecond it made them, a moment
before it asks: an id that is not a UUIDv7 made within FRESH_S seconds was not made by it for this request. A
client may still make a fresh UUIDv7 itself: no thread holds it but one made in those same seconds, whose owner has
barely had its id back and has not given it away; only then would the answers still differ.
"""

from __future__ import annotations

import time
import uuid

FRESH_S = 2.0
"""Far above the time between the server making an id and asking the handlers (milliseconds, in one process);
far below the time before a thread's owner could pass its id to anyone."""
CHOSEN_BY_THE_SERVER = (
    "a thread's id is chosen by the server: create the thread without a thread_id, and use the one it answers with"
)


def made_just_now(thread_id: object) -> bool:
    """Whether `thread_id` is a UUIDv7 of the last FRESH_S seconds: one the server made for this request."""
    try:
        made = uuid.UUID(str(thread_id))
    except ValueError:
        return False
    if made.version != 7:
        return False
    return abs(time.time() - (made.int >> 80) / 1000) <= FRESH_S
