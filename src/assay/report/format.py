"""How every surface writes a figure: the one place pass counts, scores and money are formatted.

The text, Markdown, JSON-adjacent and (later) HTML reports and the dashboard all call these
functions, so a figure reads the same wherever it appears. Stored values stay as they are
(0..1 scores, USD, milliseconds); only their reading is decided here.

Rules:

* Missing figures (``None``, or a fraction of nothing) read as an em dash, ``—``.
* Percentages are whole numbers rounded half up: ``0.125`` → ``13%``, ``0.005`` → ``1%``.
  Rounding works on the decimal the float prints as (its ``repr``), so ``0.145`` reads ``15%``
  although ``0.145 * 100`` is ``14.499…`` in binary floating point. ``decimals`` asks for more
  places: ``percent(0.625, 1)`` → ``62.5%``.
* Figures compared with each other (a gate's figure and its limit) keep up to one decimal,
  trailing zeros dropped (``62.5% ≥ 50%``), and as many more as two different figures need to
  read differently: ``62.49% < 62.5%``, never ``62.5% < 62.5%``.
* Scores are 0..1 with three decimals, rounded half up: ``0.667``.
* A difference of shares is signed percentage points: ``+7 points``, ``−0.4 points``.
* An interval of shares is ``62% – 88%``; of differences, ``+2.0 to +40.0 points``.
* A pass fraction is ``14/16 · 88%`` (``14/16 (88%)`` in Markdown).
* Money is USD: ``$0.00`` for an explicit zero; two decimals from one dollar up, with thousands
  separators (``$1,234.50``); four decimals below a dollar (``$0.0243``); six below a tenth of
  a cent (``$0.000512``). A ``~`` prefix marks a figure any part of which was estimated from
  tokens and model rates (``~$0.0243``); the report carries that legend once.
* Durations are whole milliseconds below a second (``850 ms``), seconds with two decimals from
  there (``1.25 s``).
* Token counts carry thousands separators: ``12,345``.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

#: What every surface shows for a figure that does not exist.
MISSING = "—"

#: The footnote a report carries once when any money figure is marked ``~``.
ESTIMATED_LEGEND = "~ estimated from tokens \N{MULTIPLICATION SIGN} model rates"


def _decimal(value: float) -> Decimal:
    # repr() is the shortest text that round-trips, i.e. the number the user thinks they have.
    return Decimal(repr(float(value)))


def _round(value: Decimal, places: int) -> Decimal:
    return value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


def percent(x: float | None, decimals: int = 0) -> str:
    """Write a 0..1 value as a percentage rounded half up: ``0.875`` → ``88%``.

    Whole numbers unless ``decimals`` asks for more: ``percent(0.625, 1)`` → ``62.5%``.
    """
    if x is None or not _finite(x):
        return MISSING
    return f"{_round(_decimal(x) * 100, decimals):f}%"


#: Past this many decimals two different floats always read differently.
_MOST_DECIMALS = 20


def percents_apart(*values: float, decimals: int = 1) -> tuple[str, ...]:
    """Percentages of figures read against each other: ``62.5%``, ``50%``, ``62.49%``.

    Up to ``decimals`` places with trailing zeros dropped, and more wherever two different
    figures would otherwise read the same; equal figures read the same. Rounding half up keeps
    the order, so ``a < b`` never reads as ``a > b``.
    """
    exact = [_decimal(value) * 100 for value in values]
    places = decimals
    while True:
        written = [_trimmed(_round(value, places)) for value in exact]
        clashes = any(
            written[i] == written[j] and exact[i] != exact[j]
            for i in range(len(exact))
            for j in range(i)
        )
        if not clashes or places >= _MOST_DECIMALS:
            return tuple(f"{text}%" for text in written)
        places += 1


def _trimmed(value: Decimal) -> str:
    text = f"{value:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def points(delta: float | None, places: int = 0) -> str:
    """A signed difference of 0..1 shares in percentage points: ``+7 points``, ``−0.4 points``.

    Rounded half up like :func:`percent`; a difference that rounds to zero has no sign.
    """
    if delta is None or not _finite(delta):
        return MISSING
    magnitude = _round(abs(_decimal(delta)) * 100, places)
    sign = "" if magnitude == 0 else "+" if delta > 0 else "\N{MINUS SIGN}"
    return f"{sign}{magnitude:f} points"


def rate_interval(interval: tuple[float, float] | None) -> str:
    """An interval of 0..1 shares as percentages: ``62% – 88%``."""
    if interval is None:
        return MISSING
    return f"{percent(interval[0])} – {percent(interval[1])}"


def points_interval(interval: tuple[float, float] | None) -> str:
    """An interval of differences in points, to one decimal: ``+2.0 to +40.0 points``."""
    if interval is None:
        return MISSING
    low = points(interval[0], 1).removesuffix(" points")
    return f"{low} to {points(interval[1], 1)}"


def fraction(passed: int, total: int) -> str:
    """Write a pass count over its total with its percentage: ``14/16 · 88%``."""
    if total <= 0:
        return MISSING
    return f"{passed}/{total} · {percent(passed / total)}"


def fraction_md(passed: int, total: int) -> str:
    """Write :func:`fraction` the Markdown way: ``14/16 (88%)``."""
    if total <= 0:
        return MISSING
    return f"{passed}/{total} ({percent(passed / total)})"


def limit(x: float) -> str:
    """A threshold as it was set, with no padding: ``0.6``, ``0.75``, ``1``."""
    return f"{x:g}"


def score_against(x: float, minimum: float, decimals: int = 3) -> str:
    """A score read against its minimum: three decimals, more where fewer would equal it.

    ``0.5996`` against ``0.6`` reads ``0.5996``, never ``0.600``: a failing mean must not
    print as the threshold it missed.
    """
    exact, bound = _decimal(x), _decimal(minimum)
    places = decimals
    while exact != bound and _round(exact, places) == bound and places < _MOST_DECIMALS:
        places += 1
    return f"{_round(exact, places):f}"


def score(x: float | None) -> str:
    """Write a 0..1 score with three decimals, rounded half up: ``0.667``."""
    if x is None or not _finite(x):
        return MISSING
    return f"{_round(_decimal(x), 3):f}"


def money(usd: float | None, *, estimated: bool = False) -> str:
    """US dollars by the money rule in the module docstring: ``$0.0243``, ``~$12.35``."""
    if usd is None or not _finite(usd):
        return MISSING
    prefix = "~" if estimated else ""
    value = _decimal(usd)
    if value == 0:
        return f"{prefix}$0.00"
    sign = "-" if value < 0 else ""
    return f"{prefix}{sign}${_dollars(abs(value))}"


def _dollars(value: Decimal) -> str:
    places = 6 if value < Decimal("0.001") else 4
    rounded = _round(value, places)
    # Decide on the rounded value, so $0.99996 reads $1.00 rather than $1.0000.
    if rounded >= 1:
        return f"{_round(value, 2):,f}"
    return f"{rounded:f}"


def duration_ms(x: float | None) -> str:
    """Milliseconds as ``850 ms`` below a second and ``1.25 s`` from a second up."""
    if x is None or not _finite(x):
        return MISSING
    millis = _round(_decimal(x), 0)
    if abs(millis) < 1000:
        return f"{millis:f} ms"
    return f"{_round(_decimal(x) / 1000, 2):,f} s"


def tokens(n: int | None) -> str:
    """Write a token count with thousands separators: ``12,345``."""
    if n is None:
        return MISSING
    return f"{n:,}"
