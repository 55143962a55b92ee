"""The replay examples as a user runs them: offline, through the real `assay` executable."""

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
