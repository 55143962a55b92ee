"""Forms earlier versions wrote that this one reads another way."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def first_release_comparison(data: Mapping[str, object]) -> bool:
    """Whether a comparison is the first release's flat list of changes.

    It holds no pairing, policy or noise floor, so it cannot be rebuilt faithfully: the
    store and the archive reader read it as no stored comparison.
    """
    return "pairing" not in data and "policy" not in data


def sample(data: object) -> object:
    """A sample's stored form with its judge usage in this version's form."""
    if not isinstance(data, Mapping) or "judge_usage" not in data:
        return data
    usage = data["judge_usage"]
    upgraded = judge_usage(usage)
    return data if upgraded is usage else {**data, "judge_usage": upgraded}


def judge_usage(data: object) -> object:
    """A sample's judge usage in this version's form.

    Versions before attempts were counted (the first with judges) made one attempt per
    call; before the cost basis was kept, it follows from the cost and the tokens.
    """
    if not isinstance(data, Mapping) or ("attempts" in data and "source" in data):
        return data
    upgraded: dict[str, Any] = dict(data)
    upgraded.setdefault("attempts", data.get("calls", 0))
    if "source" not in data:
        priced = data.get("cost_usd") is not None
        tokens = data.get("input_tokens") or data.get("output_tokens")
        upgraded["source"] = (
            ("estimated" if data.get("cost_estimated") else "reported")
            if priced
            else "unpriced"
            if tokens
            else "no_usage"
        )
    return upgraded
