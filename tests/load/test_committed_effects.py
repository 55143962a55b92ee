"""Items may declare the effects a scenario commits, or the channel the system records them in.

The judge is told what actually happened, as text, for operational claim integrity: an answer
that claims a refund is judged against the refund the system recorded, or its absence.
"""

from __future__ import annotations

import json

import pytest

import assay_agents as assay
from assay_agents import judges
from assay_agents.errors import SpecError
from assay_agents.load import load_suite

from .conftest import HARNESS

ITEM = """\
id = "refund"
judge = ["operational_claim_integrity"]
{effects}

[input]
text = "Refund order 42"
"""


def load(folder, effects: str):
    return load_suite(folder({"refund.toml": ITEM.format(effects=effects)}))


def test_declared_effects_reach_the_case(folder) -> None:
    suite = load(folder, 'committed_effects = ["Refunded 9.50 on order 42"]')
    assert suite.cases[0].metadata["committed_effects"] == ["Refunded 9.50 on order 42"]


@pytest.mark.parametrize(
    ("effects", "message"),
    [
        ('committed_effects_channel = "comands"', "did you mean 'commands'"),
        ('committed_effects = ["x"]\ncommitted_effects_channel = "commands"', "one or the other"),
        ('committed_effect = ["x"]', "committed_effect"),
    ],
)
def test_a_wrong_declaration_names_the_file_and_field(folder, effects: str, message: str) -> None:
    with pytest.raises(SpecError, match=message) as raised:
        load(folder, effects)
    assert "refund.toml" in str(raised.value)


def test_the_judge_is_told_the_effects_the_named_channel_recorded(folder, store) -> None:
    prompts: list[str] = []

    def complete(instructions: str, prompt: str) -> str:
        if "operational_claim_integrity" in instructions:
            prompts.append(prompt)
        return '{"score": 1, "reason": "consistent"}'

    suite = load(folder, 'committed_effects_channel = "commands"')
    suite.judge = judges.function("recorder", complete)
    assert HARNESS  # the harness records the command trip.set_name on every sample
    run = assay.run(suite, db=store, progress=False)
    graded = [prompt for prompt in prompts if prompt.startswith("Grade this data")]
    assert run.status is assay.RunStatus.COMPLETED and graded
    assert all(
        json.loads(prompt.split("\n", 1)[1])["committed_effects"] == ["trip.set_name"]
        for prompt in graded
    )
