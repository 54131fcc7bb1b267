"""compose: the answer shaped by intent, citing only documents and annotation rows in the evidence.

The planner composes (`Planner.compose`): the rules compute a figure or a table from the envelopes, or pick the
evidence sentences that answer a text question; a chat model writes the answer and code checks every sentence
before it is shown. Checked sentences stream to `messages` clients as they are written, as chunks of one message;
the final message keeps that message's id when its text is what was streamed (clients that key messages by id
show it once), and gets a new one when a retry or the rules' answer replaced it. The answer's text ends with the
sources that failed, if any did.
"""

from __future__ import annotations

import uuid

from langchain_core.messages import AIMessage, AIMessageChunk
from langgraph.graph.message import push_message
from langgraph.runtime import Runtime

from graph.answer.computed import failures
from graph.context import AgentContext
from graph.markdown import escape
from graph.services import AgentServices
from graph.shown_answers import shown_answer
from graph.state import AgentState, current_evidence


def several_said(state: AgentState) -> str | None:
    """What an answer for all the documents a name matches says first, when the human chose all of them: that they
    are several, and which (the question asked about one)."""
    reply, several = state.get("clarification"), state["decomposition"].several
    if reply is None or reply.choice != "all" or several is None:
        return None
    titles = ", ".join(escape(doc.title or doc.doc_id) for doc in several.documents)
    count = f"More than {several.matched}" if several.more else str(several.matched)
    return f"{count} documents match “{escape(several.name)}” ({titles}); this answers for all of them.\n\n"


def compose(state: AgentState, runtime: Runtime[AgentContext], *, services: AgentServices) -> dict:
    """The answer (clarify's, when it already gave one: an export, a stop), also said in the thread's chat."""
    answer = state.get("answer")
    message_id, streamed, calls = str(uuid.uuid4()), [], []
    if answer is None:

        def stream(piece: str) -> None:
            streamed.append(piece)
            push_message(AIMessageChunk(content=piece, id=message_id), state_key=None)

        evidence = current_evidence(state)
        planner = services.planner(runtime.context)
        answer = planner.compose(state["decomposition"], evidence, state.get("graded", []), stream)
        calls = list(planner.calls)
        if tail := failures(evidence):
            answer = answer.model_copy(update={"text": answer.text + tail})
            if streamed:
                stream(tail)
        if (head := several_said(state)) is not None:
            answer = answer.model_copy(update={"text": head + answer.text, "notes": [*answer.notes, head.strip()]})
    same = "".join(streamed) == answer.text
    message = AIMessage(answer.text, id=message_id if same else str(uuid.uuid4()))
    shown = {message.id: shown_answer(answer, state.get("evidence", []))}
    return {"answer": answer, "messages": [message], "model_calls": calls, "answers": shown}
