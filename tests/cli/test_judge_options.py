"""A judge option no call could use is refused before any agent runs: exit 2, naming where."""

import textwrap

CATALOG = """\
catalog: desk
name: Desk
products:
  - key: triage
    name: Triage
    sets:
      - key: smoke
        judge:
          kind: llm
          model: openai/gpt-4.1-mini
          temprature: 0
        scenarios:
          - key: refund
            prompt: Refund order 1042.
"""

SUITE = """\
import assay_agents as assay
from assay_agents import judges

suite = assay.Suite(
    "S",
    agent=lambda text, ctx: "hi",
    judge=judges.openai("gpt-4.1-mini", api_key="k", temprature=0),
)
suite.case("hello", expected="hi")
"""


def test_a_catalog_judge_with_an_unknown_field_exits_2_naming_file_and_field(cli, tmp_path):
    (tmp_path / "desk.yaml").write_text(CATALOG)
    done = cli("validate", "desk.yaml")
    assert done.exit_code == 2, done.output
    assert "desk.yaml: products[0].sets[0].judge.temprature: unknown field" in done.stderr


def test_a_project_judge_setting_it_does_not_know_exits_2(cli, tmp_path):
    (tmp_path / "assay.toml").write_text("judge_temperature = 0.2\n")
    done = cli("history")
    assert done.exit_code == 2, done.output
    assert "assay.toml: judge_temperature: unknown setting" in done.stderr


def test_a_python_suite_building_a_judge_with_an_unknown_keyword_exits_2(cli, tmp_path):
    (tmp_path / "suite.py").write_text(textwrap.dedent(SUITE))
    done = cli("validate", "suite.py")
    assert done.exit_code == 2, done.output
    assert "suite.py: could not be imported" in done.stderr
    assert "unexpected keyword argument(s) 'temprature' (did you mean 'temperature'?)" in (
        done.stderr
    )
