"""A failure reason quotes a few items and says how many more; the evidence keeps them all.

Over a 9,001-event observation, a 9,001-call trace and a custom check's huge reason, every
stored reason stays short, the text report quotes a few events, and the sample still holds
every item.
"""

import assay_agents as assay
from assay_agents import checks
from assay_agents.checks.quoting import MAX_CHECK_REASON, QUOTED_ITEMS, quoted, quoted_items
from assay_agents.report import Report

EVENTS = [f"order.event_{number:05d}" for number in range(9_001)]


def test_quoting_shows_a_few_items_and_counts_the_rest():
    assert quoted(["a", "b"]) == "a, b"
    assert quoted([str(n) for n in range(9)]) == "0, 1, 2, 3, 4, … and 4 more"
    assert quoted_items([1, "x", {"k": 2}]) == '[1, x, {"k":2}]'
    [long] = quoted(["y" * 500]).split(", ")
    assert len(long) == 80 and long.endswith("…")


def test_a_9001_event_observation_stores_a_short_reason_and_keeps_every_event(store):
    def agent(text, ctx):
        return assay.Outcome(
            answer="Done.",
            observation={"events": list(EVENTS)},
            actions=[assay.Action("log", {"n": n}, group="ops") for n in range(9_001)],
        )

    suite = assay.Suite("Bounded", agent=agent)
    suite.case(
        "Ship the order",
        id="exact",
        observation={"events": ["order.created", "order.paid", "order.shipped"]},
        forbid={"events": ["order.event_00007", "order.event_08999"]},
        expected_actions=[{"group": "ops", "name": "log", "arguments": {"n": 0}}],
        checks=[
            checks.forbid_actions("log"),
            checks.custom(lambda answer, ctx: (0.0, "z" * 70_000), name="verbose"),
        ],
    )
    run = assay.run(suite, db=store, progress=False)
    stored = store.get_run(run.id)
    [sample] = stored.samples
    reasons = {metric.name: metric.reason for metric in sample.metrics}
    assert not any(metric.passed for metric in sample.metrics)
    for name, reason in reasons.items():
        assert len(reason) <= MAX_CHECK_REASON + 40, (name, len(reason))
    exact, forbidden = reasons["events"], reasons["forbid.events"]
    assert exact.startswith("expected [order.created, order.paid, order.shipped], got [")
    assert "… and 8,996 more] (9,001 items)" in exact
    assert "first difference at item 1: expected order.created, got order.event_00000" in exact
    assert "forbidden [order.event_00007, order.event_08999] appeared" in forbidden
    assert "(9,001 items)" in forbidden
    assert "… and 8,996 more" in reasons["forbid_actions"]
    assert "… and 8,996 more" in reasons["actions"] and len(reasons["actions"]) < 700
    assert reasons["verbose"].endswith("(69,000 more characters)")
    # The evidence is whole: every event and every call is in the sample.
    assert list(sample.observation.channels["events"]) == EVENTS
    assert len(sample.actions) == 9_001
    # The text report quotes a few events per reason, not the list five times over.
    assert Report(stored).to_text().count("order.event_") < 40


def test_a_short_list_is_quoted_whole():
    from assay_agents.checks.observation import exact, forbidden

    assert exact(["a", "b"], ["a", "c"]).reason == "expected [a, b], got [a, c]"
    assert exact(["1"], [1]).reason == 'expected ["1"], got [1]'
    many = [f"e{n}" for n in range(QUOTED_ITEMS + 2)]
    assert exact(many, many[:-1]).reason.endswith(
        f"first difference at item {len(many)}: expected e{len(many) - 1}, got nothing more"
    )
    assert forbidden(["x"], ["a", "x"]).reason == "forbidden [x] appeared; got [a, x]"
