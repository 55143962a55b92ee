"""Judge metering and honest totals, held against the local judge server's own log.

Real HTTP to the scripted server with the real ``openai`` client (and LiteLLM): every answered
call reaches ``on_usage`` once, with its kind, and the run's stored totals are the sum of the
judge usage it stored, the verdict's call included.
"""

import asyncio
import json
import math
from collections import Counter

import pytest

import assay_agents as assay
from assay_agents import checks, judges
from assay_agents.agent.adapters.optional import import_litellm
from assay_agents.judging import BUILTIN, JudgeInput, JudgeUsage, assess
from assay_agents.report import Report
from assay_agents.testing import ScriptedServer, reply, verdict

DATA = JudgeInput("How long is the return window?", "Thirty days.", "30 days")

#: Tokens the server answers each kind of call with, so that each kind is told apart.
TOKENS = {"score": (120, 12), "refine": (340, 34), "verdict": (560, 56)}


def script(body):
    system = body["messages"][0]["content"]
    if "You help a team fix" in system:
        inp, out = TOKENS["refine"]
        text = {"recommendation": "Quote the policy.", "tool": None, "instruction": None}
        return reply(json.dumps(text), input_tokens=inp, output_tokens=out)
    if "You pick the model" in system:
        inp, out = TOKENS["verdict"]
        text = {"model": "openai/small", "rationale": "Both answer alike."}
        return reply(json.dumps(text), input_tokens=inp, output_tokens=out)
    inp, out = TOKENS["score"]
    return reply(
        json.dumps({"score": 0.9, "reason": "Same facts."}), input_tokens=inp, output_tokens=out
    )


def suite_of(judge):
    def agent(text, ctx):
        usage = assay.Usage(input_tokens=50, output_tokens=5, cost_usd=0.001)
        return assay.Outcome(answer="Two weeks, I think.", usage=usage)

    suite = assay.Suite(
        "Metered",
        agent=agent,
        judge=judge,
        checks=[checks.contains("30 days")],
        criteria=["semantic_accuracy"],
    )
    for number in range(2):
        suite.case(f"Return window {number}?", id=f"w{number}", expected="30 days")
    return suite


def test_every_judge_call_is_metered_counted_and_stored_once(store):
    metered = []
    with ScriptedServer(script) as server:
        judge = judges.openai(
            "gpt-4.1-mini", base_url=server.base_url, api_key="test", on_usage=metered.append
        )
        run = assay.run(
            suite_of(judge), db=store, progress=False, models=["openai/small", "openai/large"]
        )
        answered = list(server.answered)
        asked = len(server.requests)
    # The server's log: one answered completion per request, and each one was metered once.
    assert asked == len(answered) == len(metered)
    kinds = Counter(call.kind for call in metered)
    assert kinds == {"score": 4, "refine": 4, "verdict": 1}
    for call in metered:
        assert (call.input_tokens, call.output_tokens) == TOKENS[call.kind]
        assert call.model == "gpt-4.1-mini" and call.judge == "gpt-4.1-mini"
        assert call.cost_usd is not None and call.cost_usd > 0 and call.cost_estimated
        assert call.latency_ms >= 0
    served_in = sum(entry["input_tokens"] for entry in answered)
    served_out = sum(entry["output_tokens"] for entry in answered)
    assert sum(call.input_tokens for call in metered) == served_in
    assert sum(call.output_tokens for call in metered) == served_out

    # Read back: the totals are the sum of what is stored, the verdict's call included.
    stored = store.get_run(run.id)
    usages = [s.judge_usage for s in stored.samples if s.judge_usage is not None]
    usages.append(stored.judge_usage)
    assert stored.judge_usage.by_kind == {"verdict": 1}
    summary = stored.summary
    assert summary.judge_calls == sum(u.calls for u in usages) == asked
    assert summary.judge_input_tokens == sum(u.input_tokens for u in usages) == served_in
    assert summary.judge_output_tokens == sum(u.output_tokens for u in usages) == served_out
    assert math.isclose(summary.judge_cost_usd, sum(u.cost_usd for u in usages))
    assert math.isclose(summary.judge_cost_usd, sum(call.cost_usd for call in metered))
    assert summary.run_judge_usage == stored.judge_usage
    # The agent's cost stays its own; the total is both.
    assert math.isclose(summary.cost_usd, 4 * 0.001)
    assert math.isclose(summary.total_cost_usd, summary.cost_usd + summary.judge_cost_usd)
    # A model's tally holds its own samples' calls; the run's own call is the difference.
    per_model = sum(t.judge_calls for t in summary.by_model.values())
    assert per_model + stored.judge_usage.calls == summary.judge_calls

    # Each case's cost, plus the run's own judge call, is the run's total: nothing left out.
    cases = sum(entry["total_usd"] for entry in Report(stored).case_costs)
    assert math.isclose(cases + stored.judge_usage.cost_usd, summary.total_cost_usd)

    document = json.loads(Report(stored).to_json())
    assert document["summary"]["judge_calls"] == asked
    assert math.isclose(document["summary"]["total_cost_usd"], summary.total_cost_usd)
    assert "9 calls, 1 of them the run's own" in Report(stored).to_text()
    # The report reads back (assay-agents import) with the same totals, recomputed from its records.
    from assay_agents.report.archive import run_from_report

    assert run_from_report(document).summary.judge_calls == asked
    # A report an earlier version wrote left the verdict's call out of its totals: still read.
    older = json.loads(json.dumps(document))
    del older["summary"]["run_judge_usage"]
    older["summary"]["judge_calls"] -= 1
    assert run_from_report(older).summary.judge_calls == asked


