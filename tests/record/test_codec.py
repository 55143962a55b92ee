"""The one codec of stored records: typed reads, field paths, versions, unknown keys."""

from __future__ import annotations

import pytest

from assay_agents.agent import ModelSpec
from assay_agents.record import RecordError, read, read_summary, write, write_summary
from assay_agents.results import RunSettings, RunSummary, SampleResult, SampleStatus, summarise
from assay_agents.results.metric import scored
from assay_agents.results.settings import RunGate, Selection
from assay_agents.spec.gate import Gate
from assay_agents.spec.json_data import SCHEMA_KEY, SCHEMA_VERSION


def _sample(case: str, model: str | None, passed: bool) -> SampleResult:
    metric = scored("contains", "check", "content", 1.0, 1.0 if passed else 0.0, "why")
    status = SampleStatus.PASSED if passed else SampleStatus.FAILED
    return SampleResult(case, model, 0, status, answer="a", metrics=(metric,))


GATE = {
    "thresholds": None,
    "fail_on_regression": False,
    "allow_unchecked": False,
    "tolerance": 0.0,
    "drift_tolerance": 0.025,
}


def test_settings_round_trip_in_the_shape_stored_today() -> None:
    settings = RunSettings(
        samples=3,
        concurrency=8,
        timeout=2.5,
        models=("gpt-4o",),
        model_specs=(ModelSpec("openai", "gpt-4o", "gpt-4o"),),
        judge="judge-model @ localhost:1234",
        votes=3,
        selection=Selection(cases=2, of=5),
        gate=RunGate(
            thresholds=Gate(min_pass_rate=0.9),
            fail_on_regression=True,
            allow_unchecked=False,
            tolerance=0.0,
            drift_tolerance=0.025,
        ),
    )
    stored = write(settings)
    assert stored == {
        "samples": 3,
        "concurrency": 8,
        "model_concurrency": None,
        "sample_concurrency": None,
        "timeout": 2.5,
        "models": ["gpt-4o"],
        "model_specs": [{"provider": "openai", "model": "gpt-4o", "label": "gpt-4o"}],
        "judge": "judge-model @ localhost:1234",
        "votes": 3,
        "executor": "local",
        "selection": {"cases": 2, "of": 5},
        "gate": {
            "thresholds": {
                "min_pass_rate": 0.9,
                "max_side_effect_failures": 0,
                "min_judge_score": None,
            },
            "fail_on_regression": True,
            "allow_unchecked": False,
            "tolerance": 0.0,
            "drift_tolerance": 0.025,
        },
    }
    assert read(RunSettings, stored, "settings") == settings


def test_settings_leave_out_what_a_run_did_not_have() -> None:
    stored = write(RunSettings(samples=1))
    assert "selection" not in stored and "gate" not in stored


def test_the_first_release_settings_read_with_defaults_for_what_came_later() -> None:
    first = {
        "samples": 2,
        "concurrency": 8,
        "model_concurrency": None,
        "timeout": None,
        "models": [],
        "judge": None,
        "executor": "local",
    }
    settings = read(RunSettings, first, "settings")
    assert settings.samples == 2 and settings.votes == 1 and settings.model_specs == ()


def test_unknown_keys_are_ignored() -> None:
    settings = read(RunSettings, {"samples": 4, "from_a_newer_version": [1, 2]}, "settings")
    assert settings == RunSettings(samples=4)


@pytest.mark.parametrize(
    ("data", "path", "expected"),
    [
        ({"samples": "2"}, "settings.samples", "expected an integer"),
        ({"samples": True}, "settings.samples", "expected an integer"),
        ({"timeout": "soon"}, "settings.timeout", "expected a number"),
        ({"models": "gpt-4o"}, "settings.models", "expected a list"),
        ({"models": ["a", 3]}, "settings.models[1]", "expected text"),
        ({"model_specs": [{"provider": "openai"}]}, "settings.model_specs[0].model", "missing"),
        ({"selection": {"cases": 1, "of": None}}, "settings.selection.of", "expected an integer"),
        ({"gate": [1]}, "settings.gate", "expected an object"),
        ({"gate": {**GATE, "tolerance": 5}}, "settings.gate.tolerance", "outside"),
        (
            {"gate": {**GATE, "thresholds": {"min_pass_rate": 2}}},
            "settings.gate.thresholds.min_pass_rate",
            "",
        ),
        ({"gate": {**GATE, "allow_unchecked": "yes"}}, "settings.gate.allow_unchecked", "true"),
    ],
)
def test_a_damaged_field_is_named_by_its_path(data: object, path: str, expected: str) -> None:
    with pytest.raises(RecordError) as raised:
        read(RunSettings, data, "settings")
    assert raised.value.path == path
    assert expected in str(raised.value)
    assert str(raised.value).startswith(f"{path}: ")


def test_a_record_that_is_no_object_is_refused() -> None:
    with pytest.raises(RecordError, match=r"^settings: expected an object"):
        read(RunSettings, [1, 2], "settings")


def test_a_part_read_already_is_used_as_it_is_and_anything_else_is_still_read() -> None:
    metric = scored("contains", "check", "content", 1.0, 1.0, "why")
    stored = write(_sample("a", None, True))
    assert isinstance(stored, dict)
    sample = read(SampleResult, {**stored, "metrics": [metric]}, "")
    assert sample.metrics[0] is metric
    # Only a value of the record's own type passes: another record is refused.
    with pytest.raises(RecordError, match=r"^metrics\[0\]: expected an object"):
        read(SampleResult, {**stored, "metrics": [RunSettings()]}, "")


def test_a_summary_is_versioned_and_reads_back() -> None:
    summary = summarise([_sample("a", "m1", True), _sample("b", "m2", False)])
    stored = write_summary(summary)
    assert stored[SCHEMA_KEY] == SCHEMA_VERSION
    assert read_summary(stored) == summary


def test_a_summary_from_a_newer_version_reads_without_its_new_keys() -> None:
    summary = summarise([_sample("a", "m1", True), _sample("b", "m2", False)])
    stored = write_summary(summary)
    newer = {
        **stored,
        SCHEMA_KEY: SCHEMA_VERSION + 5,
        "a_future_figure": 3,
        "by_model": {
            label: {**tally, "another": [1]} for label, tally in stored["by_model"].items()
        },
    }
    assert read_summary(newer) == summary


def test_a_summary_missing_a_figure_is_an_error_naming_it() -> None:
    stored = write_summary(summarise([_sample("a", None, True)]))
    del stored["cases_passed"]
    with pytest.raises(RecordError, match=r"^summary\.cases_passed: missing"):
        read_summary(stored)


def test_a_summary_with_a_damaged_model_tally_names_the_model() -> None:
    stored = write_summary(summarise([_sample("a", "m1", True)]))
    stored["by_model"]["m1"]["passed"] = "one"
    with pytest.raises(RecordError) as raised:
        read_summary(stored)
    assert raised.value.path == "summary.by_model.m1.passed"


def test_a_summary_with_an_unreadable_version_is_refused() -> None:
    stored = write_summary(summarise([_sample("a", None, True)]))
    with pytest.raises(RecordError, match=r"^summary\.schema_version: expected an integer"):
        read_summary({**stored, SCHEMA_KEY: "two"})


def test_written_values_are_plain_json() -> None:
    summary = summarise([_sample("a", None, True)])
    assert isinstance(write_summary(summary)["judge"], dict)
    assert isinstance(read_summary(write_summary(summary)), RunSummary)
