"""The replay examples as a user runs them: offline, through the real `assay-agents` executable."""

from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
REGRESSED = {"AGENT_REVISION": "regressed"}


def test_api_replay_example_passes_then_records_the_mismatch(cli):
    spec = EXAMPLES / "api_replay_eval.py"
    first = cli("run", spec)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "2/2" in first.stdout
    report = cli.json_report()
    for sample in report["samples"]:
        assert sample["metadata"]["api_replay"]["passed"] is True
    quote = next(s for s in report["samples"] if s["case_id"] == "quote-77")
    response = quote["metadata"]["api_replay"]["expected"][0]["response"]
    assert response["source"] == "fixtures/quote_77.json"
    assert response["body_bytes"] == (EXAMPLES / "fixtures" / "quote_77.json").stat().st_size

    second = cli("run", spec, "--fail-on-regression", env=REGRESSED)
    assert second.returncode == 1
    assert "regression gate: failed" in second.stdout
    report = cli.json_report()
    assert report["baseline_id"] is not None  # same fixtures, same fingerprint
    by_case = {s["case_id"]: s for s in report["samples"]}
    quote = by_case["quote-77"]
    assert quote["status"] == "error" and quote["answer"] == "Order 77 arrives in 3 days."
    assert quote["metadata"]["api_replay"]["requests"][0]["differences"] == [
        'json $.order_id: expected "77" (string), got 77 (number)'
    ]
    status = by_case["status-42"]["metadata"]["api_replay"]["requests"][0]
    assert status["status"] == "mismatch"
    assert status["differences"] == ["query: missing id=42, not expected order=42"]
    regressions = {(c["case_id"], c["metric"]) for c in report["comparison"]["changes"]}
    assert ("quote-77", "(agent)") in regressions and ("status-42", "(agent)") in regressions

    markdown = cli("report", "--format", "markdown")
    assert markdown.returncode == 0 and "api_replay" in markdown.stdout


def test_context_bloat_example_fails_only_the_tool_result_budget(cli):
    spec = EXAMPLES / "context_bloat_eval.py"
    first = cli("run", spec)
    assert first.returncode == 0, first.stdout + first.stderr
    (sample,) = cli.json_report()["samples"]
    api_bytes = sample["metadata"]["api_response_bytes"]
    assert 450_000 <= api_bytes <= 550_000
    assert sample["metadata"]["tool_result_bytes"] <= 4_096
    assert sample["metadata"]["api_replay"]["requests"][0]["response_bytes"] == api_bytes

    second = cli("run", spec, "--fail-on-regression", env=REGRESSED)
    assert second.returncode == 1
    (sample,) = cli.json_report()["samples"]
    metrics = {metric["name"]: metric["passed"] for metric in sample["metrics"]}
    assert metrics == {"exact_match": True, "actions": True, "tool_result_bytes": False}
    assert sample["error"] is None and sample["metadata"]["api_replay"]["passed"] is True
    assert sample["metadata"]["tool_result_bytes"] == api_bytes
    assert "largest tool result" in second.stdout


def test_context_bloat_example_asks_a_real_model_only_when_told_to(cli):
    """The opt-in switch selects the provider path; a local scripted server plays the model."""
    from assay_agents.testing.server import ScriptedServer, reply, tool_calls

    spec = EXAMPLES / "context_bloat_eval.py"
    lookup = ("lookup_policy", {"product": "electronics", "topic": "returns"})
    script = [tool_calls(lookup), reply("Electronics can be returned within 45 days.")]
    with ScriptedServer(script) as server:
        env = {
            "RUN_CONTEXT_BLOAT_EVAL": "1",
            "OPENAI_MODEL": "gpt-4.1-mini",
            "OPENAI_BASE_URL": server.base_url,
            "OPENAI_API_KEY": "test",
        }
        done = cli("run", spec, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        asked = [request["model"] for request in server.requests]
    assert asked == ["gpt-4.1-mini", "gpt-4.1-mini"]
    report = cli.json_report()
    assert report["agent"] == "PolicySupportAgent (real model)"
    (sample,) = report["samples"]
    metrics = {metric["name"]: metric["passed"] for metric in sample["metrics"]}
    assert metrics == {"contains": True, "actions": True, "tool_result_bytes": True}
    assert sample["usage"]["input_tokens"] == 20 and sample["usage"]["output_tokens"] == 10
    assert sample["metadata"]["tool_result_bytes"] <= 4_096
    assert 450_000 <= sample["metadata"]["api_response_bytes"] <= 550_000
    assert sample["metadata"]["api_replay"]["passed"] is True

    missing = cli("run", spec, env={"RUN_CONTEXT_BLOAT_EVAL": "1", "OPENAI_MODEL": ""})
    assert missing.returncode == 2 and "needs OPENAI_MODEL" in missing.stderr
