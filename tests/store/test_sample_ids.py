"""Sample rows get ids that grow with time: stored at the end of the keys that hold them."""

from __future__ import annotations

import re
import time

from assay_agents.store._rows import new_sample_id


def test_a_sample_id_is_the_time_in_milliseconds_then_random_hex() -> None:
    before = time.time_ns() // 1_000_000
    made = [new_sample_id() for _ in range(10_000)]
    after = time.time_ns() // 1_000_000
    assert all(re.fullmatch(r"[0-9a-f]{32}", each) for each in made)
    assert all(before <= int(each[:12], 16) <= after for each in made)
    assert len(set(made)) == len(made)
