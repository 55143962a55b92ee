"""A run's samples held compressed, a page at a time: what a run returned to its caller holds.

A completed run of 100,000 samples as objects takes about a gigabyte; packed, a few
megabytes. Each page is decoded when it is read (the last one read is kept), so iterating,
indexing and comparing behave as on the tuple it stands for. A run of at most
:data:`KEEP_DECODED` samples is small enough to keep as objects: it keeps the pages it was
given as they are, and packs them only when it is pickled.
"""

from __future__ import annotations

import bisect
import pickle
import zlib
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, overload

from assay_agents.results.sample import SampleResult

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
        # None stands for a page only held decoded: a run of at most KEEP_DECODED samples
        # keeps the pages it was given, and packs them only when it is pickled.
        self._pages: list[bytes | None] = []
        self._starts: list[int] = []
        self._kept: dict[int, tuple[SampleResult, ...]] = {}
        length = 0
        for page in pages:
            if not page:
                continue
            held = tuple(page)
            self._starts.append(length)
            length += len(held)
            if length <= KEEP_DECODED:
                self._kept[len(self._pages)] = held
                self._pages.append(None)
                continue
            if self._kept:  # past the size worth keeping: what was kept is packed too
                self._pages = [self._packed(number) for number in range(len(self._pages))]
                self._kept = {}
            self._pages.append(_pack(held))
        self._length = length
        self._last: tuple[int, tuple[SampleResult, ...]] | None = None

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
        pages = [self._packed(number) for number in range(len(self._pages))]
        return {"pages": pages, "starts": self._starts, "length": self._length}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._pages, self._starts = state["pages"], state["starts"]
        self._length, self._last, self._kept = state["length"], None, {}

    def _page(self, number: int) -> tuple[SampleResult, ...]:
        last = self._last
        if last is not None and last[0] == number:
            return last[1]
        page = self._kept.get(number)
        if page is None:
            page = pickle.loads(zlib.decompress(self._packed(number)))
            if self._length <= KEEP_DECODED:
                self._kept[number] = page
        self._last = (number, page)
        return page

    def _packed(self, number: int) -> bytes:
        packed = self._pages[number]
        return _pack(self._kept[number]) if packed is None else packed


def _pack(page: tuple[SampleResult, ...]) -> bytes:
    # Pickled, not written as records: the same objects back, at a fraction of the time,
    # and names repeated within a page are written once.
    return zlib.compress(pickle.dumps(page, 5), _LEVEL)
