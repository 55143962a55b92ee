"""File suites from the command line: every format, the selection, validate, schema, gates."""

import json
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

TRIP = REPO / "examples" / "trip" / "items"

SUPPORT = """\
suite: support_bot
groups:
  - key: orders
    name: Orders
    scenarios:
      - key: orders_1
        prompt: Where is my order?
        expect:
          tools: [lookup_order]
      - key: orders_2
        prompt: Cancel my subscription
        expect:
          not_contains: ["I cannot"]
        production_only: true
  - key: billing
    scenarios:
      - key: billing_1
        prompt: Send me my invoice
        expect:
          contains: [invoice]
"""

AGENT = """\
import assay_agents as assay


def agent(text, ctx):
    tools = [assay.Action("lookup_order")] if "order" in text else []
    return assay.Outcome(answer=f"Here is your invoice for: {text}", actions=tools)
"""


@pytest.fixture
def support(cli):
    (cli.cwd / "support_agent.py").write_text(AGENT)
    path = cli.cwd / "support.yml"
    path.write_text(SUPPORT)
    return path


def sample_ids(cli):
    return sorted(sample["case_id"] for sample in cli.json_report()["samples"])


def test_the_trip_items_fail_their_gate_listing_the_violations(cli):
    done = cli("run", TRIP, "--quiet")
    assert done.returncode == 1, done.stderr
    out = done.stdout
    assert "commands: expected [trip.set_travel_date], got" in out  # the table wraps the rest
    assert "forbid.commands: forbidden [trip.rebook]" in out
    assert "Failing: side effects 6 · content 0" in out
    assert "Flaky: trip.set_travel_date passed 2 of 4 samples" in out
    assert "gate: failed · 6 sample(s) failed a side-effect assertion (at most 0 allowed)" in out
    report = cli.json_report()
    assert report["summary"]["failing_by_category"]["side_effects"] == 6
    assert report["summary"]["check_pass_rate"] == 10 / 16
    reasons = {
        f"{m['name']}: {m['reason']}"
        for s in report["samples"]
        for m in s["metrics"]
        if not m["passed"]
    }
    assert "commands: expected [trip.set_travel_date], got [trip.set_name]" in reasons


def test_selection_by_case_and_gate_overrides(cli):
    chosen = cli("run", TRIP, "-q", "--case", "trip.set_name", "--case", "trip.confirm_rebooking")
    assert chosen.returncode == 0, chosen.stdout + chosen.stderr
    assert "gate: passed" in chosen.stdout
    assert sample_ids(cli) == ["trip.confirm_rebooking"] * 4 + ["trip.set_name"] * 4
    tolerant = cli("run", TRIP, "-q", "--gate", "max_side_effect_failures=6")
    assert tolerant.returncode == 0 and "gate: passed" in tolerant.stdout
    strict = cli(
        "run", TRIP, "-q", "--gate", "max_side_effect_failures=6", "--gate", "min_pass_rate=0.9"
    )
    assert strict.returncode == 1
    assert "gate: failed · deterministic pass rate 63% < 90%" in strict.stdout
    unknown = cli("run", TRIP, "--case", "trip.set_nmae")
    assert unknown.returncode == 2
    assert "no case 'trip.set_nmae' (did you mean 'trip.set_name'?)" in unknown.stderr
    bad_gate = cli("run", TRIP, "--gate", "pass=1")
    assert bad_gate.returncode == 2 and "KEY=VALUE" in bad_gate.stderr


