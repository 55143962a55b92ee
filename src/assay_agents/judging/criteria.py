"""Judge criteria: what a judge is asked about prose, on which scale, passing at which score."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import ClassVar, Literal, Self

from assay_agents.errors import SpecError
from assay_agents.spec import JSON
from assay_agents.spec.metrics import JUDGE_THRESHOLDS

Scale = tuple[int, int]
#: How much of a refused value an error shows.
_SHOWN = 60


@dataclass(frozen=True, slots=True)
class Criterion:
    """A question about the answer's prose, graded by a judge on ``scale``.

    Scores are normalised to 0–1 (``(raw - low) / (high - low)``) before they meet the
    threshold, so a 4 on a 1–5 scale is 0.75. ``reference`` says whether the expected answer
    is shown to the judge; ``facts`` whether the case's important facts are. Settings that
    mean nothing are refused when it is made (``concise: rubric must be a non-empty string``).
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
        if not isinstance(self.name, str) or not self.name.strip():
            raise _refused("criterion", f"name must be a non-empty string {_got(self.name)}")
        if not isinstance(self.rubric, str) or not self.rubric.strip():
            raise _refused(self.name, f"rubric must be a non-empty string {_got(self.rubric)}")
        _threshold(self.name, self.threshold)
        # Kept as a tuple, so a scale given as a list still makes a hashable value.
        object.__setattr__(self, "scale", _scale(self.name, self.scale))
        for setting in ("reference", "facts", "effects"):
            if not isinstance(getattr(self, setting), bool):
                raise _refused(
                    self.name, f"{setting} must be true or false {_got(getattr(self, setting))}"
                )

    def settings(self) -> dict[str, JSON]:
        """What the fingerprint covers: the rubric, the scale and what the judge is shown."""
        return {
            "type": "Criterion",
            "rubric": self.rubric,
            "scale": list(self.scale),
            "reference": self.reference,
            "facts": self.facts,
            "effects": self.effects,
        }

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


def criterion(
    name: str,
    rubric: str,
    *,
    threshold: float = 0.5,
    scale: Scale = (0, 1),
    reference: bool = False,
) -> Criterion:
    """A custom judge criterion with its own rubric (graded only when the suite has a judge).

    >>> concise = criterion("concise", "Is the answer free of filler and repetition?")
    """
    if isinstance(name, str) and name in JUDGE_THRESHOLDS:
        raise _refused("criterion", f"{name!r} is a built-in criterion; name yours differently")
    return Criterion(
        name=name, rubric=rubric, threshold=threshold, scale=scale, reference=reference
    )


def _refused(where: str, detail: str) -> SpecError:
    return SpecError(detail, field=where)


def _got(value: object) -> str:
    shown = repr(value)
    return f"(got {shown if len(shown) <= _SHOWN else shown[: _SHOWN - 1] + '…'})"


def _threshold(name: str, value: object) -> None:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0.0 <= value <= 1.0
    ):
        raise _refused(name, f"threshold must be a number in [0, 1] {_got(value)}")


def _scale(name: str, value: object) -> Scale:
    if isinstance(value, tuple | list) and len(value) == 2:
        low, high = value
        if all(isinstance(v, int) and not isinstance(v, bool) for v in (low, high)) and low < high:
            return (low, high)
    raise _refused(name, f"scale must be (low, high) whole numbers with low < high {_got(value)}")


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
        Criterion(
            "semantic_accuracy",
            _ACCURACY,
            JUDGE_THRESHOLDS["semantic_accuracy"],
            reference=True,
            facts=True,
        ),
        Criterion("answer_relevancy", _RELEVANCY, JUDGE_THRESHOLDS["answer_relevancy"]),
        Criterion("task_completion", _COMPLETION, JUDGE_THRESHOLDS["task_completion"]),
        Criterion(
            "language_quality",
            "How well is the answer written: grammar, clarity, fluency? 1 is "
            "unreadable, 5 is flawless.",
            JUDGE_THRESHOLDS["language_quality"],
            (1, 5),
        ),
        Criterion(
            "answer_completeness",
            "Does the answer cover every part of the question? 1 covers none of it, "
            "5 covers all of it.",
            JUDGE_THRESHOLDS["answer_completeness"],
            (1, 5),
        ),
        Criterion(
            "tone",
            "Is the tone appropriate for a helpful assistant speaking to this person: "
            "courteous, calm, neither curt nor gushing? 1 is inappropriate, 5 is ideal.",
            JUDGE_THRESHOLDS["tone"],
            (1, 5),
        ),
        Criterion(
            "operational_claim_integrity",
            "The committed effects listed are settled facts about what the system did; "
            "do not question them. Does the answer describe only those effects, without "
            "claiming an action that is not listed or denying one that is? 1 claims "
            "effects that did not happen, 5 describes exactly what happened.",
            JUDGE_THRESHOLDS["operational_claim_integrity"],
            (1, 5),
            effects=True,
        ),
    )
}


def resolve(name: str, definition: object | None, threshold: float) -> Criterion:
    """The criterion behind a planned judge metric, at the planned threshold."""
    found = definition if isinstance(definition, Criterion) else BUILTIN.get(name)
    if found is None:
        raise SpecError(f"no judge criterion named {name!r}")
    return found.with_threshold(threshold)
