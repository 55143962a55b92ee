"""Without a progress bar (CI, --quiet) each note is one line on standard error."""

import assay_agents as assay
from assay_agents import judges
from assay_agents.runner import QuietProgress
from assay_agents.testing import ScriptedServer, failure, verdict


def test_a_note_is_one_escaped_line_on_standard_error(capsys):
    progress = QuietProgress()
    progress.start(1, "Suite")
    progress.note("judge j: HTTP 429; retrying in 1.0 s\n(attempt 2 of 4)\x1b[2J")
    progress.stop()
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "judge j: HTTP 429; retrying in 1.0 s (attempt 2 of 4)\\x1b[2J\n"


def test_each_retry_wait_of_a_judge_is_one_log_line(store, capsys):
    with ScriptedServer([failure(429, retry_after=0), failure(503), verdict(1, "ok")]) as server:
        judge = judges.openai("judge-model", base_url=server.base_url, api_key="test")
        suite = assay.Suite("Waits", agent=lambda text, ctx: "Thirty days.", judge=judge)
        suite.case("q", expected="30 days", minimum_scores={"semantic_accuracy": 0.5})
        run = assay.run(suite, db=store, progress=False)
    assert run.samples[0].metric("semantic_accuracy").passed
    # A rate limit and an overload: each wait says what it waits for, and the attempt.
    waits = [line for line in capsys.readouterr().err.splitlines() if "waiting" in line]
    assert len(waits) == 2
    assert waits[0] == "waiting 0 s, rate limited (judge judge-model); HTTP 429, attempt 2 of 4"
    assert waits[1].startswith("waiting ") and ", overloaded (judge judge-model)" in waits[1]
    assert waits[1].endswith("; HTTP 503, attempt 3 of 4")
    assert run.samples[0].judge_usage.attempts == 3
