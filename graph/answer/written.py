"""The answer a chat model writes from the run's evidence, checked by code before anyone sees it.

The model is shown the question, what it asks for (the decomposition's intent) and the evidence as numbered items
(the best passages, or the computed figure or table), and writes plain sentences that end with the numbers of the
items they rest on. Plain text so that it can stream: as each sentence completes it is checked
(`graph.answer.verify`) and, when it passes, handed to `stream` (the compose node sends it to `messages` stream
clients); a sentence that fails is never sent. A small model often leaves the markers out (the 1.5B local model
left 33 of 60 HotpotQA drafts uncited): `as_json` asks instead for the sentences and their item numbers in a JSON
schema whose numbers are those of the items shown, which llama.cpp turns into a grammar, so every sentence cites an
item that exists; the same checks then judge what the items say, and the answer streams once the reply is whole.
A draft with a fatal fault (a fabricated citation, a number the evidence does not hold) or with no supported
sentence is written once more with the faults listed; when that fails too, `write` returns None and the rules'
answer is given. For a figure or a table the model writes the sentences that lead into it and the computed figure
or table follows, as code made it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal

from langchain_core.language_models import BaseChatModel
from langgraph.constants import TAG_NOSTREAM
from pydantic import BaseModel, Field, create_model

from graph.answer.computed import about_documents, best_passages
from graph.answer.verify import Checked, EvidenceItem, check_sentence, parse_draft
from graph.decomposition import Decomposition
from graph.markdown import escape
from graph.planners.base import Stream
from graph.planners.chat_breaker import ChatBreaker, is_transport_failure
from graph.planners.model_calls import ModelCall
from graph.schemas import Answer, CheckedSentence, Citation, Evidence, GradedHit
from prompts import load as load_prompts

ATTEMPTS = 2
MAX_SENTENCES = 6
TOO_LONG = f"the answer is longer than {MAX_SENTENCES} sentences"
PASSAGE_ITEMS = 8
COMPUTED_CHARS = 6000
NO_ANSWER = "NO ANSWER"
"""What the prompt tells the model to write when the evidence does not answer the question (`no_answer_text`)."""
SENTENCE_CHARS = 400
"""The longest sentence a JSON draft may hold: a grammar with no bound lets a small model write on to its token cap."""


class DraftSentence(BaseModel):
    text: str = Field(max_length=SENTENCE_CHARS)
    items: list[int] = Field(min_length=1, description="The numbers of the evidence items the sentence rests on")


class Draft(BaseModel):
    """A draft as JSON (`as_json`): the answer's sentences with their items; none when the evidence does not answer.
    No separate yes/no on whether it answers: asked that first, the 1.5B model said no to 3 HotpotQA questions of 3
    whose evidence held the answer."""

    sentences: list[DraftSentence] = Field(max_length=MAX_SENTENCES)


def draft_schema(items: int) -> type[Draft]:
    """`Draft` whose item numbers are those of the `items` shown (an enum: no other number can be written)."""
    numbers = Literal[tuple(range(1, items + 1))]
    sentence = create_model(
        "DraftSentence",
        __base__=DraftSentence,
        items=(list[numbers], Field(min_length=1, description="The numbers of the evidence items it rests on")),
    )
    return create_model("Draft", __base__=Draft, sentences=(list[sentence], Field(max_length=MAX_SENTENCES)))


def evidence_items(
    computed: Answer, evidence: list[Evidence], relevant: list[GradedHit], per_document: int = 1
) -> list[EvidenceItem]:
    """What the model may cite, numbered from 1: the computed figure or table (its text holds the figure, the
    groups and the count of rows), or the best passages (`per_document` of each at most)."""
    if computed.format in ("figure", "table"):
        return [EvidenceItem(1, "computed result", computed.text[:COMPUTED_CHARS], tuple(computed.citations))]
    return [
        EvidenceItem(
            n,
            g.doc_id + (f" ({g.title})" if g.title else ""),
            " ".join(g.text.split()),  # one line per item in the prompt
            (Citation(doc_id=g.doc_id, chunk_id=g.chunk_id),),
        )
        for n, g in enumerate(best_passages(evidence, relevant, PASSAGE_ITEMS, per_document), start=1)
    ]


@dataclass
class Attempt:
    """One draft as it streams: its checked sentences, and whether everything checked so far may be shown."""

    items: list[EvidenceItem]
    question: str
    stream: Stream | None
    checked: list[Checked] = field(default_factory=list)
    clean: bool = True
    streamed: str = ""

    def take(self, text: str, keys: list[str]) -> None:
        """Check one finished sentence; stream it when it and every sentence before it passed the fatal checks.
        Past MAX_SENTENCES a sentence is left out unread: an answer is a few sentences, not the evidence retold."""
        if len(self.checked) >= MAX_SENTENCES:
            left_out = CheckedSentence(text=text, verdict="unsupported", problems=[TOO_LONG])
            self.checked.append(Checked(left_out, (), fatal=False))
            return
        checked = check_sentence(text, keys, self.items, self.question)
        self.checked.append(checked)
        self.clean = self.clean and not checked.fatal
        if self.clean and self.stream and checked.sentence.verdict == "supported":
            piece = (" " if self.streamed else "") + _line(checked)
            self.stream(piece)
            self.streamed += piece

    @property
    def problems(self) -> list[str]:
        found = [f"{c.sentence.text!r}: {'; '.join(c.sentence.problems)}" for c in self.checked if c.sentence.problems]
        if not any(c.sentence.verdict == "supported" for c in self.checked):
            found.append("no sentence is supported by the evidence it cites")
        return found

    @property
    def usable(self) -> bool:
        return not any(c.fatal for c in self.checked) and any(c.sentence.verdict == "supported" for c in self.checked)


def _line(checked: Checked) -> str:
    cited = dict.fromkeys(c.doc_id for c in checked.sentence.citations)
    return escape(checked.sentence.text) + "".join(f" [{escape(d)}]" for d in cited)


class AnswerWriter:
    """Writes with `model`; `breaker` is the process's, so that a failed endpoint sends every run to the rules."""

    def __init__(
        self, model: BaseChatModel, breaker: ChatBreaker, calls: list[ModelCall] | None = None, as_json: bool = False
    ):
        """`calls`: where each call of the model is recorded (the planner's record, for the run's `model_calls`);
        `as_json`: the draft as JSON sentences with their item numbers (`draft_schema`), not text with markers."""
        self.model = model
        self.breaker = breaker
        self.as_json = as_json
        self.notes: list[str] = []
        self.calls = calls if calls is not None else []

    def write(
        self,
        d: Decomposition,
        computed: Answer,
        evidence: list[Evidence],
        relevant: list[GradedHit],
        stream: Stream | None = None,
    ) -> Answer | None:
        """The verified answer, or None (with the reason in `notes`) when the rules' answer must be given."""
        per_document = PASSAGE_ITEMS if about_documents(d, evidence) else 1  # several passages of a named one
        items = evidence_items(computed, evidence, relevant, per_document)
        if not items:
            return None
        prompt = load_prompts("planner")["compose"]
        variables = {
            "question": d.question,
            "intent": d.intent,
            "shape": prompt["lead"] if computed.format in ("figure", "table") else prompt["prose"],
            "evidence": "\n".join(f"[{i.number}] {i.label}: {i.text}" for i in items),
            "items": len(items),
            "citing": prompt["cite_json" if self.as_json else "cite_text"].format(items=len(items)),
            "no_answer": prompt["no_answer_json" if self.as_json else "no_answer_text"].format(no_answer=NO_ANSWER),
        }
        messages = [("system", prompt["system"].format(**variables)), ("human", prompt["human"].format(**variables))]
        for attempt_number in range(ATTEMPTS):
            attempt = Attempt(items, d.question, stream if attempt_number == 0 else None)
            started, usage = time.perf_counter(), {}
            try:
                draft = (
                    self._draft_json(messages, attempt, usage)
                    if self.as_json
                    else self._draft(messages, attempt, usage)
                )
            except Exception as error:
                if not is_transport_failure(error):  # a reply cut at the token cap, or unreadable: asked again
                    self._record(started, usage, "invalid", f"{type(error).__name__}: {error}")
                    self.notes.append(f"draft {attempt_number + 1} could not be read ({type(error).__name__})")
                    continue
                self.breaker.trip()  # the endpoint failed, or the client gave up on it: the rules answer
                self._record(started, usage, "failed", type(error).__name__)
                self.notes.append(f"the chat model failed ({type(error).__name__}); the rules' answer is shown")
                return None
            if draft.strip() == NO_ANSWER:
                self._record(started, usage, "invalid", "it found no answer in the evidence")
                self.notes.append("the chat model found no answer in the evidence; the rules' answer is shown")
                return None
            self._record(started, usage, "used" if attempt.usable else "invalid", "; ".join(attempt.problems))
            if attempt.usable:
                return self._answer(computed, attempt)
            messages += [
                ("ai", draft),
                ("human", prompt["retry"].format(problems="\n".join(f"- {p}" for p in attempt.problems), **variables)),
            ]
            self.notes.append(f"draft {attempt_number + 1} failed the checks: {'; '.join(attempt.problems)}")
        self.notes.append(f"no draft passed the checks in {ATTEMPTS} attempts; the rules' answer is shown")
        return None

    def _record(self, started: float, usage: dict, outcome: str, detail: str) -> None:
        self.calls.append(ModelCall.since("compose", started, usage, outcome, detail[:300]))

    def _draft(self, messages: list[tuple[str, str]], attempt: Attempt, usage: dict) -> str:
        """The model's text, streamed (tagged `nostream`, so that the unchecked tokens reach no client), each
        sentence checked once the next one has begun (a citation marker can follow a sentence's full stop); the
        tokens it took land in `usage`."""
        text, done = "", 0
        for chunk in self.model.stream(messages, config={"tags": [TAG_NOSTREAM], "run_name": "model:compose"}):
            usage.update(chunk.usage_metadata or {})
            text += chunk.text
            drafts = parse_draft(text)
            for sentence, keys in drafts[done : len(drafts) - 1]:
                attempt.take(sentence, keys)
            done = max(done, len(drafts) - 1)
        for sentence, keys in parse_draft(text)[done:]:
            attempt.take(sentence, keys)
        return text

    def _draft_json(self, messages: list[tuple[str, str]], attempt: Attempt, usage: dict) -> str:
        """The model's JSON draft (`draft_schema`), each sentence checked as a text draft's is; returned as the text
        draft it stands for (NO_ANSWER when it gives no sentence), which a second attempt is shown. A reply that does
        not parse is raised, as one cut at the token cap is: a draft that could not be read, not "no answer"."""
        schema = draft_schema(len(attempt.items))
        structured = self.model.with_structured_output(schema, method="json_schema", include_raw=True)
        reply = structured.invoke(messages, config={"tags": [TAG_NOSTREAM], "run_name": "model:compose"})
        usage.update(getattr(reply.get("raw"), "usage_metadata", None) or {})
        draft = reply.get("parsed")
        if draft is None:
            raise reply.get("parsing_error") or ValueError("the reply holds no JSON draft")
        if not draft.sentences:
            return NO_ANSWER
        for sentence in draft.sentences:
            attempt.take(sentence.text, [str(number) for number in sentence.items])
        return " ".join(s.text + "".join(f"[{n}]" for n in s.items) for s in draft.sentences)

    def _answer(self, computed: Answer, attempt: Attempt) -> Answer:
        supported = [c for c in attempt.checked if c.sentence.verdict == "supported"]
        lead = " ".join(_line(c) for c in supported)
        if computed.format in ("figure", "table"):
            text = f"{lead}\n\n{computed.text}"
            citations = computed.citations
        else:
            pages = dict.fromkeys(item.label for c in supported for item in c.items)
            text = f"{lead}\n\nSources: {'; '.join(escape(p) for p in pages)}"
            citations = list({(c.doc_id, c.chunk_id): c for s in supported for c in s.sentence.citations}.values())
        if attempt.stream and attempt.streamed == lead:
            attempt.stream(text[len(lead) :])
        return computed.model_copy(
            update={
                "text": text,
                "composed_by": "model",
                "sentences": [c.sentence for c in attempt.checked],
                "citations": citations,
                "notes": list(self.notes),
            }
        )