def test_validate_reports_without_running_and_names_bad_fields(cli, tmp_path):
    done = cli("validate", TRIP)
    assert done.returncode == 0, done.stderr
    assert "suite 'trip' version 1 · 4 case(s) · samples 4 · agent TripAssistant" in done.stdout
    assert "gate pass rate ≥ 50%, side-effect failures ≤ 0" in done.stdout
    assert (
        "trip.confirm_rebooking: acts, commands, events, interaction_status, "
        "forbid.commands" in done.stdout
    )
    assert not (cli.cwd / ".assay").exists()  # nothing ran, nothing was stored
    broken = tmp_path / "trip"
    broken.mkdir()
    (broken / "suite.toml").write_text('channels = ["commands"]\n')
    (broken / "set_name.toml").write_text(
        textwrap.dedent("""\
        id = "trip.set_name"
        [input]
        text = "Set the name"
        [expect.forbidd]
        commands = ["trip.rebook"]
        """)
    )
    bad = cli("validate", broken)
    assert bad.returncode == 2
    assert bad.stderr.strip().endswith(
        "trip/set_name.toml: expect.forbidd: unknown field (did you mean 'forbid'?)"
    )


def test_an_expected_action_without_its_group_is_refused_naming_the_case(cli, tmp_path):
    items = tmp_path / "groupless"
    items.mkdir()
    (items / "lookup.toml").write_text(
        textwrap.dedent("""\
        id = "orders.lookup"
        [input]
        text = "Where is order 42?"
        [[expect.actions]]
        name = "lookup_order"
        arguments = { id = 42 }
        """)
    )
    for command in ("validate", "run"):
        refused = cli(command, items)
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert "groupless/lookup.toml" in refused.stderr
        assert "expect.actions[0].group" in refused.stderr
    assert not (cli.cwd / ".assay").exists()


def test_schema_prints_each_format(cli):
    done = cli("schema", "item")
    assert done.returncode == 0
    schema = json.loads(done.stdout)
    assert schema["title"].startswith("Assay item") and "expect" in schema["properties"]
    written = cli("schema", "catalog", "--output", "catalog.schema.json")
    assert written.returncode == 0 and (cli.cwd / "catalog.schema.json").is_file()
    unknown = cli("schema", "items")
    assert unknown.returncode == 2 and "did you mean 'item'" in unknown.stderr


def test_a_yaml_suite_with_an_agent_entry_point_groups_and_production_flags(cli, support):
    done = cli("run", support, "-q", "--agent", "support_agent:agent", "--group", "orders")
    assert done.returncode == 0, done.stdout + done.stderr
    assert sample_ids(cli) == ["orders_1"]  # production-only left out by default
    more = cli("run", support, "-q", "--agent", "support_agent:agent", "--include-production-only")
    assert more.returncode == 0, more.stdout
    assert sample_ids(cli) == ["billing_1", "orders_1", "orders_2"]
    missing = cli("run", support)
    assert missing.returncode == 2 and "names no agent to run" in missing.stderr


def test_a_catalog_runs_a_product_and_a_set(cli, support):
    (cli.cwd / "desk.yml").write_text(
        textwrap.dedent("""\
        catalog: desk
        owner_team: support
        products:
          - key: triage
            agent: support_agent:agent
            sets:
              - key: smoke
                scenarios:
                  - key: order
                    prompt: Where is my order?
                    expect: {tools: [lookup_order]}
              - key: invoices
                scenarios:
                  - key: invoice
                    prompt: My invoice please
                    expect: {contains: [invoice]}
        """)
    )
    done = cli("run", "desk.yml", "-q", "--product", "triage", "--set", "invoices")
    assert done.returncode == 0, done.stdout + done.stderr
    report = cli.json_report()
    assert report["suite"] == "desk/triage/invoices" and sample_ids(cli) == ["invoice"]
    unchosen = cli("run", "desk.yml")
    assert unchosen.returncode == 2 and "choose one with --set" in unchosen.stderr
    listed = cli("validate", "desk.yml")
    assert listed.returncode == 0 and "triage/smoke: 1 case(s)" in listed.stdout
    assert "digest" in listed.stdout


