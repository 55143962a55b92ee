"""Four samples of an agent that alternates report two behaviours and a pass rate of a half."""

import json

import assay_agents as assay
from assay_agents import checks
from assay_agents.report import Report
from assay_agents.results import item_rates


def alternating_suite():
    def agent(text, ctx):
        booked = ctx.sample % 2 == 0
        return assay.Outcome(
            answer="Rebooked you on the 9:40." if booked else "I could not rebook you.",
            actions=[assay.Action("rebook", {"flight": "LX 318"})] if booked else [],
        )

    suite = assay.Suite("trip", agent=agent, samples=4)
    suite.case("Move me to the morning flight", id="rebook", checks=[checks.tools_called("rebook")])
    return suite


def test_alternating_samples_report_two_behaviours_and_a_half(store):
    run = assay.run(alternating_suite(), db=store, progress=False)
    (item,) = item_rates(run.samples)
    assert (item.behaviours, item.samples, item.rate) == (2, 4, 0.5)
    text = Report(run).to_text()
    assert "2 behaviours in 4 samples · checks pass 2/4 · 50%" in text
    assert "2 behaviours in 4 samples" in Report(run).to_markdown()
    document = json.loads(Report(run).to_json())
    assert document["behaviours"] == [
        {"case_id": "rebook", "model": None, "samples": 4, "behaviours": 2, "checks_passed": 2}
    ]
    # The report reads back as the same run: the figures beside it are not part of it.
    from assay_agents.report.archive import run_from_report

    assert run_from_report(document).samples == run.samples


def test_rephrasing_alone_is_not_another_behaviour(store):
    def agent(text, ctx):
        return f"Done ({ctx.sample})."

    suite = assay.Suite("trip", agent=agent, samples=3)
    suite.case("Say done", id="q", checks=[checks.contains("Done")])
    run = assay.run(suite, db=store, progress=False)
    assert item_rates(run.samples)[0].behaviours == 1
    [entry] = json.loads(Report(run).to_json())["behaviours"]
    assert (entry["behaviours"], entry["samples"]) == (1, 3)
