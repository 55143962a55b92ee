"""A run's samples held compressed, a page at a time: what a run returned to its caller holds.

A completed run of 100,000 samples as objects takes about a gigabyte; packed, a few
megabytes. Each page is decoded when it is read (the last one read is kept, and every one of
a run of at most :data:`KEEP_DECODED` samples), so iterating,
indexing and comparing behave as on the tuple it stands for.
"""

from __future__ import annotations

import bisect
import pickle
import zlib
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, overload

from assay.results.sample import SampleResult

#: Fast compression: the pages are packed once and read back a few times at most.
_LEVEL = 1
#: Up to this many samples, pages once decoded are kept: a report reads a run's samples
#: a dozen times over, and a run this small costs tens of megabytes as objects.
KEEP_DECODED = 5_000


class PackedSamples(Sequence[SampleResult]):
    """A read-only sequence of samples, kept as compressed pages and decoded on access.

    Equal to any sequence holding equal samples in the same order (a tuple included);
    picklable (the pages travel as they are).
    """

    def __init__(self, pages: Iterable[Sequence[SampleResult]]) -> None:
        self._pages: list[bytes] = []
        self._starts: list[int] = []
        length = 0
        for page in pages:
            if not page:
                continue
            # Pickled, not written as records: the same objects back, at a fraction of the
            # time, and names repeated within a page are written once.
            self._pages.append(zlib.compress(pickle.dumps(tuple(page), 5), _LEVEL))
            self._starts.append(length)
            length += len(page)
        self._length = length
        self._last: tuple[int, tuple[SampleResult, ...]] | None = None
        self._kept: dict[int, tuple[SampleResult, ...]] = {}

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> SampleResult: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[SampleResult, ...]: ...

    def __getitem__(self, index: int | slice) -> SampleResult | tuple[SampleResult, ...]:
        if isinstance(index, slice):
            return tuple(self[each] for each in range(self._length)[index])
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("sample index out of range")
        number = bisect.bisect_right(self._starts, index) - 1
        return self._page(number)[index - self._starts[number]]

    def __iter__(self) -> Iterator[SampleResult]:
        for number in range(len(self._pages)):
            yield from self._page(number)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(other) == self._length and all(
            mine == theirs for mine, theirs in zip(self, other, strict=True)
        )

    __hash__ = None  # type: ignore[assignment]  # equal to a tuple, yet not immutable

    def __repr__(self) -> str:
        return f"PackedSamples({self._length} samples in {len(self._pages)} pages)"

    def __getstate__(self) -> dict[str, Any]:
        return {"pages": self._pages, "starts": self._starts, "length": self._length}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._pages, self._starts = state["pages"], state["starts"]
        self._length, self._last, self._kept = state["length"], None, {}

    def _page(self, number: int) -> tuple[SampleResult, ...]:
        last = self._last
        if last is not None and last[0] == number:
            return last[1]
        page = self._kept.get(number)
        if page is None:
            page = pickle.loads(zlib.decompress(self._pages[number]))
            if self._length <= KEEP_DECODED:
                self._kept[number] = page
        self._last = (number, page)
        return page