def test_pasted_scenarios_and_a_python_spec_with_selection(cli, support, support_spec):
    (cli.cwd / "pasted.txt").write_text(
        "# Orders\nWhere is my order? | tools: lookup_order\n"
        "`My invoice` please | contains: invoice\n"
    )
    done = cli("run", "pasted.txt", "-q", "--agent", "support_agent:agent")
    assert done.returncode == 0, done.stdout + done.stderr
    assert sample_ids(cli) == ["orders_1", "orders_2"]
    python = cli("run", support_spec, "-q", "--case", "returns")
    assert python.returncode == 0 and sample_ids(cli) == ["returns"]
    refused = cli("run", support_spec, "--agent", "support_agent:agent")
    assert refused.returncode == 2 and "defines its own agent" in refused.stderr


def test_a_gate_never_turns_errored_samples_into_a_pass(cli, specs):
    done = cli("run", specs / "gated_errors.py")
    assert done.returncode == 1
    assert "FAILED (errored samples" in done.stdout.splitlines()[-1]


def test_validate_refuses_a_case_selection_across_a_whole_catalog(cli):
    catalog = cli.cwd / "catalog.yaml"
    catalog.write_text(
        "catalog: desk\nproducts:\n  - key: triage\n    sets:\n      - key: smoke\n"
        "        scenarios:\n          - key: refund\n            prompt: Refund order 1042\n",
        encoding="utf-8",
    )
    assert cli("validate", catalog).returncode == 0
    selected = cli("validate", catalog, "--case", "nosuch")
    assert selected.returncode == 2 and "--product" in selected.stderr


EVIL = """\
import pathlib

pathlib.Path(__file__).with_name("imported").write_text("ran")


def agent(text, ctx):
    return "ok"


class Harness:
    def start(self, case, sample):
        return agent

    def observe(self, agent):
        return {}
"""


@pytest.fixture
def evil(tmp_path):
    """A module outside the suite's folder that leaves a file behind when imported."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "evil.py").write_text(EVIL)
    return folder


def suites_naming(cli, evil):
    items = cli.cwd / "items"
    items.mkdir(exist_ok=True)
    (items / "suite.toml").write_text('harness = "../elsewhere/evil.py:Harness"\n')
    (items / "a.toml").write_text('id = "a"\n[input]\ntext = "hi"\n')
    (cli.cwd / "suite.yml").write_text(
        "suite: s\nagent: elsewhere/evil.py:agent\ngroups:\n  - key: g\n    scenarios:\n"
        "      - {key: a, prompt: hi}\n"
    )
    (cli.cwd / "catalog.yml").write_text(
        "catalog: c\nproducts:\n  - key: p\n    agent: elsewhere/evil.py:agent\n    sets:\n"
        "      - key: s\n        scenarios:\n          - {key: a, prompt: hi}\n"
    )
    return [
        ("items",),
        ("suite.yml",),
        ("catalog.yml",),
        ("catalog.yml", "--product", "p"),
        ("suite.yml", "--agent", "elsewhere.evil:agent"),
        ("items", "--harness", "elsewhere.evil:Harness"),
    ]


def test_validate_imports_nothing_a_suite_names_unless_asked(cli, evil):
    marker = evil / "imported"
    for args in suites_naming(cli, evil):
        done = cli("validate", *args)
        assert done.returncode == 0, (args, done.stdout + done.stderr)
        assert not marker.exists(), args
        if args != ("catalog.yml",):  # a whole catalog lists its sets, not their agents
            assert "(not imported; --import checks it)" in done.stdout, args
    for args in suites_naming(cli, evil)[:3]:
        marker.unlink(missing_ok=True)
        checked = cli("validate", *args, "--import")
        assert checked.returncode == 0, (args, checked.stderr)
        assert marker.read_text() == "ran" and "not imported" not in checked.stdout


@pytest.mark.parametrize("args", [("suite.yml",), ("catalog.yml",), ("items",)])
def test_validate_import_refuses_a_name_that_does_not_resolve(cli, evil, args):
    suites_naming(cli, evil)
    (cli.cwd / "elsewhere" / "evil.py").write_text("x = 1\n")
    assert cli("validate", *args).returncode == 0
    done = cli("validate", *args, "--import")
    assert done.returncode == 2
    assert "has no attribute" in done.stderr
