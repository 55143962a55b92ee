import pytest

from assay_agents.judging import BUILTIN, JudgeVerdict, VerdictError, majority, parse_verdict
from assay_agents.judging.criteria import criterion

ZERO_ONE = BUILTIN["semantic_accuracy"]
ONE_FIVE = BUILTIN["tone"]


def test_a_strict_verdict_parses_and_normalises():
    assert parse_verdict('{"score": 0.8, "reason": "same facts"}', ZERO_ONE) == JudgeVerdict(
        0.8, 0.8, "same facts"
    )
    assert parse_verdict(' {"reason": "fine", "score": 4} ', ONE_FIVE) == JudgeVerdict(
        4.0, 0.75, "fine"
    )


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("The answer is good. Score: 1", "not JSON"),
        ('```json\n{"score": 1, "reason": "x"}\n```', "not JSON"),
        ('[1, "x"]', "not a JSON object"),
        ('{"score": 1}', "exactly score and reason"),
        ('{"score": 1, "reason": "x", "confidence": 0.9}', "exactly score and reason"),
        ('{"score": NaN, "reason": "x"}', "finite"),
        ('{"score": "1", "reason": "x"}', "finite"),
        ('{"score": true, "reason": "x"}', "finite"),
        ('{"score": 1.2, "reason": "x"}', "outside 0–1"),
        ('{"score": 1, "reason": "   "}', "reason is empty"),
        ('{"score": 1, "reason": 3}', "reason is empty"),
    ],
)
def test_anything_else_is_an_error_never_a_pass(reply, message):
    with pytest.raises(VerdictError, match=message):
        parse_verdict(reply, ZERO_ONE)


def test_scores_outside_a_one_to_five_scale_are_refused():
    with pytest.raises(VerdictError, match="outside 1–5"):
        parse_verdict('{"score": 0, "reason": "x"}', ONE_FIVE)


def verdict(raw):
    return JudgeVerdict(raw, (raw - 1) / 4, f"raw {raw}")


def test_majority_five_five_two_gives_five_with_a_spread_of_three():
    tally = majority([verdict(5), verdict(2), verdict(5)])
    assert tally.verdict.raw == 5 and tally.verdict.score == 1.0
    assert tally.spread == 3


def test_ties_go_to_the_lower_score():
    assert majority([verdict(4), verdict(2)]).verdict.raw == 2
    assert majority([verdict(5), verdict(5), verdict(3), verdict(3)]).verdict.raw == 3


def test_custom_criteria_are_validated():
    concise = criterion("concise", "Is it concise?", threshold=0.6, scale=(1, 5))
    assert concise.normalise(5) == 1.0 and concise.settings()["rubric"] == "Is it concise?"
    with pytest.raises(Exception, match="built-in"):
        criterion("tone", "mine")
    with pytest.raises(Exception, match="scale"):
        criterion("x", "y", scale=(5, 1))
    with pytest.raises(Exception, match="rubric"):
        criterion("x", " ")
