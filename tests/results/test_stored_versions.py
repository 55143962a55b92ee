"""Stored JSON carries a schema version; readers accept what a newer version added."""

from assay_agents.compare import StoredComparison, compare_models
from assay_agents.record import read_comparison, read_summary, write_comparison, write_summary
from assay_agents.results import SampleResult, SampleStatus, summarise
from assay_agents.results.metric import scored
from assay_agents.spec.json_data import SCHEMA_KEY, SCHEMA_VERSION


def sample(case: str, model: str, passed: bool) -> SampleResult:
    metric = scored("contains", "check", "content", 1.0, 1.0 if passed else 0.0, "why")
    return SampleResult(
        case,
        model,
        0,
        SampleStatus.PASSED if passed else SampleStatus.FAILED,
        answer="a",
        metrics=(metric,),
    )


def test_a_summary_is_versioned_and_reads_back_with_keys_from_a_newer_version() -> None:
    summary = summarise([sample("a", "m1", True), sample("b", "m2", False)])
    stored = write_summary(summary)
    assert stored[SCHEMA_KEY] == SCHEMA_VERSION
    newer = {
        **stored,
        SCHEMA_KEY: SCHEMA_VERSION + 5,
        "a_future_figure": 3,
        "by_model": {
            label: {**tally, "another": [1]} for label, tally in stored["by_model"].items()
        },
    }
    assert read_summary(newer) == summary


def test_a_stored_comparison_is_versioned_and_tolerates_newer_keys() -> None:
    from datetime import UTC, datetime

    from assay_agents.results import Run, RunStatus

    samples = tuple(
        sample(f"c{i}", model, i % 2 == 0 or model == "m1")
        for i in range(6)
        for model in ("m1", "m2")
    )
    run = Run(
        id="r",
        suite="s",
        agent="a",
        fingerprint="f",
        status=RunStatus.COMPLETED,
        started_at=datetime.now(UTC),
        samples=samples,
    )
    models = compare_models(run)
    stored = write_comparison(StoredComparison(None, models))
    assert stored[SCHEMA_KEY] == SCHEMA_VERSION
    back = read_comparison({**stored, "something_new": {"x": 1}})
    assert back is not None and back.models == models
