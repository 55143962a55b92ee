"""How every surface writes a figure: the one place pass counts, scores and money are formatted.

The text, Markdown and HTML reports, the JSON report's sentences, the gate and comparison
sentences and the terminal all call these functions, so a figure reads the same wherever it
appears. Stored values stay as they are (0..1 scores, USD, milliseconds); only their reading is
decided here.

| figure                                   | reads as                                       |
| ---------------------------------------- | ---------------------------------------------- |
| a pass/fail fraction                     | ``14/16 · 88%``; ``14/16 (88%)`` in Markdown   |
| a 0..1 score (mean, criterion, judge)    | ``93%``                                        |
| a threshold                              | ``≥ 70%`` (as set: ``72.5%`` stays ``72.5%``)  |
| money                                    | ``$0.0243``, ``~$0.0243``, ``$0.000512``       |

Rules:

* Missing figures (``None``, NaN, infinities, a fraction of nothing) read as an em dash, ``—``.
* Percentages are whole numbers rounded half up: ``0.125`` → ``13%``, ``0.005`` → ``1%``.
  Rounding works on the decimal the float prints as (its ``repr``), so ``0.145`` reads ``15%``
  although ``0.145 * 100`` is ``14.499…`` in binary floating point.
* A 0..1 figure strictly between 0 and 1 never reads as ``0%`` or ``100%``: it keeps the
  decimals it needs to read as neither (``0.9999`` → ``99.99%``, ``0.995`` → ``99.5%``,
  ``1999/2000 · 99.95%``, ``0.00004`` → ``0.004%``).
* No percentage or count of points has more than four decimals. Past them a figure is
  rounded to four, and one that would still read on the wrong side of what it is read
  against says its side: ``< 0.0001%``, ``> 99.9999%``, ``< 12.3457%`` against ``12.3457%``.
* A threshold or tolerance reads as it was set, never rounded into another setting. A figure
  read against it (a score and its minimum, a gate's figure and its limit, a movement and its
  tolerance) is whole, with as many more decimals as keep it on its side of the limit:
  ``69.5% < 70%``, ``70.04% ≥ 70%``, never ``70% < 70%``.
* Two figures read against each other (before and after) are whole, with as many more
  decimals as two different figures need to read differently; rounding half up keeps their
  order.
* A difference of shares is signed percentage points, whole, with decimals only where a
  difference would otherwise read as none: ``+7 points``, ``−0.4 points``, ``0 points``; a
  movement or a tolerance is unsigned: ``2.5 points``.
* An interval of shares is ``62% – 88%``; of differences, ``+2 to +40 points``.
* Money is USD with four decimals (``$0.0243``, ``$12.3450``, with thousands separators), six
  below a tenth of a cent (``$0.000512``) and ``$0.00`` for an explicit zero. A ``~`` prefix
  marks a figure any part of which was estimated from tokens and model rates, or one that
  covers only some of the samples (``~$0.0243``); the report carries the legend once.
* A rate is dollars per million tokens with at least two decimals (``$5.00/M``,
  ``$0.075/M``); an estimate's working reads
  ``2,328 in × $5.00/M + 423 out × $30.00/M · catalog rate``.
* Durations are whole milliseconds below a second (``850 ms``), seconds with two decimals from
  there (``1.25 s``).
* Token counts carry thousands separators: ``12,345``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache

#: What every surface shows for a figure that does not exist.
MISSING = "—"

#: The footnote a report carries once when any money figure is marked ``~``.
ESTIMATED_LEGEND = (
    "~ estimated from tokens \N{MULTIPLICATION SIGN} model rates, or covering only some samples"
)

_MINUS = "\N{MINUS SIGN}"

#: The most decimals a percentage or a count of points is written with (unless asked for more).
_MOST_DECIMALS = 4
#: ``10 ** -places`` for every number of places a figure is rounded to, made once.
_QUANTA = tuple(Decimal(1).scaleb(-places) for places in range(_MOST_DECIMALS + 1))
_NOTHING, _ALL = Decimal(0), Decimal(100)
#: How many distinct figures of each kind are remembered: a report repeats the same scores and
#: thresholds on thousands of samples, and each is worked out through ``Decimal`` once.
_REMEMBERED = 4096


def _decimal(value: float) -> Decimal:
    # repr() is the shortest text that round-trips, i.e. the number the user thinks they have.
    return Decimal(repr(float(value)))


def _round(value: Decimal, places: int) -> Decimal:
    quantum = _QUANTA[places] if 0 <= places <= _MOST_DECIMALS else Decimal(1).scaleb(-places)
    return value.quantize(quantum, rounding=ROUND_HALF_UP)


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def _trimmed(value: Decimal) -> str:
    text = f"{abs(value):f}"
    text = text.rstrip("0").rstrip(".") if "." in text else text
    return f"{_MINUS}{text}" if value < 0 and text.strip("0.") else text


def _signed(value: Decimal) -> str:
    text = f"{abs(value):f}"
    return f"{_MINUS}{text}" if value < 0 and text.strip("0.") else text


def _side(a: Decimal, b: Decimal) -> int:
    return (a > b) - (a < b)


def _as_written(bound: Decimal) -> Decimal:
    """A bound as it is written: exactly, or rounded half up past the most decimals."""
    exponent = bound.normalize().as_tuple().exponent
    if isinstance(exponent, int) and -exponent <= _MOST_DECIMALS:
        return bound
    return _round(bound, _MOST_DECIMALS)


def _kept(
    value: Decimal, bounds: list[Decimal], decimals: int, *, share: bool
) -> tuple[str, Decimal]:
    """``value`` rounded to the fewest places (from ``decimals``) that keep its side of each bound.

    A bound reads as :func:`_as_written` writes it, so the rounded figure must stand where
    the exact one does against it: below, equal or above. A ``share`` (a percentage of a 0..1
    figure) strictly between 0 and 100 also keeps its side of both. Returns a prefix (``""``,
    ``"< "`` or ``"> "``) and the figure: past the most decimals, a figure that still reads on
    the wrong side is rounded to them and says its side with the prefix.
    """
    if share and _NOTHING < value < _ALL:
        bounds = [*bounds, _NOTHING, _ALL]
    written = [(bound, _as_written(bound)) for bound in bounds]
    most = max(decimals, _MOST_DECIMALS)
    for places in range(decimals, most + 1):
        shown = _round(value, places)
        if all(_side(shown, w) == _side(value, b) for b, w in written):
            return "", shown
    if shown == _NOTHING < value:
        return "< ", _quantum(most)
    if share and value < _ALL == shown:
        return "> ", _ALL - _quantum(most)
    for bound, w in written:
        if _side(shown, w) != _side(value, bound):
            return ("< " if value < bound else "> "), w
    return "", shown


def _quantum(places: int) -> Decimal:
    return _QUANTA[places] if 0 <= places <= _MOST_DECIMALS else Decimal(1).scaleb(-places)


@lru_cache(maxsize=_REMEMBERED)
def percent(x: float | None, decimals: int = 0) -> str:
    """Write a 0..1 value as a percentage rounded half up: ``0.875`` → ``88%``.

    Whole numbers unless ``decimals`` asks for more: ``percent(0.625, 1)`` → ``62.5%``; a
    value strictly between 0 and 1 takes the decimals it needs to read as neither ``0%`` nor
    ``100%``: ``0.9999`` → ``99.99%``.
    """
    if x is None or not _finite(x):
        return MISSING
    prefix, shown = _kept(_decimal(x) * 100, [], decimals, share=True)
    return f"{prefix}{_signed(shown)}%"


def score(x: float | None) -> str:
    """Write a 0..1 score (a mean, a criterion, a check score) as a whole percentage: ``93%``."""
    return percent(x)


def _apart(values: tuple[float | None, ...], decimals: int, scale: int) -> tuple[str, ...]:
    """Each value times ``scale``, rounded to the fewest places that keep different ones apart.

    Each keeps its side of 0 and 100 too, when it is strictly between (see :func:`_kept`).
    """
    exact = [_decimal(v) * scale if v is not None and _finite(v) else None for v in values]
    most = max(decimals, _MOST_DECIMALS)
    places = decimals
    while True:
        kept = [None if e is None else _kept(e, [], places, share=True) for e in exact]
        written = [None if k is None else f"{k[0]}{_trimmed(k[1])}" for k in kept]
        clashes = any(
            written[i] is not None and written[i] == written[j] and exact[i] != exact[j]
            for i in range(len(exact))
            for j in range(i)
        )
        if not clashes or places >= most:
            return tuple(MISSING if text is None else text for text in written)
        places += 1


def percents_apart(*values: float | None, decimals: int = 0) -> tuple[str, ...]:
    """Percentages of figures read against each other: ``88%``, ``70%``; ``69.5%``, ``70%``.

    Whole numbers (or ``decimals`` places), trailing zeros dropped, and more places wherever two
    different figures would otherwise read the same; equal figures read the same. Rounding half
    up keeps the order, so ``a < b`` never reads as ``a > b``. A missing figure is ``—``.
    """
    return tuple(text if text == MISSING else f"{text}%" for text in _apart(values, decimals, 100))


def scores_apart(*values: float | None) -> tuple[str, ...]:
    """0..1 scores read against each other, such as a metric before and after a change."""
    return percents_apart(*values)


def _bounds(limits: tuple[float | None, ...]) -> list[Decimal]:
    return [abs(_decimal(b)) * 100 for b in limits if b is not None and _finite(b)]


@lru_cache(maxsize=_REMEMBERED)
def score_against(x: float | None, *limits: float | None) -> str:
    """A score read against thresholds written as set: ``59.96%`` against ``60%``, never ``60%``.

    Whole unless more places are needed to keep the score on its side of every threshold (and
    of 0% and 100%), so a failing mean never prints as the minimum it missed, nor above it.
    """
    if x is None or not _finite(x):
        return MISSING
    bounds = [_decimal(b) * 100 for b in limits if b is not None and _finite(b)]
    prefix, shown = _kept(_decimal(x) * 100, bounds, 0, share=True)
    return f"{prefix}{_trimmed(shown)}%"


@lru_cache(maxsize=_REMEMBERED)
def limit(x: float | None) -> str:
    """A threshold as it was set, as a percentage: ``0.7`` → ``70%``, ``0.725`` → ``72.5%``.

    Up to four decimals; past them rounded to four, and ``< 0.0001%`` or ``> 99.9999%``
    for a setting that would then read as 0% or 100%.
    """
    if x is None or not _finite(x):
        return MISSING
    value = _decimal(x) * 100
    shown = _as_written(value)
    if shown == _NOTHING < value:
        return f"< {_quantum(_MOST_DECIMALS)}%"
    if value < _ALL == shown:
        return f"> {_ALL - _quantum(_MOST_DECIMALS)}%"
    return f"{_trimmed(shown)}%"


def points(delta: float | None, places: int = 0) -> str:
    """A signed difference of 0..1 shares in percentage points: ``+7 points``, ``−0.4 points``.

    Whole (or ``places`` decimals), rounded half up like :func:`percent`, with the decimals a
    difference needs never to read as none; no difference at all reads ``0 points``.
    """
    if delta is None or not _finite(delta):
        return MISSING
    prefix, magnitude = _kept(abs(_decimal(delta)) * 100, [_NOTHING], places, share=False)
    sign = "" if delta == 0 else "+" if delta > 0 else _MINUS
    return f"{sign}{prefix.strip()}{magnitude:f} points"


def points_limit(x: float | None) -> str:
    """A tolerance on the 0..1 scale as it was set, in points: ``0.025`` → ``2.5 points``."""
    if x is None or not _finite(x):
        return MISSING
    value = abs(_decimal(x)) * 100
    shown = _as_written(value)
    if shown == _NOTHING < value:
        return f"< {_quantum(_MOST_DECIMALS)} points"
    return f"{_trimmed(shown)} points"


def points_against(moved: float | None, *limits: float | None) -> str:
    """A movement's size read against tolerances written as set: ``2.6 points`` over ``2.5``.

    Whole points unless more places are needed to keep it on its side of every tolerance.
    """
    if moved is None or not _finite(moved):
        return MISSING
    prefix, shown = _kept(abs(_decimal(moved)) * 100, _bounds(limits), 0, share=False)
    return f"{prefix}{_trimmed(shown)} points"


def number(x: float | None) -> str:
    """A number on a scale of its own (a judge's votes and their spread, 4 on 1–5): ``4``, ``0.9``.

    Up to three decimals, rounded half up, trailing zeros dropped: ``1/3`` → ``0.333``.
    """
    if x is None or not _finite(x):
        return MISSING
    return _trimmed(_round(_decimal(x), 3))


def rate_interval(interval: tuple[float, float] | None) -> str:
    """An interval of 0..1 shares as percentages: ``62% – 88%``."""
    if interval is None:
        return MISSING
    return f"{percent(interval[0])} – {percent(interval[1])}"


def points_interval(interval: tuple[float, float] | None) -> str:
    """An interval of differences in points, each end as :func:`points` writes it.

    ``+2 to +40 points``; ``−0.4 to +13 points``.
    """
    if interval is None:
        return MISSING
    low = points(interval[0]).removesuffix(" points")
    return f"{low} to {points(interval[1])}"


def fraction(passed: int, total: int, *limits: float | None) -> str:
    """Write a pass count over its total with its percentage: ``14/16 · 88%``.

    The percentage is read against ``limits`` (a gate's minimum): ``139/200 · 69.5%``
    against 70%, never ``70%``.
    """
    if total <= 0:
        return MISSING
    return f"{passed}/{total} · {score_against(passed / total, *limits)}"


def fraction_md(passed: int, total: int, *limits: float | None) -> str:
    """Write :func:`fraction` the Markdown way: ``14/16 (88%)``."""
    if total <= 0:
        return MISSING
    return f"{passed}/{total} ({score_against(passed / total, *limits)})"


def money(usd: float | None, *, estimated: bool = False, partial: bool = False) -> str:
    """US dollars by the money rule in the module docstring: ``$0.0243``, ``~$0.000512``.

    ``estimated`` (any part priced from tokens × model rates) or ``partial`` (the figure covers
    only some of the samples) marks it ``~``.
    """
    if usd is None or not _finite(usd):
        return MISSING
    prefix = "~" if estimated or partial else ""
    value = _decimal(usd)
    if value == 0:
        return f"{prefix}$0.00"
    sign = _MINUS if value < 0 else ""
    return f"{prefix}{sign}${_dollars(abs(value))}"


def _dollars(value: Decimal) -> str:
    # Decide on the rounded value, so $0.00099995 reads $0.0010 rather than $0.001000.
    places = 6 if _round(value, 6) < Decimal("0.001") else 4
    return f"{_round(value, places):,f}"


def per_million(usd: float | None) -> str:
    """A rate in dollars per million tokens: ``$5.00/M``, ``$0.075/M`` (never rounded away)."""
    if usd is None or not _finite(usd):
        return MISSING
    value = _decimal(usd)
    shown = _round(value, 2) if _round(value, 2) == value else value
    return f"${shown:,f}/M"


def cost_working(input_tokens: int | None, output_tokens: int | None, rate: object) -> str:
    """How an estimate was reached: ``2,328 in × $5.00/M + 423 out × $30.00/M · catalog rate``.

    ``rate`` is the sample's stored ``cost_rate`` (``input`` and ``output`` in dollars per
    million tokens, and its ``source``); one that does not read as such is ``—``.
    """
    if not isinstance(rate, Mapping):
        return MISSING
    prices = [rate.get("input"), rate.get("output")]
    if not all(isinstance(p, int | float) and not isinstance(p, bool) for p in prices):
        return MISSING
    if not all(_finite(p) for p in prices):
        return MISSING
    source = rate.get("source")
    named = f" · {source} rate" if isinstance(source, str) and source else ""
    fallback = rate.get("fallback")
    if isinstance(fallback, str) and fallback:
        # A rate guessed from the model's name: the family it was priced as, said plainly.
        named += f" of {fallback} (fallback rate)"
    return (
        f"{tokens(input_tokens or 0)} in \N{MULTIPLICATION SIGN} {per_million(prices[0])} + "
        f"{tokens(output_tokens or 0)} out \N{MULTIPLICATION SIGN} {per_million(prices[1])}{named}"
    )


def duration_ms(x: float | None) -> str:
    """Milliseconds as ``850 ms`` below a second and ``1.25 s`` from a second up."""
    if x is None or not _finite(x):
        return MISSING
    millis = _round(_decimal(x), 0)
    if abs(millis) < 1000:
        return f"{millis:f} ms"
    return f"{_round(_decimal(x) / 1000, 2):,f} s"


def count(n: int) -> str:
    """Write a count of things with thousands separators: ``12,345``."""
    return f"{n:,}"


def tokens(n: int | None) -> str:
    """Write a token count with thousands separators: ``12,345``."""
    if n is None:
        return MISSING
    return f"{n:,}"
