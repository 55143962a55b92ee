"""What every deterministic check shares: its settings, its context and its verdict."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from assay_agents.agent import Action, ModelSpec, Outcome
from assay_agents.checks import _values
from assay_agents.spec import JSON, Case, portable


class CheckError(Exception):
    """A check could not be calculated; the metric records the message as its error."""


@dataclass(frozen=True, slots=True)
class CheckContext:
    """What a check reads: the case as defined, and what the agent actually did.

    ``judge`` is the suite's judge (an :class:`assay.Judge`), or ``None`` when the run has
    none, so that a custom check can ask it (:meth:`ask_judge`).
    """

    case: Case
    outcome: Outcome
    model: ModelSpec | None = None
    sample: int = 0
    judge: Any = None

    async def ask_judge(self, instructions: str, prompt: str) -> str:
        """Ask the suite's judge once and return its reply text; no judge is a check error.

        Await it from an ``async`` custom check. Its reply is untrusted text for the check
        to read; the call is the check's own, outside the judge criteria's votes and usage.
        """
        if self.judge is None:
            raise CheckError("the suite has no judge to ask")
        reply = self.judge.complete(instructions, prompt)
        if inspect.isawaitable(reply):
            reply = await reply
        text = reply if isinstance(reply, str) else getattr(reply, "text", None)
        if not isinstance(text, str):
            raise CheckError(f"the judge replied with {type(reply).__name__}, not text")
        return text

    @property
    def answer(self) -> str | None:
        """The agent's answer."""
        return self.outcome.answer


@dataclass(frozen=True, slots=True)
class Verdict:
    """A check's score in [0, 1] and the reason a reader needs to act on it."""

    score: float
    reason: str

    @classmethod
    def of(cls, ok: bool, reason: str) -> Verdict:
        """A pass/fail verdict: score 1 or 0."""
        return cls(1.0 if ok else 0.0, reason)


@dataclass(frozen=True, kw_only=True)
class Check:
    """Base of the built-in checks: a small value whose fields are its settings.

    Subclasses set ``category`` and implement :meth:`evaluate`; ``name`` defaults to the
    factory's name and ``threshold`` to 1.0. A check refuses settings that mean nothing
    when it is made (:class:`~assay_agents.errors.SpecError` naming the check and the setting);
    subclasses with settings of their own extend :meth:`__post_init__`.
    """

    name: str
    threshold: float = 1.0
    category: ClassVar[str] = "custom"
    #: The factory that makes this kind of check: the default name, and the name errors use
    #: when the check's own name is unusable.
    factory: ClassVar[str] = "check"
    _private: ClassVar[frozenset[str]] = frozenset()

    def __post_init__(self) -> None:
        _values.name_of(self.name, self.factory)
        _values.threshold(self.name, self.threshold)

    def settings(self) -> dict[str, JSON]:
        """The check's own settings, portable, for fingerprints and storage."""
        cached = self.__dict__.get("_settings")
        if cached is None:
            # Settings never change (the check is frozen): compute them once per check.
            cached = self._describe()
            self.__dict__["_settings"] = cached
        return dict(cached)

    def _describe(self) -> dict[str, JSON]:
        values = {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name not in {"name", "threshold"} and f.name not in self._private
        }
        converted = portable(values, self.name)
        assert isinstance(converted, dict)
        return {"type": type(self).__name__, **converted}

    def with_threshold(self, threshold: float) -> Self:
        """The same check with another threshold (``minimum_scores`` uses this)."""
        return self._keeping_category(dataclasses.replace(self, threshold=threshold))

    def speaks_to(self, category: str) -> Self:
        """The same check, counted under ``category`` (a reliability category, or any name).

        ``checks.contains("booked").speaks_to("operational_claim_integrity")`` makes its
        failures count as operational claim integrity failures rather than content ones.
        """
        _values.category(self.name, category)
        copy = dataclasses.replace(self)
        # The class-level category is a default; an instance that speaks to another shadows it.
        object.__setattr__(copy, "category", category)
        return copy

    def _keeping_category(self, copy: Self) -> Self:
        if "category" in self.__dict__:
            object.__setattr__(copy, "category", self.__dict__["category"])
        return copy

    def evaluate(self, ctx: CheckContext) -> Verdict | Any:
        """Score the sample; raise :class:`CheckError` when it cannot be scored."""
        raise NotImplementedError


def unanswered(ctx: CheckContext) -> Verdict | None:
    """The zero verdict for an absent or blank answer, or ``None`` when the agent answered.

    Rule criteria that do not read the text (latency, token budget) still score an empty
    answer 0: an agent that said nothing did not stay within its budget, it skipped the task.
    """
    answer = ctx.answer
    if answer is None:
        return Verdict(0.0, "the agent gave no answer")
    if not answer.strip():
        return Verdict(0.0, "the agent gave an empty answer")
    return None


def observed_actions(ctx: CheckContext) -> tuple[Action, ...]:
    """The calls the agent made; uninstrumented actions (``None``) cannot be checked."""
    actions = ctx.outcome.actions
    if actions is None:
        raise CheckError(
            "actions were not instrumented (actions=None); return the calls the "
            "agent made, or [] for none"
        )
    return actions
