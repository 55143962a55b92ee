"""``suite.toml`` sets how each model's concurrency adapts to rate limits."""

from pathlib import Path

import pytest

from assay_agents.errors import SpecError
from assay_agents.load.settings import read_settings


def test_suite_toml_sets_the_floor_the_ceiling_and_the_retries(tmp_path: Path) -> None:
    (tmp_path / "suite.toml").write_text(
        "concurrency_floor = 2\nconcurrency_ceiling = 9\nrate_limit_retries = 0\n"
    )
    suite = read_settings(tmp_path).suite(agent=lambda text: "x")
    assert (suite.concurrency_floor, suite.concurrency_ceiling, suite.rate_limit_retries) == (
        2,
        9,
        0,
    )


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ("rate_limit_retries = -1", "rate_limit_retries"),
        ("concurrency_floor = 0", "concurrency_floor"),
    ],
)
def test_suite_toml_refuses_a_value_out_of_range_naming_it(
    tmp_path: Path, line: str, field: str
) -> None:
    (tmp_path / "suite.toml").write_text(line + "\n")
    with pytest.raises(SpecError, match=field) as raised:
        read_settings(tmp_path)
    assert "suite.toml" in str(raised.value)
