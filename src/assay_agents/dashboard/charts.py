"""The trend chart, laid out on the server as SVG geometry the template writes.

Each series (the deterministic pass rate, then each judge criterion) is drawn on its own: a
run that calculated no figure for it draws no point and breaks the line there ("quality
unavailable"), never a zero. The checks series is the deterministic pass rate, never the
headline one (which judge failures move). Where a run's comparison measured a noise floor for
a judge criterion, its band is drawn around the point; a floor holds no deterministic pass
rate figure (its ``pass_rate`` moves with judge failures too), so the checks get no band.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from assay_agents.report import format as fmt
from assay_agents.store.browse import RunLine

WIDTH, HEIGHT = 720, 260
_LEFT, _RIGHT, _TOP, _BOTTOM = 44, 12, 12, 28
PASS_RATE = "pass rate (checks)"


@dataclass(frozen=True, slots=True)
class Point:
    """One run's figure in one series: where it sits and what it says."""

    x: float
    y: float
    run: RunLine
    text: str


@dataclass(frozen=True, slots=True)
class Band:
    """A measured noise floor around a point: from ``top`` to ``bottom`` at ``x``."""

    x: float
    top: float
    bottom: float


@dataclass(frozen=True, slots=True)
class Series:
    """One line: its name, its number (for its colour), its points, lines and bands."""

    name: str
    index: int
    points: tuple[Point, ...]
    lines: tuple[str, ...]
    bands: tuple[Band, ...]


@dataclass(frozen=True, slots=True)
class Chart:
    """The chart's size, its series, its axis ticks, and every figure as a table row."""

    width: int
    height: int
    series: tuple[Series, ...]
    ticks: tuple[tuple[float, str], ...]
    runs: tuple[RunLine, ...]
    table: tuple[tuple[RunLine, tuple[str, ...]], ...]
    names: tuple[str, ...]
    left: int = _LEFT
    right: int = WIDTH - _RIGHT


Reader = Callable[[RunLine], float | None]


def trend(runs: Sequence[RunLine]) -> Chart:
    """The chart of ``runs`` (oldest first), from what their stored summaries say."""
    criteria = sorted({name for run in runs if run.figures for name in run.figures.judge})
    readers: list[tuple[str, Reader, Reader]] = [
        (PASS_RATE, _pass_rate, _no_floor),
        *((name, _criterion(name), _floor(name)) for name in criteria),
    ]
    xs = _xs(len(runs))
    series = tuple(
        _series(name, index, runs, xs, value, floor)
        for index, (name, value, floor) in enumerate(readers)
    )
    table = tuple(
        (run, tuple(_written(value(run)) for _, value, _ in readers)) for run in reversed(runs)
    )
    ticks = tuple((_y(share), fmt.percent(share)) for share in (0.0, 0.25, 0.5, 0.75, 1.0))
    return Chart(
        WIDTH, HEIGHT, series, ticks, tuple(runs), table, tuple(name for name, _, _ in readers)
    )


def _written(value: float | None) -> str:
    return "quality unavailable" if value is None else fmt.percent(value, 1)


def _series(
    name: str, index: int, runs: Sequence[RunLine], xs: list[float], value: Reader, floor: Reader
) -> Series:
    points: list[Point] = []
    lines: list[str] = []
    bands: list[Band] = []
    stroke: list[str] = []
    for x, run in zip(xs, runs, strict=True):
        figure = value(run)
        if figure is None:
            if len(stroke) > 1:
                lines.append(" ".join(stroke))
            stroke = []  # no point, and the line breaks: never a zero
            continue
        y = _y(figure)
        points.append(Point(round(x, 2), y, run, f"{run.handle}: {name} {_written(figure)}"))
        stroke.append(f"{x:.2f},{y:.2f}")
        noise = floor(run)
        if noise is not None:
            bands.append(
                Band(round(x, 2), _y(min(1.0, figure + noise)), _y(max(0.0, figure - noise)))
            )
    if len(stroke) > 1:
        lines.append(" ".join(stroke))
    return Series(name, index % 6, tuple(points), tuple(lines), tuple(bands))


def _xs(count: int) -> list[float]:
    span = WIDTH - _LEFT - _RIGHT
    if count == 1:
        return [_LEFT + span / 2]
    return [_LEFT + span * i / (count - 1) for i in range(count)]


def _y(share: float) -> float:
    return round(_TOP + (1 - share) * (HEIGHT - _TOP - _BOTTOM), 2)


def _pass_rate(run: RunLine) -> float | None:
    # The deterministic pass rate: judge criteria have their own series (DESIGN rule 1).
    return None if run.figures is None else run.figures.check_pass_rate


def _criterion(name: str) -> Reader:
    def read(run: RunLine) -> float | None:
        return None if run.figures is None else run.figures.judge.get(name)

    return read


def _floor(metric: str) -> Reader:
    """The measured noise floor of the judge criterion ``metric``, when one was measured."""

    def read(run: RunLine) -> float | None:
        return run.noise.get(metric)

    return read


def _no_floor(run: RunLine) -> float | None:
    """No band for the checks: a floor's pass rate moves with judge failures too."""
    return None
