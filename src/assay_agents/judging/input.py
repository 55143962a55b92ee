"""What a judge is shown: strings only, never what the agent did.

:class:`JudgeInput` accepts nothing but strings, and :func:`judge_input` builds one from the
case definition and the answer text alone: no constructor takes an Outcome, its actions or
an observation, so no effect can be put in front of a judge to rule on.
"""

from __future__ import annotations

from dataclasses import dataclass

from assay_agents.spec import JSON, Case, canonical_json


@dataclass(frozen=True, slots=True)
class JudgeInput:
    """The question, the answer and, optionally, the reference and the facts, as text."""

    question: str
    answer: str
    reference: str | None = None
    important_facts: tuple[str, ...] = ()
    committed_effects: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        texts = [self.question, self.answer, *self.important_facts, *self.committed_effects]
        if self.reference is not None:
            texts.append(self.reference)
        if not all(isinstance(text, str) for text in texts):
            raise TypeError("a JudgeInput holds strings only")


def judge_input(case: Case, answer: str, effects: tuple[str, ...] | None = None) -> JudgeInput:
    """The judge's view of one sample: the case's question, reference and facts, the answer.

    Important facts come from ``metadata["important_facts"]``; committed effects (for
    operational claim integrity) from ``metadata["committed_effects"]``, declared by the
    case's author as settled facts, or ``effects``: text the runner read from the
    observation channel the case names, what the system itself recorded (never the agent's
    own account of its actions).
    """
    return JudgeInput(
        question=question_text(case.input),
        answer=answer,
        reference=None if case.reference is None else _text(case.reference),
        important_facts=_strings(case.metadata.get("important_facts")),
        committed_effects=effects
        if effects is not None
        else _strings(case.metadata.get("committed_effects")),
    )


def question_text(value: JSON) -> str:
    """The user's request: the text itself, the last user message, or the input as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        users = [m for m in value if isinstance(m, dict) and m.get("role") == "user"]
        if users and isinstance(users[-1].get("content"), str):
            return str(users[-1]["content"])
    return canonical_json(value)


def _text(value: JSON) -> str:
    return value if isinstance(value, str) else canonical_json(value)


def _strings(value: JSON) -> tuple[str, ...]:
    if value is None:
        return ()
    items = value if isinstance(value, list) else [value]
    return tuple(_text(item) for item in items)
