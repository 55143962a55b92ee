"""Judge criteria: what a judge is asked about prose, on which scale, passing at which score."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import ClassVar, Literal, Self

from assay.errors import SpecError
from assay.spec import JSON
from assay.spec.case import validate_threshold
from assay.spec.metrics import JUDGE_THRESHOLDS

Scale = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Criterion:
    """A question about the answer's prose, graded by a judge on ``scale``.

    Scores are normalised to 0–1 (``(raw - low) / (high - low)``) before they meet the
    threshold, so a 4 on a 1–5 scale is 0.75. ``reference`` says whether the expected answer
    is shown to the judge; ``facts`` whether the case's important facts are.
    """

    name: str
    rubric: str
    threshold: float = 0.5
    scale: Scale = (0, 1)
    reference: bool = False
    facts: bool = False
    effects: bool = False
    kind: ClassVar[Literal["judge"]] = "judge"
    category: ClassVar[str] = "judge"

    def __post_init__(self) -> None:
        if not self.name or not isinstance(self.name, str):
            raise SpecError("a criterion needs a name", field="criterion.name")
        if not isinstance(self.rubric, str) or not self.rubric.strip():
            raise SpecError("a criterion needs a rubric", field=f"{self.name}.rubric")
        validate_threshold(self.threshold, f"{self.name}.threshold")
        low, high = self.scale
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in self.scale) \
                or low >= high:
            raise SpecError(f"{self.scale!r} is not a (low, high) scale of whole numbers",
                            field=f"{self.name}.scale")

    def settings(self) -> dict[str, JSON]:
        """What the fingerprint covers: the rubric, the scale and what the judge is shown."""
        return {"type": "Criterion", "rubric": self.rubric, "scale": list(self.scale),
                "reference": self.reference, "facts": self.facts, "effects": self.effects}

    def with_threshold(self, threshold: float) -> Self:
        """The same criterion with another threshold."""
        return replace(self, threshold=threshold)

    def normalise(self, raw: float) -> float:
        """Map a raw score on the scale to 0–1."""
        low, high = self.scale
        return (raw - low) / (high - low)

    def accepts(self, raw: float) -> bool:
        """Whether ``raw`` is a finite score on this criterion's scale."""
        low, high = self.scale
        return math.isfinite(raw) and low <= raw <= high


def criterion(name: str, rubric: str, *, threshold: float = 0.5, scale: Scale = (0, 1),
              reference: bool = False) -> Criterion:
    """A custom judge criterion with its own rubric (graded only when the suite has a judge).

    >>> concise = criterion("concise", "Is the answer free of filler and repetition?")
    """
    if name in JUDGE_THRESHOLDS:
        raise SpecError(f"{name!r} is a built-in criterion; name yours differently",
                        field="criterion.name")
    return Criterion(name=name, rubric=rubric, threshold=threshold, scale=scale,
                     reference=reference)


_ACCURACY = (
    "Does the answer state the same facts as the reference answer? Judge factual meaning, "
    "not wording: a paraphrase with the same facts is fully accurate. Penalise "
    "contradictions of the reference, claims the reference does not support, and any "
    "important fact the answer leaves out. 1 means every important fact is stated and "
    "nothing contradicts or goes beyond the reference; 0 means the facts are wrong or missing."
)
_RELEVANCY = (
    "Does the answer respond to the question that was asked? Judge responsiveness only, "
    "not correctness: a wrong answer to the right question is relevant, and a correct "
    "statement about something else is not. 1 means it addresses the question directly; "
    "0 means it ignores it."
)
_COMPLETION = (
    "Does the answer complete the task the question sets, so the person asking has what "
    "they needed without a follow-up? 1 means fully completed; 0 means not attempted."
)

#: The built-in criteria, with the rubric each is graded by.
BUILTIN: dict[str, Criterion] = {
    c.name: c
    for c in (
        Criterion("semantic_accuracy", _ACCURACY, JUDGE_THRESHOLDS["semantic_accuracy"],
                  reference=True, facts=True),
        Criterion("answer_relevancy", _RELEVANCY, JUDGE_THRESHOLDS["answer_relevancy"]),
        Criterion("task_completion", _COMPLETION, JUDGE_THRESHOLDS["task_completion"]),
        Criterion("language_quality",
                  "How well is the answer written: grammar, clarity, fluency? 1 is "
                  "unreadable, 5 is flawless.", JUDGE_THRESHOLDS["language_quality"], (1, 5)),
        Criterion("answer_completeness",
                  "Does the answer cover every part of the question? 1 covers none of it, "
                  "5 covers all of it.", JUDGE_THRESHOLDS["answer_completeness"], (1, 5)),
        Criterion("tone",
                  "Is the tone appropriate for a helpful assistant speaking to this person: "
                  "courteous, calm, neither curt nor gushing? 1 is inappropriate, 5 is ideal.",
                  JUDGE_THRESHOLDS["tone"], (1, 5)),
        Criterion("operational_claim_integrity",
                  "The committed effects listed are settled facts about what the system did; "
                  "do not question them. Does the answer describe only those effects, without "
                  "claiming an action that is not listed or denying one that is? 1 claims "
                  "effects that did not happen, 5 describes exactly what happened.",
                  JUDGE_THRESHOLDS["operational_claim_integrity"], (1, 5), effects=True),
    )
}


def resolve(name: str, definition: object | None, threshold: float) -> Criterion:
    """The criterion behind a planned judge metric, at the planned threshold."""
    found = definition if isinstance(definition, Criterion) else BUILTIN.get(name)
    if found is None:
        raise SpecError(f"no judge criterion named {name!r}")
    return found.with_threshold(threshold)
