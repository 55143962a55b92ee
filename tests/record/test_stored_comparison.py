"""The comparison a run stores: typed on the run, written and read by the one codec.

``stored_comparison.json`` holds what the version before the codec stored for the runs of
``comparison_builders`` (every pairing, a noise floor with moved items, added and removed
items, both headlines, a model comparison): the codec writes the same text and reads it back.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from comparison_builders import runs

from assay_agents.compare import NoiseFloor, compare_models, compare_runs, measure_noise
from assay_agents.record import RecordError, read, read_comparison, write_comparison
from assay_agents.results import StoredComparison
from assay_agents.results.comparison import Headline, MeasuredHeadline, WithheldHeadline

GOLDEN = Path(__file__).with_name("stored_comparison.json")


def _stored() -> dict[str, StoredComparison]:
    before, after = runs()
    moved = measure_noise(before, after).moved
    floor = NoiseFloor(("ctl-1", "ctl-2"), 0.25, {"contains": 0.5, "tone": 0.1}, moved)
    measured = compare_runs(before, after, noise_floor=floor, max_excluded_share=1.0)
    return {
        "measured": StoredComparison(measured, compare_models(after, resamples=200)),
        "withheld": StoredComparison(compare_runs(before, after), None),
    }


def test_a_comparison_is_stored_as_the_earlier_version_stored_it() -> None:
    written = {name: write_comparison(stored) for name, stored in _stored().items()}
    assert json.dumps(written, indent=1) + "\n" == GOLDEN.read_text()


def test_a_stored_comparison_reads_back_as_it_was() -> None:
    golden = json.loads(GOLDEN.read_text())
    for name, stored in _stored().items():
        assert read_comparison(golden[name]) == stored
    measured = read_comparison(golden["measured"])
    assert measured is not None and measured.baseline is not None
    assert measured.baseline.noise_floor is not None
    assert measured.baseline.policy.noise_floor == measured.baseline.noise_floor
    assert [item.pairing.value for item in measured.baseline.corpus_defects] == [
        "corpus_defect",
        "corpus_defect",
    ]


def test_the_flat_first_release_form_and_none_read_as_no_comparison() -> None:
    flat = {"baseline_id": "a", "current_id": "b", "tolerance": 0.0, "changes": []}
    assert read_comparison(flat) is None
    assert read_comparison(None) is None


def test_a_headline_is_read_by_its_status() -> None:
    assert read(Headline, {"status": "withheld", "reason": "as written"}, "h") == (
        WithheldHeadline()
    )
    measured = {"status": "measured", "before_passed": 1, "before_evaluated": 2}
    measured |= {"after_passed": 2, "after_evaluated": 2, "noise": "unmeasured"}
    headline = read(Headline, measured, "h")
    assert isinstance(headline, MeasuredHeadline) and headline.delta == 0.5
    with pytest.raises(RecordError, match=r"^h\.status: missing$"):
        read(Headline, {"before_passed": 1}, "h")
    with pytest.raises(RecordError, match=r"^h\.status: expected one of 'measured', 'withheld'"):
        read(Headline, {"status": "guessed"}, "h")


def test_a_pair_of_figures_must_be_a_pair() -> None:
    golden = json.loads(GOLDEN.read_text())["measured"]
    golden["models"]["pairs"][0]["interval"] = [0.1, 0.2, 0.3]
    with pytest.raises(RecordError, match=r"comparison\.models\.pairs\[0\]\.interval: expected"):
        read_comparison(golden)


def test_added_items_read_as_pairs_of_case_and_model() -> None:
    golden = json.loads(GOLDEN.read_text())["measured"]
    stored = read_comparison(golden)
    assert stored is not None and stored.baseline is not None
    assert stored.baseline.added == (("only-after", "small"),)
    golden["baseline"]["added"] = [["only-after"]]
    with pytest.raises(RecordError, match=r"comparison\.baseline\.added\[0\]: expected"):
        read_comparison(golden)


def test_the_stored_figures_follow_the_comparison() -> None:
    stored = _stored()["measured"].baseline
    assert stored is not None
    fewer = replace(stored, changes=stored.changes[:1])
    written = write_comparison(StoredComparison(fewer, None))["baseline"]
    assert (written["regressions"], written["signal_regressions"]) == (1, 1)
    assert written["pairing"]["compared"] == stored.compared == 4
