"""Reading a JSON report back: the artefact a CI job archives becomes a run again.

``assay-agents report RUN --format json`` (:meth:`Report.to_dict`) writes the run's snapshot at the
top level; :func:`read_report` turns that file back into a :class:`~assay_agents.results.Run` that
``compare`` pairs, ``report --baseline`` compares with and ``assay-agents import`` stores, with no
database behind it.

The file may come from anywhere, so the reader is strict where it matters and tolerant where
a newer Assay may have added something:

* at most :data:`MAX_REPORT_BYTES` bytes, nested at most :data:`MAX_DEPTH` levels, UTF-8
  JSON without duplicate keys, NaN or Infinity, and no value a database cannot hold (a NUL
  character, a lone surrogate, an integer beyond 64 bits);
* every field the run needs is present and of its type; keys this version does not know are
  ignored (as ``known_fields`` ignores them in stored JSON);
* its settings within the bounds a run is given (:mod:`assay_agents.limits`: at most 10,000
  samples per case and model, 100 models, ...), checked before anything is read from them;
* a completed run is whole and consistent: every planned sample (cases × models × samples)
  exactly once (counted, never built: the work follows the file's size, not its claims),
  each sample's status the one its error and metrics decide, and every figure
  of the summary (counts, rates, tokens, cost, latency, faults, categories, judge means, each
  model's tally) the one its samples give; a model verdict names a model the run compared
  and the judge it ran with. A figure edited by hand is refused, not read. What is stored
  is the summary recomputed from the samples, so a figure an older report lacks is filled
  in, never defaulted.

Every refusal is a :class:`~assay_agents.errors.SpecError` naming the file and the field.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assay_agents import limits, record
from assay_agents.compare import Comparison, ModelComparison, StoredComparison
from assay_agents.errors import SpecError
from assay_agents.limits import BOUNDS, problem, read_bounded
from assay_agents.record import (
    RecordError,
    RunRecord,
    read_run_record,
    read_summary,
    write_settings,
    write_summary,
)
from assay_agents.record import read as read_record
from assay_agents.record.upgrades import first_release_comparison
from assay_agents.results import (
    JudgeUsage,
    Run,
    RunSettings,
    RunStatus,
    RunSummary,
    SampleResult,
    SampleStatus,
    Tally,
    decide_status,
    summarise,
)
from assay_agents.results.baseline import RunOutcome
from assay_agents.results.storable import problem_with
from assay_agents.spec.json_data import JSON, SCHEMA_KEY, canonical_json, digest, strict_loads

__all__ = [
    "MAX_DEPTH",
    "MAX_REPORT_BYTES",
    "differing_field",
    "read_report",
    "run_from_report",
    "same_run",
]

#: The largest report file read (256 MiB): far beyond any real run, well within memory.
MAX_REPORT_BYTES = limits.MAX_REPORT_BYTES
#: The deepest the document may nest objects and arrays.
MAX_DEPTH = 100


JsonObject = Mapping[str, Any]


def read_report(path: str | Path) -> Run:
    """The run a JSON report file holds, checked; :class:`SpecError` naming file and field."""
    location = str(path)
    return run_from_report(_parse(_read(Path(path)), location), location)


def run_from_report(data: Any, location: str = "report") -> Run:
    """The run of a parsed JSON report (see the module's rules); ``location`` names it."""
    problem = _first_problem(data)
    if problem is not None:
        raise SpecError(problem[1], location=location, field=problem[0])
    if not isinstance(data, Mapping) or "samples" not in data or "suite" not in data:
        raise SpecError(
            "is not a JSON report of a run (assay-agents report RUN --format json writes one)",
            location=location,
        )
    try:
        _check_listed(data.get("settings"))
        report = _record(data)
        _check_settings(report.settings)
        run = _run(report, data)
        if run.status is RunStatus.COMPLETED:
            run = _check_whole(run, report, data.get("judge_usage"))
    except _Refused as refused:
        raise SpecError(refused.detail, location=location, field=refused.field) from None
    return run


def same_run(first: Run, second: Run) -> bool:
    """Whether two runs hold the same evidence (their database sequences aside)."""
    return _evidence(first) == _evidence(second)


def differing_field(first: Run, second: Run) -> str:
    """The first top-level field in which two runs' evidence differs (``""`` when none)."""
    one, two = _evidence_form(first), _evidence_form(second)
    return next(
        (key for key in one if canonical_json(one[key]) != canonical_json(two.get(key))), ""
    )


def _evidence(run: Run) -> str:
    return canonical_json(_evidence_form(run))


def _evidence_form(run: Run) -> dict[str, Any]:
    snapshot = record.snapshot(run)
    snapshot.pop("sequence")
    snapshot.pop("number", None)  # a place in one store's history, like the sequence
    # A store gives samples back in its own order; the evidence is the same in any order.
    snapshot["cases"].sort(key=lambda case: (case["position"], case["id"]))
    snapshot["samples"].sort(key=lambda s: (s["case_id"], s["model"] or "", s["sample"]))
    for key in ("started_at", "finished_at"):
        moment = getattr(run, key)
        snapshot[key] = None if moment is None else _utc(moment).isoformat()
    stored = run.comparison
    return {**snapshot, "comparison": None if stored is None else record.write_comparison(stored)}


class _Refused(Exception):
    def __init__(self, field: str, detail: str) -> None:
        super().__init__(f"{field}: {detail}")
        self.field = field
        self.detail = detail


# -- reading and parsing ------------------------------------------------------------------


def _read(path: Path) -> str:
    raw = read_bounded(path, MAX_REPORT_BYTES, "a report")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SpecError(f"is not UTF-8 text (byte {error.start})", location=str(path)) from None


def _parse(text: str, location: str) -> Any:
    try:
        data = strict_loads(text)
    except RecursionError:
        raise SpecError(f"is nested more than {MAX_DEPTH} levels deep", location=location) from None
    except ValueError as error:
        raise SpecError(f"is not valid JSON: {error}", location=location) from None
    return data


def _first_problem(data: Any) -> tuple[str | None, str] | None:
    """The first value too deep or unstorable, as (path, problem); walked without recursion."""
    pending: list[tuple[str, Any, int]] = [("", data, 0)]
    while pending:
        path, value, level = pending.pop()
        if isinstance(value, dict | list):
            if level >= MAX_DEPTH:
                return path or None, f"is nested more than {MAX_DEPTH} levels deep"
            items = value.items() if isinstance(value, dict) else enumerate(value)
            children = []
            for key, item in items:
                if isinstance(key, str) and (found := problem_with(key)) is not None:
                    return path or None, f"has a key that {found}"
                children.append((_join(path, key), item, level + 1))
            pending.extend(reversed(children))
        elif (found := problem_with(value)) is not None:
            return path or None, found
    return None


def _join(path: str, part: int | str) -> str:
    if isinstance(part, int):
        return f"{path}[{part}]"
    return f"{path}.{part}" if path else part


# -- building the run ---------------------------------------------------------------------


def _check_listed(data: object) -> None:
    """No more models than a run is given, counted before the settings are read.

    The plan is read from the settings, and a figure past a bound (``samples = 10**15``)
    is no run Assay could have made: the lists are counted before anything reads them.
    """
    if not isinstance(data, Mapping):
        return  # the record codec names what it is
    most = BOUNDS["models"].high
    for name in ("models", "model_specs"):
        listed = data.get(name)
        if isinstance(listed, list) and len(listed) > most:
            raise _Refused(f"settings.{name}", f"names {len(listed):,} models, more than {most:,}")


def _record(data: Mapping[str, Any]) -> RunRecord:
    """The report's top level read by the record codec; a field that does not read is named."""
    try:
        return read_run_record(data)
    except RecordError as error:
        raise _Refused(error.path, error.detail) from None


def _check_settings(settings: RunSettings) -> None:
    """The run's settings within the bounds a run is given (:mod:`assay_agents.limits`)."""
    given = write_settings(settings)
    for name in _BOUNDED_SETTINGS:
        value = given.get(name)
        if value is not None and (found := problem(name, value)) is not None:
            raise _Refused(f"settings.{name}", found)
    for index, label in enumerate(settings.models):
        if not label:
            raise _Refused(f"settings.models[{index}]", "is empty; a model has a label")


def _run(report: RunRecord, data: Mapping[str, Any]) -> Run:
    completed = report.status is RunStatus.COMPLETED
    return Run(
        id=report.id,
        suite=report.suite,
        agent=report.agent,
        fingerprint=report.fingerprint,
        status=report.status,
        started_at=_utc(report.started_at),
        suite_version=report.suite_version,
        finished_at=None if report.finished_at is None else _utc(report.finished_at),
        settings=report.settings,
        metadata=dict(report.metadata),
        links=dict(report.links),
        cases=report.cases,
        samples=report.samples,
        # A completed run's summary is recomputed from its samples (see _check_whole).
        summary=None if completed else _summary(report.summary),
        comparison=_comparison(data.get("comparison"), data.get("model_comparison")),
        baseline_id=report.baseline_id,
        error=report.error,
        verdict=report.verdict,
        judge_usage=report.judge_usage,
        outcome=report.outcome,
        baseline_choice=report.baseline,
        traces=report.traces,
    )


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _summary(data: JsonObject | None) -> RunSummary | None:
    if data is None:
        return None
    try:
        return read_summary(data)
    except RecordError as error:
        raise _Refused(error.path, error.detail) from None


def _comparison(baseline: object, models: object) -> StoredComparison | None:
    if isinstance(baseline, Mapping) and first_release_comparison(baseline):
        baseline = None  # cannot be rebuilt faithfully: read as none, as the store reads it
    try:
        # The report's sentences (summary, reasons, details, conclusion) are not read back.
        compared = read_record(Comparison | None, baseline, "comparison")
        intervals = read_record(ModelComparison | None, models, "model_comparison")
    except RecordError as error:
        raise _Refused(error.path, error.detail) from None
    return StoredComparison.of(compared, intervals)


# -- a completed run is whole and consistent ----------------------------------------------


def _check_fingerprints(run: Run) -> None:
    """Each case's fingerprint is its definition's, and the run's is its cases'.

    Fingerprints decide what a later run is compared with, so a report cannot claim one its
    definitions do not give. (Provenance is stored beside a definition, never hashed.)
    """
    for index, case in enumerate(run.cases):
        hashed = {key: value for key, value in case.definition.items() if key != "provenance"}
        if digest(hashed) != case.fingerprint:
            raise _Refused(f"cases[{index}].fingerprint", "does not match the case's definition")
    items = sorted((case.case_id, case.fingerprint) for case in run.cases)
    identity: JSON = {
        "suite": run.suite,
        "version": run.suite_version,
        "items": [[case_id, fingerprint] for case_id, fingerprint in items],
    }
    if digest(identity) != run.fingerprint:
        raise _Refused("fingerprint", "does not match the run's cases")


def _check_whole(run: Run, report: RunRecord, stated_usage: object) -> Run:
    """``run`` with its summary recomputed, once every stated figure agrees with it."""
    if report.summary is None:
        raise _Refused("summary", "missing; a completed run always has one")
    if run.finished_at is None:
        raise _Refused("finished_at", "missing; a completed run always has one")
    _check_plan(run)
    _check_fingerprints(run)
    for index, sample in enumerate(run.samples):
        decided = decide_status(sample.error, sample.metrics)
        if sample.status is not decided:
            raise _Refused(
                f"samples[{index}].status",
                f"is {sample.status.value!r}, but its error and metrics make it {decided.value!r}",
            )
    counted = summarise(run.samples, run.judge_usage)
    # The run's own judge usage is checked first: the summary's totals count it in.
    _check_verdict(run, counted)
    _check_judge_usage(run, stated_usage, counted)
    _check_figures(
        report.summary,
        write_summary(counted),
        "summary",
        older=_older_figures(run.samples, counted, run.judge_usage),
    )
    _check_outcome(run.outcome, counted, gated=_gated(run))
    return replace(run, summary=counted)


def _check_judge_usage(run: Run, stated_usage: object, counted: RunSummary) -> None:
    """The run's own judge usage is one call, the model verdict's, within plausible bounds.

    It cannot be recomputed (no sample holds it), so it is bounded instead: a run makes that
    call only with a judge and two or more models, and a verdict is never without it. The
    call may have failed (no verdict, its usage kept), so usage without a verdict is
    accepted only where the call could have been made.
    """
    usage = run.judge_usage
    stated = stated_usage if isinstance(stated_usage, Mapping) else {}
    judge = run.settings.judge
    callable_ = isinstance(judge, str) and len(counted.by_model) >= 2
    if usage is None:
        if run.verdict is not None:
            raise _Refused("judge_usage", "missing; a model verdict is a judge call, counted here")
        return
    spent = usage.calls or usage.attempts or usage.input_tokens or usage.output_tokens
    if not callable_ and (spent or usage.cost_usd):
        raise _Refused(
            "judge_usage",
            f"counts {usage.calls} judge call(s) costing {usage.cost_usd!r} USD, but the run "
            "has no verdict a judge could give (it needs a judge and two or more models)",
        )
    if not callable_:
        return
    if usage.calls != 1:
        raise _Refused("judge_usage.calls", f"is {usage.calls}; a model verdict is one call")
    for name, most in (
        ("attempts", limits.MAX_JUDGE_CALL_ATTEMPTS),
        ("input_tokens", limits.MAX_JUDGE_CALL_TOKENS),
        ("output_tokens", limits.MAX_JUDGE_CALL_TOKENS),
        ("cost_usd", limits.MAX_JUDGE_CALL_COST_USD),
    ):
        value = getattr(usage, name)
        if value is not None and value > most:
            raise _Refused(
                f"judge_usage.{name}", f"is {value!r}, more than one call takes ({most:,})"
            )
    if "attempts" in stated and usage.attempts < 1:
        raise _Refused("judge_usage.attempts", "is 0; a call is at least one attempt")
    if "by_kind" in stated and usage.by_kind != {"verdict": 1}:
        raise _Refused("judge_usage.by_kind", f"is {stated['by_kind']!r}; it is one verdict call")
    label = str(judge).split(" @ ")[0]
    if usage.model not in (None, label):
        raise _Refused("judge_usage.model", f"{usage.model!r} is not the run's judge ({label!r})")


def _gated(run: Run) -> bool:
    found = run.settings.gate  # checked with the settings
    return found is not None and found.thresholds is not None


def _check_outcome(outcome: RunOutcome | None, counted: RunSummary, *, gated: bool) -> None:
    """The stated outcome as far as the samples decide it; only a passing run is a baseline.

    Errored samples make a run ``errored``, whatever else. A run whose settings keep no gate
    thresholds cannot have passed with failed samples (or with none evaluated): such a
    ``passed`` is refused. A gated run's outcome is decided again from its gate where it is
    stored (``assay-agents import``). ``regressed`` depends on a baseline the file does not hold
    and is accepted as stated here (it never makes a run a baseline).
    """
    if outcome is None:
        return  # an older report: the store decides from the summary, as for its own runs
    errored = counted.errors > 0
    if errored != (outcome is RunOutcome.ERRORED):
        raise _Refused(
            "outcome",
            f"is {outcome.value!r}, but the run's samples give {counted.errors} errored sample(s)",
        )
    if outcome is RunOutcome.PASSED and not gated and (counted.failed or not counted.evaluated):
        raise _Refused(
            "outcome",
            f"is 'passed', but {counted.failed} failed and "
            f"{counted.evaluated} evaluated sample(s) make it no passing run",
        )


_BOUNDED_SETTINGS = (
    "samples",
    "concurrency",
    "model_concurrency",
    "sample_concurrency",
    "timeout",
    "votes",
)


def _check_plan(run: Run) -> None:
    """Every planned sample (cases × models × samples) exactly once.

    Work in proportion to the samples the file holds, never to the plan it claims: the
    plan is counted, not built.
    """
    cases = [case.case_id for case in run.cases]
    repeated = [case for case, count in Counter(cases).items() if count > 1]
    if repeated:
        raise _Refused("cases", f"names case {repeated[0]!r} more than once")
    models: list[str | None] = list(run.settings.models) or [None]
    per_case = run.settings.samples
    known_cases, known_models = set(cases), set(models)
    seen: set[tuple[str, str | None, int]] = set()
    for index, sample in enumerate(run.samples):
        if sample.key in seen:
            raise _Refused(f"samples[{index}]", f"repeats sample {_key(sample.key)}")
        case, model, number = sample.key
        if case not in known_cases or model not in known_models or number >= per_case:
            raise _Refused(
                f"samples[{index}]",
                f"sample {_key(sample.key)} is outside the "
                f"run's plan ({len(cases)} case(s) × {len(models)} model(s) × "
                f"{per_case} sample(s))",
            )
        seen.add(sample.key)
    planned = len(cases) * len(models) * per_case
    if len(seen) < planned:
        raise _Refused(
            "samples",
            f"{planned - len(seen):,} planned sample(s) missing, the "
            f"first {_key(_first_missing(seen, cases, models, per_case))}; a "
            "completed run holds every one",
        )


def _first_missing(
    seen: set[tuple[str, str | None, int]],
    cases: list[str],
    models: list[str | None],
    per_case: int,
) -> tuple[str, str | None, int]:
    """The first planned key not seen, in (case, model, index) order, without the plan."""
    held: dict[tuple[str, str | None], set[int]] = {}
    for case, model, number in seen:
        held.setdefault((case, model), set()).add(number)
    for case in sorted(cases):
        for model in sorted(models, key=lambda name: name or ""):
            numbers = held.get((case, model), set())
            if len(numbers) < per_case:
                # The first gap is at most len(numbers) away from 0.
                return case, model, next(n for n in range(per_case) if n not in numbers)
    raise AssertionError("a plan with fewer samples seen has a missing one")


def _key(key: tuple[str, str | None, int]) -> str:
    case, model, index = key
    return f"{case!r}" + ("" if model is None else f" on {model!r}") + f" #{index}"


#: Summary fields that map names the samples decide (faults, categories, criteria, models):
#: a name the samples do not give is a forgery. Elsewhere a key this version does not know is
#: a newer version's, and ignored.
_MAPPINGS = frozenset(
    {"faults", "failing_by_category", "checked_by_category", "integrity", "judge", "by_model"}
)
_MISSING = object()


def _check_figures(
    given: Any,
    actual: Any,
    path: str,
    *,
    mapping: bool = False,
    older: Mapping[str, Any] | None = None,
) -> None:
    """Refuse the first figure in ``given`` that the samples (``actual``) contradict.

    A figure ``given`` leaves out is not refused: the recomputed summary is what is stored.
    ``older`` holds, by path, the figures an older Assay computed another way from the same
    samples, which stay acceptable.
    """
    if isinstance(actual, dict):
        if not isinstance(given, dict):
            raise _Refused(path, f"is {given!r}, not an object")
        names = set(given) | set(actual) if mapping else set(actual) & set(given)
        for name in sorted(names - {SCHEMA_KEY}):
            if name not in actual:
                raise _Refused(
                    f"{path}.{name}", f"is {given[name]!r}, but the run's samples give None"
                )
            if name not in given:
                raise _Refused(
                    f"{path}.{name}", f"missing, but the run's samples give {actual[name]!r}"
                )
            _check_figures(
                given[name],
                actual[name],
                f"{path}.{name}",
                mapping=not mapping and name in _MAPPINGS,
                older=older,
            )
        return
    if (older or {}).get(path, _MISSING) == given:
        return
    if not _same_figure(given, actual):
        if given is not None and not isinstance(given, _kind(actual)):
            raise _Refused(path, f"is {given!r}, not {_kind_name(actual)}")
        raise _Refused(path, f"is {given!r}, but the run's samples give {actual!r}")


def _check_verdict(run: Run, counted: RunSummary) -> None:
    """A model verdict names a model the run compared, picked by the run's own judge."""
    verdict = run.verdict
    if verdict is None:
        return
    models = sorted(counted.by_model)
    if len(models) < 2 or verdict.model not in models:
        raise _Refused(
            "verdict.model",
            f"{verdict.model!r} is not a model the run compared "
            f"({', '.join(map(repr, models)) or 'it compared none'})",
        )
    judge = run.settings.judge
    if judge is None or judge.split(" @ ")[0] != verdict.judge:
        raise _Refused(
            "verdict.judge",
            f"{verdict.judge!r} is not the judge the run was graded with ({judge!r})",
        )


def _older_figures(
    samples: Sequence[SampleResult], counted: RunSummary, run_usage: JudgeUsage | None
) -> dict[str, Any]:
    """Figures, by path, that older versions computed another way from the same samples.

    Cases were once counted once per model; before samples with no usage at all were told
    apart (``no_usage``), they were counted as ``unpriced``; and the run's own judge calls
    (the model verdict) were once left out of the run's judge totals.
    """
    older: dict[str, Any] = {
        f"summary.{name}": value for name, value in _per_model_cases(samples).items()
    }
    if run_usage is not None:
        alone = summarise(samples)
        for name in _JUDGE_TOTALS:
            older[f"summary.{name}"] = getattr(alone, name)
    tallies: dict[str, Tally] = {"summary": counted}
    tallies.update({f"summary.by_model.{label}": t for label, t in counted.by_model.items()})
    for path, tally in tallies.items():
        older[f"{path}.unpriced"] = tally.unpriced + tally.no_usage
    return older


#: The run's figures that once left its own judge calls out.
_JUDGE_TOTALS = (
    "judge_calls",
    "judge_attempts",
    "judge_input_tokens",
    "judge_output_tokens",
    "judge_cost_usd",
    "judge_cost_estimated",
    "total_cost_usd",
)


def _per_model_cases(samples: Sequence[SampleResult]) -> dict[str, int]:
    """The case counts of older reports, which counted a case once per model."""
    outcomes: dict[tuple[str, str | None], bool] = {}
    for sample in samples:
        key = (sample.case_id, sample.model)
        outcomes[key] = outcomes.get(key, True) and sample.status is SampleStatus.PASSED
    return {"cases": len(outcomes), "cases_passed": sum(outcomes.values())}


def _kind(value: Any) -> type | tuple[type, ...]:
    if isinstance(value, bool):
        return bool
    if isinstance(value, int | float) or value is None:
        return (int, float)
    return dict if isinstance(value, dict) else object


def _kind_name(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    return "true or false" if isinstance(value, bool) else "a number"


def _same_figure(given: Any, actual: Any) -> bool:
    if given is None or actual is None:
        return given is actual
    if isinstance(actual, bool | str):
        return type(given) is type(actual) and given == actual
    if isinstance(given, bool) or not isinstance(given, int | float):
        return False
    return math.isclose(float(given), float(actual), rel_tol=1e-9, abs_tol=1e-12)
