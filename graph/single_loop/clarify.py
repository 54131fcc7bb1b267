"""clarify: the orchestrator's clarification, asked and checked as it asks it (`graph.nodes.clarify.human_reply`:
the same interrupt and payload, so `ragent resume`, the server's clients and Studio answer it unchanged), with the
answer handed to the model.

An export or a stop ends the run and a retry starts the question afresh (with a new budget), as in the
orchestrator. A narrowing or a broadening changes the question as it does there (`answered_reading`) and starts a
new attempt, so what was found for the question as it stood is not composed as the answer to the new one; carrying
it out is the model's: it is told what the user chose, and goes on.
"""

from __future__ import annotations

import json

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime
from langgraph.types import Command

from graph.context import AgentContext
from graph.nodes.clarify import answered_reading, closing_answer, human_reply
from graph.schemas import ClarifyReply
from graph.services import AgentServices
from graph.single_loop.state import LoopState
from prompts import load as load_prompts


def told(reply: ClarifyReply) -> str:
    """The user's choice as the model is told it."""
    said = load_prompts("single_loop")["clarified"]
    if reply.choice == "narrow":
        condition = f"{reply.field} {reply.op or '='} {json.dumps(reply.value, ensure_ascii=False)}"
        return said["narrow"].format(condition=condition)
    return said["broaden"]


def clarify(state: LoopState, runtime: Runtime[AgentContext], *, services: AgentServices) -> Command:
    d, scope = state["decomposition"], runtime.context.scope
    reply, added = human_reply(state, runtime, services)
    if (answer := closing_answer(reply, d, scope, services)) is not None:
        return Command(goto="compose", update={"clarification": reply, "answer": answer})
    if reply.choice == "retry":
        return Command(goto="decompose", update={"clarification": reply})
    return Command(
        goto="model",
        update={
            "clarification": reply,
            "decomposition": answered_reading(d, reply, added, services.catalog(scope)),
            "attempt": state["attempt"] + 1,
            "loop": [HumanMessage(told(reply))],
        },
    )
