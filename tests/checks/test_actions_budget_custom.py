import asyncio

import pytest

import assay_agents as assay
from assay_agents import checks
from assay_agents.checks import CheckError

LOOKUP = {"group": "orders", "name": "lookup_order", "arguments": {"id": 42}}


def act(name="lookup_order", group="orders", **arguments):
    return assay.Action(name, arguments or {"id": 42}, group=group)


def test_exact_trace_scores_one(context):
    verdict = checks.actions().evaluate(context(expected_actions=[LOOKUP], actions=[act()]))
    assert verdict.score == 1.0


@pytest.mark.parametrize(
    ("observed", "score"),
    [
        ([act(id=41)], 0.0),  # wrong arguments
        ([act(id="42")], 0.0),  # typed: "42" is not 42
        ([act(group="shipping")], 0.0),  # wrong group
        ([], 0.0),  # missing call
        ([act(), act(name="refund")], 0.5),  # one extra call
        ([act(name="refund"), act()], 0.5),  # extra call first
    ],
)
def test_missing_wrong_and_extra_calls_lower_the_score(context, observed, score):
    verdict = checks.actions().evaluate(context(expected_actions=[LOOKUP], actions=observed))
    assert verdict.score == score
    assert "expected [orders.lookup_order" in verdict.reason


def test_order_matters(context):
    first = {"group": "g", "name": "a", "arguments": {}}
    second = {"group": "g", "name": "b", "arguments": {}}
    observed = [assay.Action("b", group="g"), assay.Action("a", group="g")]
    verdict = checks.actions().evaluate(context(expected_actions=[first, second], actions=observed))
    assert verdict.score == 0.5
    assert "another order" in verdict.reason


def test_uninstrumented_actions_are_an_error_and_empty_means_none_observed(context):
    with pytest.raises(CheckError, match="not instrumented"):
        checks.actions().evaluate(context(expected_actions=[LOOKUP], actions=None))
    assert checks.actions().evaluate(context(expected_actions=[], actions=[])).score == 1.0
    assert checks.actions().evaluate(context(expected_actions=[], actions=[act()])).score == 0.0


def test_a_narrative_claim_is_not_an_action(context):
    ctx = context("I looked up order 42 for you.", expected_actions=[LOOKUP], actions=[])
    assert checks.actions().evaluate(ctx).score == 0.0


def test_forbid_actions(context):
    check = checks.forbid_actions(["refund", "cancel"])
    assert check.evaluate(context(actions=[act()])).score == 1.0
    verdict = check.evaluate(context(actions=[act(), act(name="refund")]))
    assert verdict.score == 0.0 and "refund" in verdict.reason
    with pytest.raises(CheckError):
        check.evaluate(context(actions=None))


def test_budgets(context):
    usage = assay.Usage(input_tokens=900, output_tokens=200)
    assert checks.token_budget(200).evaluate(context("ok", usage=usage)).score == 1.0
    assert checks.token_budget(100).evaluate(context("ok", usage=usage)).score == 0.5
    with pytest.raises(CheckError, match="no output token usage"):
        checks.token_budget(10).evaluate(context("ok"))
    assert checks.max_latency_ms(100).evaluate(context("ok", duration_ms=100.0)).score == 1.0
    assert checks.max_latency_ms(100).evaluate(context("ok", duration_ms=100.5)).score < 1.0


@pytest.mark.parametrize("answer", ["", "  \n", None])
def test_an_empty_answer_scores_zero_on_every_rule_criterion(context, answer):
    within = {"usage": assay.Usage(output_tokens=1), "duration_ms": 1.0}
    rules = [
        checks.response_present(),
        checks.min_length(1),
        checks.max_latency_ms(1000),
        checks.token_budget(100),
        checks.contains("x"),
        checks.not_contains("x"),
    ]
    for rule in rules:
        verdict = rule.evaluate(context(answer, **within))
        assert verdict.score == 0.0, rule.name
        assert "answer" in verdict.reason


def test_tool_result_bytes_measures_the_largest_model_facing_result(context):
    small = assay.Action("a", result="ok")
    large = assay.Action("b", result={"text": "é" * 3000})
    assert large.result_bytes == len('{"text":""}') + 6000
    check = checks.tool_result_bytes(4096)
    verdict = check.evaluate(context(actions=[small, large]))
    assert verdict.score == 0.0 and "from b" in verdict.reason
    assert check.evaluate(context(actions=[small])).score == 1.0
    with pytest.raises(CheckError):
        check.evaluate(context(actions=None))


def test_custom_checks_accept_bool_score_and_reason(context):
    def concise(answer, ctx):
        return len(answer.split()) <= 3

    assert checks.custom(concise).name == "concise"
    assert checks.custom(concise).evaluate(context("one two")).score == 1.0
    scored = checks.custom(lambda a, c: 0.25, name="quarter").evaluate(context("x"))
    assert scored.score == 0.25
    reasoned = checks.custom(lambda a, c: (0.5, "half"), name="half").evaluate(context("x"))
    assert (reasoned.score, reasoned.reason) == (0.5, "half")


def test_custom_checks_reject_unreadable_results(context):
    for value in (1.5, "yes", float("nan"), (0.5, 3)):
        with pytest.raises(CheckError):
            checks.custom(lambda a, c, v=value: v, name="bad").evaluate(context("x"))


def test_async_custom_checks_are_awaited(context):
    async def later(answer, ctx):
        return True

    pending = checks.custom(later).evaluate(context("x"))
    assert asyncio.run(pending).score == 1.0


def test_lambda_needs_a_name():
    with pytest.raises(assay.SpecError, match="name="):
        checks.custom(lambda a, c: True)


def test_a_custom_check_can_ask_the_suites_judge():
    asked = []

    async def complete(instructions, prompt):
        asked.append((instructions, prompt))
        return "polite"

    async def tone(answer, ctx):
        verdict = await ctx.ask_judge("Say polite or rude.", answer)
        return float(verdict == "polite"), f"the judge said {verdict}"

    judge = assay.judges.function("house", complete)
    judged = assay.Suite("Tone", agent=lambda text, ctx: "Thank you!", judge=judge)
    judged.case("Say thanks", checks=[checks.custom(tone)])
    run = assay.run(judged, db=assay.MemoryRunStore(), progress=False)
    metric = run.samples[0].metric("tone")
    assert metric.passed and metric.reason == "the judge said polite"
    assert ("Say polite or rude.", "Thank you!") in asked


def test_asking_without_a_judge_is_a_check_error():
    async def tone(answer, ctx):
        return await ctx.ask_judge("Say polite or rude.", answer)

    suite = assay.Suite("Tone", agent=lambda text, ctx: "Thank you!")
    suite.case("Say thanks", checks=[checks.custom(tone)])
    run = assay.run(suite, db=assay.MemoryRunStore(), progress=False)
    assert "no judge to ask" in run.samples[0].metric("tone").error
