"""Samples held packed read as the tuple they stand for: indexed, sliced, compared, pickled."""

from __future__ import annotations

import dataclasses
import pickle
from datetime import UTC, datetime

import pytest

import assay_agents as assay
from assay_agents.results import MetricResult, SampleStatus
from assay_agents.results.packed import KEEP_DECODED, PackedSamples


def samples(count: int) -> tuple[assay.SampleResult, ...]:
    return tuple(
        assay.SampleResult(
            f"case-{index}",
            "model-a" if index % 2 else None,
            index % 3,
            SampleStatus.PASSED if index % 4 else SampleStatus.FAILED,
            answer=f"answer {index}",
            duration_ms=index / 7,
            metrics=(MetricResult("contains", "check", "content", 1.0, 1.0, True, "ok"),),
        )
        for index in range(count)
    )


def pages(held: tuple[assay.SampleResult, ...], size: int) -> list[tuple[assay.SampleResult, ...]]:
    return [held[start : start + size] for start in range(0, len(held), size)]


@pytest.mark.parametrize("size", [1, 3, 10, 50])
def test_packed_samples_read_as_their_tuple(size: int) -> None:
    held = samples(23)
    packed = PackedSamples(pages(held, size))
    assert len(packed) == 23 and list(packed) == list(held)
    assert [packed[index] for index in range(23)] == list(held)
    assert packed[-1] == held[-1] and packed[-23] == held[0]
    assert packed[2:9] == held[2:9] and packed[::-5] == held[::-5] and packed[30:] == ()
    assert packed == held and held == packed and packed != held[:-1] and packed != "text"
    assert packed.index(held[7]) == 7 and held[5] in packed and packed.count(held[4]) == 1
    with pytest.raises(IndexError):
        packed[23]
    with pytest.raises(IndexError):
        packed[-24]


def test_empty_pages_hold_nothing() -> None:
    packed = PackedSamples([(), ()])
    assert len(packed) == 0 and list(packed) == [] and packed == () and not packed


def test_a_run_holding_packed_samples_pickles_compares_and_is_replaced_as_before() -> None:
    held = samples(12)
    run = assay.Run(
        id="r1",
        suite="s",
        agent="a",
        fingerprint="f",
        status=assay.RunStatus.COMPLETED,
        started_at=datetime(2026, 1, 1, tzinfo=UTC),
        samples=PackedSamples(pages(held, 5)),
    )
    copied = pickle.loads(pickle.dumps(run))
    assert copied == run == dataclasses.replace(run, samples=held)
    assert copied.samples[11] == held[11] and isinstance(copied.samples, PackedSamples)
    assert dataclasses.replace(run, error="x").samples is run.samples
    assert run.with_samples(held[:3]) != run


def test_a_small_run_decodes_each_page_once_and_a_large_one_keeps_only_the_last() -> None:
    held = samples(6)
    small = PackedSamples(pages(held, 2))
    first = small[0]
    assert list(small) == list(held)  # every page read again after the first
    assert small[0] is first  # the same decoded object, not a second decoding
    many = samples(KEEP_DECODED + 1)
    large = PackedSamples(pages(many, 1000))
    first = large[0]
    assert large[KEEP_DECODED] == many[KEEP_DECODED]
    assert large[0] is not first and large[0] == first


def test_a_small_run_holds_the_samples_it_was_given_and_packs_them_only_to_pickle() -> None:
    held = samples(7)
    small = PackedSamples(pages(held, 3))
    assert all(mine is given for mine, given in zip(small, held, strict=True))
    copied = pickle.loads(pickle.dumps(small))
    assert copied == held and copied[6] is not held[6]
    grown = samples(KEEP_DECODED + 3)
    large = PackedSamples(pages(grown, 1000))  # kept at first, packed once past the size
    assert large == grown and large[0] is not grown[0]


def test_a_sample_and_its_metrics_pickle_field_by_field_as_dataclasses_pickles_them() -> None:
    (sample,) = samples(1)
    sample = dataclasses.replace(sample, error="boom", metadata={"k": [1, "two"]})
    assert pickle.loads(pickle.dumps(sample, 5)) == sample
    # The state is the fields' values in order: what the dataclass pickling wrote before.
    state = [getattr(sample, each.name) for each in dataclasses.fields(sample)]
    assert sample.__getstate__() == state
    restored = object.__new__(assay.SampleResult)
    restored.__setstate__(state)
    assert restored == sample
    metric = sample.metrics[0]
    assert metric.__getstate__() == [getattr(metric, f.name) for f in dataclasses.fields(metric)]
    assert pickle.loads(pickle.dumps(metric)) == metric


@dataclasses.dataclass(frozen=True)
class _Tagged(assay.SampleResult):
    tag: str = "none"


def test_a_subclass_of_a_sample_pickles_with_its_own_fields_too() -> None:
    (sample,) = samples(1)
    tagged = _Tagged(
        **{f.name: getattr(sample, f.name) for f in dataclasses.fields(sample)}, tag="x"
    )
    restored = pickle.loads(pickle.dumps(tagged))
    assert restored == tagged and restored.tag == "x"