def test_a_failing_on_usage_is_reported_once_and_changes_no_grade(capsys):
    def broken(call):
        raise RuntimeError("meter offline")

    with ScriptedServer([verdict(0.9, "Same facts.")] * 3) as server:
        judge = judges.openai("judge-model", base_url=server.base_url, api_key="test")
        metered = judges.openai(
            "judge-model", base_url=server.base_url, api_key="test", on_usage=broken
        )
        usage = JudgeUsage()
        plain = asyncio.run(assess(judge, BUILTIN["semantic_accuracy"], DATA, votes=1, usage=usage))
        graded = asyncio.run(
            assess(metered, BUILTIN["semantic_accuracy"], DATA, votes=2, usage=usage)
        )
    assert (graded.score, graded.passed, graded.error) == (plain.score, plain.passed, None)
    assert [vote.score for vote in graded.votes] == [0.9, 0.9]
    assert usage.calls == 3 and usage.input_tokens == 30
    warned = [line for line in capsys.readouterr().err.splitlines() if "on_usage" in line]
    assert len(warned) == 1
    assert "RuntimeError: meter offline" in warned[0] and "judge-model" in warned[0]


def test_a_failing_on_usage_in_a_run_warns_once_on_the_progress_display(store, capsys):
    def broken(call):
        raise ValueError("no")

    with ScriptedServer(script) as server:
        judge = judges.openai("gpt-4.1-mini", base_url=server.base_url, api_key="test")
        passing = assay.run(suite_of(judge), db=store, progress=False)
        judge = judges.openai(
            "gpt-4.1-mini", base_url=server.base_url, api_key="test", on_usage=broken
        )
        metered = assay.run(suite_of(judge), db=store, progress=False)
    assert [(s.status, s.fault, [m.score for m in s.metrics]) for s in metered.samples] == [
        (s.status, s.fault, [m.score for m in s.metrics]) for s in passing.samples
    ]
    assert capsys.readouterr().err.count("on_usage raised ValueError") == 1


