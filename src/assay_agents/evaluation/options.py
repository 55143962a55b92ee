"""One run's options, typed once: explicit arguments, then the suite's settings, then defaults."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict, Unpack

from assay_agents.agent import ModelSpec, parse_models
from assay_agents.compare import DEFAULT_DRIFT_TOLERANCE
from assay_agents.errors import ConfigurationError, SpecError
from assay_agents.evaluation.executor import LocalExecutor
from assay_agents.evaluation.ports import OBSERVED_EVENTS, Executor, RunObserver
from assay_agents.evaluation.release import ReleaseAsked
from assay_agents.judging import Judge
from assay_agents.limits import BOUNDS, bounded
from assay_agents.results.release import Release
from assay_agents.runner.diagnosing import DEFAULT_JUDGE_LIMIT
from assay_agents.runner.engine import DEFAULT_CONCURRENCY
from assay_agents.runner.pacing import DEFAULT_RATE_LIMIT_RETRIES, Adaptive
from assay_agents.spec import JSON, Suite, portable
from assay_agents.spec.fixtures import redact_patterns
from assay_agents.spec.gate import Gate

#: A bound on samples per case: a plan that large is a typo, not an evaluation.
MAX_SAMPLES = int(BOUNDS["samples"].high)
#: How long a failing store is retried before the run stops as interrupted (seconds).
DEFAULT_STORE_RETRY = 60.0
#: A running run whose heartbeat is older than this may be taken over (seconds).
DEFAULT_LEASE_TIMEOUT = 60.0
#: How often a running run's owner says it is alive (seconds).
HEARTBEAT_INTERVAL = 5.0
#: The shortest lease timeout accepted: three heartbeats.
MIN_LEASE_TIMEOUT = 3 * HEARTBEAT_INTERVAL
#: Sets the heartbeat's interval in seconds, 1 to 60 (every process sharing a history the
#: same); the shortest lease timeout accepted is three of them.
HEARTBEAT_VARIABLE = "ASSAY_HEARTBEAT_INTERVAL"


class EvaluationArgs(TypedDict, total=False):
    """The keyword arguments :func:`assay.run` and :func:`assay.evaluate` accept."""

    metadata: Mapping[str, Any] | None
    samples: int | None
    concurrency: int | None
    model_concurrency: int | None
    sample_concurrency: int | None
    timeout: float | None
    models: Iterable[str | ModelSpec] | None
    baseline: str | None
    baseline_where: Mapping[str, str] | None
    resume: str | None
    tolerance: float
    drift_tolerance: float
    run_id: str | None
    judge: Any
    votes: int | None
    gate: Gate | None
    fail_on_regression: bool
    allow_unchecked: bool
    store_retry: float | None
    lease_timeout: float | None
    judge_limit: int | None
    refine_gate: Callable[..., Any] | None
    observers: Iterable[RunObserver] | None
    executor: Executor | None
    record: str | Path | None
    trace: bool | None
    record_redact: Sequence[str] | None
    cache: bool | None
    concurrency_floor: int | None
    concurrency_ceiling: int | None
    rate_limit_retries: int | None
    around_sample: Callable[..., Any] | None
    on_result: Callable[..., Any] | None
    release: Mapping[str, Any] | Release | None
    cache_model_calls: bool | None


@dataclass(frozen=True, kw_only=True)
class EvaluationOptions:
    """Everything one run is asked to do beyond the suite itself, resolved once."""

    metadata: dict[str, JSON] = field(default_factory=dict)
    samples: int = 1
    samples_given: bool = False
    concurrency: int = DEFAULT_CONCURRENCY
    model_concurrency: int | None = None
    sample_concurrency: int | None = None
    timeout: float | None = None
    models: tuple[ModelSpec, ...] = ()
    baseline: str | None = None
    #: Run metadata the automatic baseline must match, as ``(KEY, VALUE)`` pairs.
    baseline_where: tuple[tuple[str, str], ...] = ()
    resume: str | None = None
    tolerance: float = 0.0
    drift_tolerance: float = DEFAULT_DRIFT_TOLERANCE
    run_id: str | None = None
    judge: Judge | None = None
    votes: int = 1
    links: dict[str, JSON] = field(default_factory=dict)
    #: Thresholds the verdict applies (None: any failed or errored sample fails the run).
    gate: Gate | None = None
    #: Whether signal regressions against the baseline fail the verdict.
    fail_on_regression: bool = False
    #: Whether a run in which no sample was evaluated may pass (by default it fails).
    allow_unchecked: bool = False
    store_retry: float = DEFAULT_STORE_RETRY
    lease_timeout: float = DEFAULT_LEASE_TIMEOUT
    heartbeat_interval: float = HEARTBEAT_INTERVAL
    #: Seconds between batched writes of landed samples.
    flush_interval: float = 0.5
    #: Judge calls that refine recommendations, at most, per run.
    judge_limit: int = DEFAULT_JUDGE_LIMIT
    #: Asked before each refinement call, ``gate(case_id, model, fault) -> bool``.
    refine_gate: Callable[..., Any] | None = None
    #: Told what the run does, beside the progress display (see :class:`RunObserver`).
    observers: tuple[RunObserver, ...] = ()
    #: Where the samples execute (this process by default; see :class:`Executor`).
    executor: Executor = field(default_factory=LocalExecutor)
    #: A folder each case's HTTP calls are recorded into as replay fixtures (None: none).
    record: Path | None = None
    #: Whether the run is traced (None: when the process already traces; see
    #: :mod:`assay_agents.evaluation.tracing`).
    trace: bool | None = None
    #: Regular expressions a recording hides too, beside the shapes and the secret names.
    record_redact: tuple[str, ...] = ()
    #: Whether judge calls are answered from, and kept in, the store's cache.
    cache: bool = False
    #: How each model's concurrency adapts to rate limits: floor, ceiling, retries per sample.
    adaptive: Adaptive = field(default_factory=Adaptive)
    #: The caller's context manager around each sample (see :mod:`assay_agents.runner.wrapping`).
    around_sample: Callable[..., Any] | None = None
    #: Told of each sample once it is stored (see :mod:`assay_agents.evaluation.callbacks`).
    on_result: Callable[..., Any] | None = None
    #: The release the run scores, as asked (see :mod:`assay_agents.evaluation.release`).
    release: ReleaseAsked = field(default_factory=ReleaseAsked)
    #: Whether the built-in chat agents' model calls are answered from, and kept in, the cache.
    cache_model_calls: bool = False

    @classmethod
    def build(cls, suite: Suite, **args: Unpack[EvaluationArgs]) -> EvaluationOptions:
        """Apply the precedence (argument, then suite setting, then default) and validate."""
        return _resolve(suite, **args)


def _resolve(
    suite: Suite,
    *,
    metadata: Mapping[str, Any] | None = None,
    samples: int | None = None,
    concurrency: int | None = None,
    model_concurrency: int | None = None,
    sample_concurrency: int | None = None,
    timeout: float | None = None,
    models: Iterable[str | ModelSpec] | None = None,
    baseline: str | None = None,
    baseline_where: Mapping[str, str] | None = None,
    resume: str | None = None,
    tolerance: float = 0.0,
    drift_tolerance: float = DEFAULT_DRIFT_TOLERANCE,
    run_id: str | None = None,
    judge: Any = None,
    votes: int | None = None,
    gate: Gate | None = None,
    fail_on_regression: bool = False,
    allow_unchecked: bool = False,
    store_retry: float | None = None,
    lease_timeout: float | None = None,
    judge_limit: int | None = None,
    refine_gate: Callable[..., Any] | None = None,
    observers: Iterable[RunObserver] | None = None,
    executor: Executor | None = None,
    record: str | Path | None = None,
    trace: bool | None = None,
    record_redact: Sequence[str] | None = None,
    cache: bool | None = None,
    concurrency_floor: int | None = None,
    concurrency_ceiling: int | None = None,
    rate_limit_retries: int | None = None,
    around_sample: Callable[..., Any] | None = None,
    on_result: Callable[..., Any] | None = None,
    release: Mapping[str, Any] | Release | None = None,
    cache_model_calls: bool | None = None,
) -> EvaluationOptions:
    converted = portable(dict(metadata or {}), "metadata")
    assert isinstance(converted, dict)
    heartbeat = _heartbeat_interval()
    resolved = EvaluationOptions(
        record=None if record is None else Path(record),
        record_redact=redact_patterns(record_redact, "record_redact"),
        metadata=converted,
        samples=_positive(samples if samples is not None else suite.samples, "samples"),
        samples_given=samples is not None,
        concurrency=_positive(
            concurrency or suite.concurrency or DEFAULT_CONCURRENCY, "concurrency"
        ),
        model_concurrency=_optional_positive(model_concurrency, "model_concurrency"),
        sample_concurrency=_optional_positive(
            sample_concurrency if sample_concurrency is not None else suite.sample_concurrency,
            "sample_concurrency",
        ),
        timeout=_seconds(timeout, "timeout"),
        models=_models(parse_models(models)),
        baseline=baseline,
        baseline_where=_where(baseline_where),
        resume=resume,
        tolerance=_tolerance(tolerance),
        drift_tolerance=_tolerance(drift_tolerance, "drift_tolerance"),
        run_id=run_id,
        judge=_judge(judge if judge is not None else suite.judge, votes),
        votes=_positive(votes if votes is not None else suite.votes or 1, "votes"),
        gate=_gate(gate if gate is not None else suite.gate),
        fail_on_regression=bool(fail_on_regression),
        allow_unchecked=bool(allow_unchecked),
        store_retry=_seconds(store_retry, "store_retry") or DEFAULT_STORE_RETRY,
        heartbeat_interval=heartbeat,
        lease_timeout=_lease_timeout(lease_timeout, heartbeat),
        judge_limit=DEFAULT_JUDGE_LIMIT
        if judge_limit is None
        else _whole(judge_limit, "judge_limit"),
        refine_gate=_gate_callable(refine_gate),
        observers=_observers(observers),
        executor=_executor(executor),
        trace=_trace(trace),
        cache=_flag(cache, "cache"),
        adaptive=_adaptive(
            suite,
            concurrency_floor=concurrency_floor,
            concurrency_ceiling=concurrency_ceiling,
            rate_limit_retries=rate_limit_retries,
        ),
        around_sample=_callable(
            around_sample if around_sample is not None else suite.around_sample, "around_sample"
        ),
        on_result=_callable(on_result if on_result is not None else suite.on_result, "on_result"),
        release=ReleaseAsked.of(release),
        cache_model_calls=_flag(cache_model_calls, "cache_model_calls"),
    )
    _check_recording(resolved, suite)
    return resolved


def _check_recording(options: EvaluationOptions, suite: Suite) -> None:
    """Refuse, before any agent runs, a recording that could not be written as asked.

    One recording per case (several samples or models would each write the same file),
    into a folder, never over a fixture file a person wrote or edited.
    """
    if options.record is None:
        return
    from assay_agents.replay.recording import check_replaceable
    from assay_agents.spec.fixtures import fixture_file

    if options.samples > 1:
        raise SpecError(
            f"records one sample per case, not {options.samples}; record with samples=1",
            field="record",
        )
    if len(options.models) > 1:
        raise SpecError(
            "records one model's calls per case; record each model into its own folder",
            field="record",
        )
    if options.record.exists() and not options.record.is_dir():
        raise ConfigurationError(f"{options.record}: is a file; --record needs a folder")
    claimed: dict[str, str] = {}
    for case in suite.cases:
        if case.api is None:
            target = fixture_file(options.record, case.id)
            # Case-insensitive file systems hold one file for names differing only by case.
            other = claimed.setdefault(str(target).casefold(), case.id)
            if other != case.id:
                raise SpecError(
                    f"cases {other!r} and {case.id!r} would both record into {target.name}; "
                    "give one of them another id",
                    field="record",
                )
            check_replaceable(target)


def _adaptive(suite: Suite, **given: int | None) -> Adaptive:
    """Floor, ceiling and retries: the argument, else the suite's setting, else the default."""
    chosen = {
        name: value if value is not None else getattr(suite, name, None)
        for name, value in given.items()
    }
    floor = _optional_positive(chosen["concurrency_floor"], "concurrency_floor")
    ceiling = _optional_positive(chosen["concurrency_ceiling"], "concurrency_ceiling")
    retries = chosen["rate_limit_retries"]
    if retries is not None:
        retries = _whole(retries, "rate_limit_retries")
    if floor is not None and ceiling is not None and floor > ceiling:
        raise SpecError(
            f"the floor {floor} is above the ceiling {ceiling} (concurrency_ceiling)",
            field="concurrency_floor",
        )
    return Adaptive(
        floor=floor or 1,
        ceiling=ceiling,
        retries=DEFAULT_RATE_LIMIT_RETRIES if retries is None else retries,
    )


