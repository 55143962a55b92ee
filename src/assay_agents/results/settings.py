"""What a run was asked to do: its samples, models, concurrency, judge, votes and gate.

Stored with the run and read back by resumes, baselines and reports: the run is planned and
compared from these values, never from today's options.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from assay_agents.agent.model import ModelSpec
from assay_agents.errors import SpecError
from assay_agents.limits import problem
from assay_agents.results.release import Release
from assay_agents.spec.gate import Gate

#: Field metadata: a value that is ``None`` is left out of the stored form (a run without a
#: selection or a gate stores no such key, as runs always have).
OMIT_NONE = {"omit_none": True}


@dataclass(frozen=True, slots=True)
class Selection:
    """A run of part of a suite: ``cases`` of its ``of`` cases were selected."""

    cases: int
    of: int


@dataclass(frozen=True, slots=True)
class JudgeSpec:
    """How to build a run's judge again: its client, model, endpoint and sampling, not its key.

    ``client`` is ``openai`` (the official client, any OpenAI-compatible endpoint) or
    ``litellm``; the key is read from the environment (or given) when the judge is rebuilt.
    """

    client: str
    model: str
    label: str
    provider: str = "openai"
    base_url: str | None = None
    temperature: float = 0.0
    timeout: float | None = None
    judge_timeout: float | None = None


@dataclass(frozen=True, slots=True)
class RunGate:
    """The gate and comparison rules one run was decided with (stored as ``settings.gate``).

    The thresholds, the regression gate and the tolerances the comparison applied: with them
    a run read back (an archived report brought into another history) has its comparison and
    its outcome recomputed from its samples, never taken as written.
    """

    thresholds: Gate | None
    fail_on_regression: bool
    allow_unchecked: bool
    tolerance: float
    drift_tolerance: float

    def __post_init__(self) -> None:
        for name in ("tolerance", "drift_tolerance"):
            found = problem(name, getattr(self, name))
            if found is not None:
                raise SpecError(found, field=name)


@dataclass(frozen=True, slots=True)
class Adaptation:
    """The bounds a run's adaptive concurrency kept to (``ceiling`` None: the start)."""

    floor: int = 1
    ceiling: int | None = None
    retries: int = 6

    def __post_init__(self) -> None:
        for name, value in (
            ("concurrency_floor", self.floor),
            ("concurrency_ceiling", self.ceiling),
            ("rate_limit_retries", self.retries),
        ):
            found = None if value is None else problem(name, value)
            if found is not None:
                raise SpecError(found, field=name)


@dataclass(frozen=True, slots=True)
class RunSettings:
    """The settings a run was made with (see the module docstring).

    ``judge`` is the judge's identity (its label, with the host of its endpoint when it has
    one of its own); ``gate`` the gate the run was decided with (``None`` for a run stored
    before it was kept).
    """

    samples: int = 1
    concurrency: int | None = None
    model_concurrency: int | None = None
    sample_concurrency: int | None = None
    timeout: float | None = None
    models: tuple[str, ...] = ()
    #: The whole spec of each model: a resume must call the same provider a label named.
    model_specs: tuple[ModelSpec, ...] = ()
    judge: str | None = None
    #: The judge's spec, when it is one Assay can build again (not a function judge).
    judge_spec: JudgeSpec | None = field(default=None, metadata=OMIT_NONE)
    votes: int = 1
    executor: str = "local"
    selection: Selection | None = field(default=None, metadata=OMIT_NONE)
    gate: RunGate | None = field(default=None, metadata=OMIT_NONE)
    #: How each model's concurrency adapted to rate limits (None: a run from before it did).
    adaptive: Adaptation | None = field(default=None, metadata=OMIT_NONE)
    #: The release of the agent the run scored (see :class:`Release`).
    release: Release | None = field(default=None, metadata=OMIT_NONE)