@pytest.mark.xdist_group("litellm")  # one worker imports LiteLLM
def test_the_litellm_judge_meters_its_calls_too():
    import_litellm()
    metered = []
    with ScriptedServer([verdict(0.9, "Same facts.")] * 2) as server:
        judge = judges.litellm(
            "openai/judge-model", api_base=server.base_url, api_key="test", on_usage=metered.append
        )
        usage = JudgeUsage()
        metric = asyncio.run(
            assess(judge, BUILTIN["semantic_accuracy"], DATA, votes=2, usage=usage)
        )
        answered = list(server.answered)
    assert metric.passed and len(metered) == len(answered) == 2
    assert [(c.kind, c.model, c.input_tokens, c.output_tokens) for c in metered] == [
        ("score", "openai/judge-model", e["input_tokens"], e["output_tokens"]) for e in answered
    ]


@pytest.mark.xdist_group("litellm")  # one worker imports LiteLLM
@pytest.mark.parametrize(
    ("factory", "name", "hint"),
    [
        (lambda: judges.openai("m", api_key="k", temprature=0.2), "temprature", "temperature"),
        (lambda: judges.openai("m", api_key="k", max_token=5), "max_token", "max_tokens"),
        (lambda: judges.openai("m", api_key="k", messages=[]), "messages", None),
        (lambda: judges.litellm("openai/m", api_bse="http://x"), "api_bse", "api_base"),
        (lambda: judges.litellm("openai/m", num_retries=3), "num_retries", None),
    ],
)
def test_an_unknown_keyword_is_refused_when_the_judge_is_built(factory, name, hint):
    with pytest.raises(TypeError) as refused:
        factory()
    message = str(refused.value)
    assert f"unexpected keyword argument(s) {name!r}" in message
    assert "on_usage" in message and "judge_timeout" in message  # the accepted ones are named
    if hint:
        assert f"did you mean {hint!r}" in message


@pytest.mark.xdist_group("litellm")  # one worker imports LiteLLM
def test_known_keywords_still_reach_the_endpoint():
    with ScriptedServer([verdict(1, "ok")]) as server:
        judge = judges.openai(
            "judge-model", base_url=server.base_url, api_key="test", max_tokens=64, seed=7
        )
        asyncio.run(assess(judge, BUILTIN["semantic_accuracy"], DATA, votes=1, usage=JudgeUsage()))
        [body] = server.requests
    assert (body["max_tokens"], body["seed"]) == (64, 7)
    assert judges.litellm("openai/m", api_base="http://x", max_tokens=5).extra["max_tokens"] == 5


def test_on_usage_must_be_a_function():
    with pytest.raises(TypeError, match="on_usage must be a function"):
        judges.openai("m", api_key="k", on_usage="log.txt")


def test_a_summary_stored_before_the_run_part_was_counted_reads_with_it():
    from assay_agents.record.summary import read_summary, write_summary
    from assay_agents.results import JudgeUsage as Counted
    from assay_agents.results import SampleResult, SampleStatus, summarise

    sample = SampleResult(
        "q",
        "openai/small",
        0,
        SampleStatus.PASSED,
        judge_usage=Counted(calls=2, attempts=2, input_tokens=20, output_tokens=4, cost_usd=0.002),
    )
    verdict_call = Counted(
        calls=1,
        attempts=1,
        input_tokens=50,
        output_tokens=9,
        cost_usd=0.001,
        by_kind={"verdict": 1},
    )
    older = {k: v for k, v in write_summary(summarise([sample])).items() if k != "run_judge_usage"}
    assert older["judge_calls"] == 2  # what an earlier version stored: the verdict left out
    for samples in (None, [sample]):
        read = read_summary(older, samples=samples, run_judge_usage=verdict_call)
        assert (read.judge_calls, read.judge_input_tokens, read.judge_output_tokens) == (3, 70, 13)
        assert math.isclose(read.judge_cost_usd, 0.003)
        assert read.run_judge_usage == verdict_call
    # A summary of this version is read as stored: never counted twice.
    current = write_summary(summarise([sample], verdict_call))
    assert read_summary(current, samples=[sample], run_judge_usage=verdict_call).judge_calls == 3
