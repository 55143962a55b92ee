"""Forms earlier versions wrote that this one reads another way."""

from __future__ import annotations

from collections.abc import Mapping


def first_release_comparison(data: Mapping[str, object]) -> bool:
    """Whether a comparison is the first release's flat list of changes.

    It holds no pairing, policy or noise floor, so it cannot be rebuilt faithfully: the
    store and the archive reader read it as no stored comparison.
    """
    return "pairing" not in data and "policy" not in data
