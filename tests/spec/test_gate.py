from dataclasses import dataclass, field

import pytest

import assay_agents as assay
from assay_agents.report.prose import gate_line, gate_lines
from assay_agents.spec.gate import Figure, GateFinding, Missing, Reading

MEASURED_NOTHING = "it measured nothing: the run had none of the figures its thresholds read"


@dataclass
class Criterion:
    mean: float | None


@dataclass
class Summary:
    check_pass_rate: float | None = 1.0
    failing_by_category: dict = field(default_factory=dict)
    judge: dict = field(default_factory=dict)
    pass_rate: float | None = 1.0
    checked_by_category: dict = field(default_factory=dict)


UNMEASURED_EFFECTS = "  side-effect failures: not measured — no side-effect checks"


def said(findings: tuple[GateFinding, ...]) -> tuple[str, ...]:
    return tuple(gate_line(finding) for finding in findings)


def test_any_side_effect_failure_fails_the_default_gate_whatever_the_pass_rate():
    verdict = assay.Gate().evaluate(Summary(0.99, {"side_effects": 1}))
    assert not verdict.passed
    assert said(verdict.violations) == (
        "1 sample(s) failed a side-effect assertion (at most 0 allowed)",
    )
    assert (
        assay.Gate(max_side_effect_failures=1).evaluate(Summary(0.99, {"side_effects": 1})).passed
    )


def test_minimum_deterministic_pass_rate():
    gate = assay.Gate(min_pass_rate=0.5)
    assert gate.evaluate(Summary(0.5)).passed  # inclusive
    low = gate.evaluate(Summary(0.25))
    assert said(low.violations) == ("deterministic pass rate 25% < 50%",)
    assert gate_lines(low) == [
        "gate: failed · deterministic pass rate 25% < 50%",
        UNMEASURED_EFFECTS,
    ]
    assert gate_lines(gate.evaluate(Summary(0.625))) == [
        "gate: passed · deterministic pass rate 63% ≥ 50%",
        UNMEASURED_EFFECTS,
    ]
    # Whole percentages would read "70% < 70%"; the figure keeps the decimals that tell it apart.
    assert said(assay.Gate(min_pass_rate=0.7).evaluate(Summary(0.6996)).violations) == (
        "deterministic pass rate 69.96% < 70%",
    )
    assert said(gate.evaluate(Summary(None, pass_rate=None)).violations) == (
        "deterministic pass rate: no sample was evaluated",
    )


def test_the_gate_returns_figures_and_the_report_words_them():
    result = assay.Gate(min_pass_rate=0.625, min_judge_score=0.6).evaluate(
        Summary(0.62496, judge={"tone": Criterion(None)})
    )
    assert result.findings == (
        GateFinding(
            figure=Figure.PASS_RATE,
            reading=Reading.VIOLATED,
            value=0.62496,
            limit=0.625,
            judged=True,
        ),
        GateFinding(
            figure=Figure.SIDE_EFFECTS,
            reading=Reading.NOT_MEASURED,
            limit=0,
            missing=Missing.NO_SIDE_EFFECT_CHECK,
        ),
        GateFinding(
            figure=Figure.JUDGE,
            reading=Reading.VIOLATED,
            limit=0.6,
            criterion="tone",
            missing=Missing.NO_SCORE,
        ),
    )
    # Two different figures never read the same: 62.5% < 62.5% would say nothing.
    assert gate_lines(result) == [
        "gate: failed · deterministic pass rate 62% < 62.5% "
        "(checks only: judge criteria are not in this figure)",
        "  judge: tone: no score is below the minimum 60%",
        UNMEASURED_EFFECTS,
    ]


def test_a_threshold_without_its_figure_is_not_measured_not_violated():
    checked = {"side_effects": 2}
    verdict = assay.Gate(min_pass_rate=0.9).evaluate(
        Summary(None, pass_rate=1.0, checked_by_category=checked)
    )
    assert verdict.passed and said(verdict.violations) == ()
    assert gate_lines(verdict) == [
        "gate: passed · side-effect failures 0 ≤ 0",
        "  deterministic pass rate: not measured (no sample had a deterministic check)",
    ]


def test_a_gate_that_measured_nothing_fails_naming_each_unmeasured_figure():
    verdict = assay.Gate(min_pass_rate=0.9).evaluate(Summary(None, pass_rate=1.0))
    assert not verdict.passed
    assert gate_lines(verdict) == [
        f"gate: failed · {MEASURED_NOTHING}",
        "  deterministic pass rate: not measured (no sample had a deterministic check)",
        UNMEASURED_EFFECTS,
    ]
    assert said(assay.Gate().evaluate(Summary(1.0)).violations) == (MEASURED_NOTHING,)
    assert assay.Gate().evaluate(Summary(1.0, checked_by_category={"side_effects": 1})).passed


def test_the_judge_threshold_is_optional_and_reported_apart():
    gate = assay.Gate(min_judge_score=0.6)
    verdict = gate.evaluate(
        Summary(1.0, judge={"tone": Criterion(0.5), "language_quality": Criterion(0.9)})
    )
    assert said(verdict.violations) == () and not verdict.passed
    assert said(verdict.judge_violations) == ("tone: mean 50% is below the minimum 60%",)
    assert gate_lines(verdict) == [
        "gate: failed · judge: tone: mean 50% is below the minimum 60%",
        "  judge language_quality mean 90% ≥ 60%",
        UNMEASURED_EFFECTS,
    ]
    assert said(gate.evaluate(Summary()).judge_violations) == (
        "no judge criterion was graded (is a judge set?)",
    )
    # Without min_judge_score the judge is no figure of the gate: this one measured nothing.
    assert not assay.Gate().evaluate(Summary(judge={"tone": Criterion(0.0)})).passed


def test_a_run_without_a_summary_fails_the_gate():
    @dataclass
    class Run:
        summary: None = None

    assert not assay.Gate().evaluate(Run()).passed


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"min_pass_rate": 1.5}, "gate.min_pass_rate"),
        ({"min_judge_score": -0.1}, "gate.min_judge_score"),
        ({"max_side_effect_failures": -1}, "gate.max_side_effect_failures"),
        ({"max_side_effect_failures": True}, "gate.max_side_effect_failures"),
        ({"min_pass": 0.5}, "unknown threshold 'min_pass'"),
    ],
)
def test_thresholds_are_validated(values, message):
    with pytest.raises(assay.SpecError, match=message):
        assay.Gate.from_mapping(values)


def test_overrides_keep_the_other_thresholds():
    gate = assay.Gate(min_pass_rate=0.9, max_side_effect_failures=2)
    assert gate.updated(min_pass_rate=0.5) == assay.Gate(
        min_pass_rate=0.5, max_side_effect_failures=2
    )
    with pytest.raises(assay.SpecError):
        assay.Suite("S", agent=lambda text, ctx: "", gate={"min_pass_rate": 1})