def _positive(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise SpecError(f"{value!r} is not a positive whole number", field=name)
    return bounded(name, value)


def _models(models: tuple[ModelSpec, ...]) -> tuple[ModelSpec, ...]:
    most = BOUNDS["models"].high
    if len(models) > most:
        raise SpecError(f"names {len(models):,} models, more than {most:,}", field="models")
    return models


def _where(value: Any) -> tuple[tuple[str, str], ...]:
    """``{"branch": "main"}``: metadata keys and the text their values must be."""
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        raise SpecError(
            f"{value!r} is not a mapping of metadata keys to values", field="baseline_where"
        )
    for key, text in value.items():
        if not isinstance(key, str) or not key or not isinstance(text, str):
            raise SpecError(
                f"{key!r}: {text!r} is not a metadata key and a text value", field="baseline_where"
            )
    return tuple(value.items())


def _whole(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SpecError(f"{value!r} is not a whole number (0 or more)", field=name)
    return bounded(name, value)


def _callable(value: Any, name: str) -> Callable[..., Any] | None:
    if value is not None and not callable(value):
        raise ConfigurationError(f"{name} {value!r} is not callable")
    return value  # type: ignore[no-any-return]


def _gate_callable(value: Any) -> Callable[..., Any] | None:
    if value is not None and not callable(value):
        raise ConfigurationError(f"refine_gate {value!r} is not callable")
    return value  # type: ignore[no-any-return]


def _executor(value: Any) -> Executor:
    if value is None:
        return LocalExecutor()
    if not callable(getattr(value, "execute", None)):
        raise ConfigurationError(
            f"{value!r} is not an executor: an executor has a name and "
            "async execute(work); see assay_agents.evaluation.Executor"
        )
    return value  # type: ignore[no-any-return]


def _observers(value: Any) -> tuple[RunObserver, ...]:
    if value is None:
        return ()
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise ConfigurationError(f"observers {value!r} is not a list of observers")
    found = tuple(value)
    for observer in found:
        if not any(callable(getattr(observer, event, None)) for event in OBSERVED_EVENTS):
            raise ConfigurationError(
                f"{observer!r} is not a run observer: it has none of {', '.join(OBSERVED_EVENTS)}"
            )
    return found


def _optional_positive(value: Any, name: str) -> int | None:
    return None if value is None else _positive(value, name)


def _seconds(value: Any, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not (0 < value < math.inf):
        raise SpecError(f"{value!r} is not a positive, finite number of seconds", field=name)
    return float(bounded(name, value))


def _lease_timeout(value: Any, heartbeat: float = HEARTBEAT_INTERVAL) -> float:
    seconds = _seconds(value, "lease_timeout") or DEFAULT_LEASE_TIMEOUT
    if seconds < 3 * heartbeat:
        # A live owner between two heartbeats (or one refresh slowed by a busy store) would
        # look dead, and its run would be executed twice.
        raise ConfigurationError(
            f"--lease-timeout (lease_timeout) {seconds:g} s is shorter than three heartbeats "
            f"of a live owner ({heartbeat:g} s apart); give {3 * heartbeat:g} s or more"
        )
    return seconds


def _heartbeat_interval() -> float:
    """The heartbeat's interval: :data:`HEARTBEAT_VARIABLE` when set, else the default."""
    configured = os.environ.get(HEARTBEAT_VARIABLE, "").strip()
    if not configured:
        return HEARTBEAT_INTERVAL
    try:
        seconds = float(configured)
    except ValueError:
        seconds = math.nan
    if not 1 <= seconds <= 60:  # NaN included
        # The value itself is not repeated: an environment is not the place to echo from.
        raise ConfigurationError(f"{HEARTBEAT_VARIABLE} must be a number of seconds from 1 to 60")
    return seconds


def _judge(value: Any, votes: int | None = None) -> Judge | None:
    if value is None:
        if votes is not None:
            raise ConfigurationError(
                "votes were asked for but there is no judge: give the "
                "suite a judge= or run with --judge"
            )
        return None
    label = getattr(value, "label", None)
    if not isinstance(label, str) or not label or not callable(getattr(value, "complete", None)):
        raise ConfigurationError(
            f"{value!r} is not a judge: a judge has a label and "
            "complete(instructions, prompt); see assay_agents.judges"
        )
    return value  # type: ignore[no-any-return]


def _gate(value: Any) -> Gate | None:
    if value is not None and not isinstance(value, Gate):
        raise ConfigurationError(f"{value!r} is not an assay.Gate")
    return value


def _tolerance(value: Any, name: str = "tolerance") -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise SpecError(f"{value!r} is not a tolerance in [0, 1]", field=name)
    return float(value)


def _flag(value: Any, name: str) -> bool:
    if value is not None and not isinstance(value, bool):
        raise ConfigurationError(f"{name} {value!r} is not True, False or None")
    return bool(value)


def _trace(value: Any) -> bool | None:
    if value is not None and not isinstance(value, bool):
        raise ConfigurationError(f"trace {value!r} is not True, False or None")
    return value
