"""Checks on the answer's text: presence, exact match, containment, patterns, JSON, length.

A failing content check says how the answer begins (:func:`answer_start`), so the line that
reports it shows what the agent said without opening the sample.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

from assay_agents.checks import _values
from assay_agents.checks.base import Check, CheckContext, CheckError, Verdict
from assay_agents.spec import JSON
from assay_agents.text import blank, one_line

_NO_ANSWER = Verdict(0.0, "the agent gave no answer")
_EMPTY_ANSWER = Verdict(0.0, "the agent gave an empty answer")
#: How much of the answer a failing content check's reason shows.
ANSWER_START = 80


def answer_start(answer: str, limit: int = ANSWER_START) -> str:
    """``the answer begins “…”``: its first ``limit`` characters, on one line, made visible.

    The answer is untrusted: control and bidirectional characters are written as escapes
    and line breaks folded, so the reason is safe on any surface that shows it.
    """
    text = answer.strip()
    shown = one_line(text[:limit]).rstrip() + ("…" if len(text) > limit else "")
    return f"the answer begins “{shown}”"


def _failing(check: Check, score: float, reason: str, answer: str) -> Verdict:
    """A verdict whose reason, when it falls short, also shows how the answer begins."""
    short = score < check.threshold
    return Verdict(score, f"{reason}; {answer_start(answer)}" if short else reason)


def _missing(answer: str | None) -> Verdict:
    """The failing verdict every content rule gives an absent or blank answer.

    An empty answer is not evidence of anything, so it fails every content rule,
    ``not_contains`` included: saying nothing is not avoiding the forbidden text.
    """
    return _NO_ANSWER if answer is None else _EMPTY_ANSWER


@dataclass(frozen=True, kw_only=True)
class ResponsePresent(Check):
    """The agent gave an answer that is not blank."""

    category: ClassVar[str] = "content"
    factory: ClassVar[str] = "response_present"

    def evaluate(self, ctx: CheckContext) -> Verdict:
        """Look for an answer that shows something: invisible characters alone are blank."""
        if ctx.answer is None or blank(ctx.answer):
            return _missing(ctx.answer)
        return Verdict(1.0, f"answered ({len(ctx.answer.strip()):,} characters)")


@dataclass(frozen=True, kw_only=True)
class ExactMatch(Check):
    """The answer equals the case's expected answer after the chosen normalisation."""

    category: ClassVar[str] = "content"
    factory: ClassVar[str] = "exact_match"
    needs_reference: ClassVar[bool] = True
    strip: bool = True
    ignore_case: bool = False
    collapse_whitespace: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        for setting in ("strip", "ignore_case", "collapse_whitespace"):
            _values.flag(self.name, setting, getattr(self, setting))

    def normalise(self, text: str) -> str:
        """Apply the normalisation options in a fixed order."""
        if self.collapse_whitespace:
            text = " ".join(text.split())
        if self.strip:
            text = text.strip()
        if self.ignore_case:
            text = text.casefold()
        return text

    def evaluate(self, ctx: CheckContext) -> Verdict:
        """Compare the normalised answer with the normalised reference."""
        reference = ctx.case.reference
        if not isinstance(reference, str):
            raise CheckError("exact_match needs the case's expected answer as a string")
        if ctx.answer is None or not ctx.answer.strip():
            return _missing(ctx.answer)
        if self.normalise(ctx.answer) == self.normalise(reference):
            return Verdict(1.0, "matches the expected answer")
        return Verdict(0.0, f"expected {_quote(reference)}, got {_quote(ctx.answer)}")


@dataclass(frozen=True, kw_only=True)
class Contains(Check):
    """The answer contains ``text``."""

    category: ClassVar[str] = "content"
    factory: ClassVar[str] = "contains"
    text: str
    ignore_case: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        _values.text(self.name, "text", self.text)
        _values.flag(self.name, "ignore_case", self.ignore_case)

    def evaluate(self, ctx: CheckContext) -> Verdict:
        """Search the answer for the text."""
        if ctx.answer is None or not ctx.answer.strip():
            return _missing(ctx.answer)
        found = _contains(ctx.answer, self.text, self.ignore_case)
        return _failing(
            self,
            float(found),
            f"{'contains' if found else 'does not contain'} {_quote(self.text)}",
            ctx.answer,
        )


@dataclass(frozen=True, kw_only=True)
class NotContains(Contains):
    """The answer does not contain ``text``: the same search, the opposite verdict."""

    factory: ClassVar[str] = "not_contains"

    def evaluate(self, ctx: CheckContext) -> Verdict:
        """Search the answer for the forbidden text."""
        if ctx.answer is None or not ctx.answer.strip():
            # No answer fails both: it is not evidence of avoiding anything.
            return _missing(ctx.answer)
        found = _contains(ctx.answer, self.text, self.ignore_case)
        return _failing(
            self,
            float(not found),
            f"{'contains' if found else 'does not contain'} {_quote(self.text)}",
            ctx.answer,
        )


@dataclass(frozen=True, kw_only=True)
class Regex(Check):
    """The answer matches ``pattern`` somewhere (``re.search``), or wholly with ``full``."""

    category: ClassVar[str] = "content"
    factory: ClassVar[str] = "regex"
    pattern: str
    ignore_case: bool = False
    full: bool = False
    _compiled: re.Pattern[str] = field(init=False, repr=False, compare=False)
    _private: ClassVar[frozenset[str]] = frozenset({"_compiled"})

    def __post_init__(self) -> None:
        super().__post_init__()
        _values.text(self.name, "pattern", self.pattern)
        _values.flag(self.name, "ignore_case", self.ignore_case)
        _values.flag(self.name, "full", self.full)
        try:
            compiled = re.compile(self.pattern, re.IGNORECASE if self.ignore_case else 0)
        except re.error as error:
            raise _values.refuse(
                self.name,
                f"pattern must be a valid regular expression {_values.got(self.pattern)}: {error}",
            ) from None
        object.__setattr__(self, "_compiled", compiled)

    def evaluate(self, ctx: CheckContext) -> Verdict:
        """Match the answer against the pattern."""
        if ctx.answer is None or not ctx.answer.strip():
            return _missing(ctx.answer)
        match = (self._compiled.fullmatch if self.full else self._compiled.search)(ctx.answer)
        return _failing(
            self,
            float(match is not None),
            f"{'matches' if match else 'does not match'} /{self.pattern}/",
            ctx.answer,
        )


@dataclass(frozen=True, kw_only=True)
class ValidJson(Check):
    """The answer parses as JSON."""

    category: ClassVar[str] = "content"
    factory: ClassVar[str] = "valid_json"

    def evaluate(self, ctx: CheckContext) -> Verdict:
        """Parse the answer."""
        if ctx.answer is None or not ctx.answer.strip():
            return _missing(ctx.answer)
        try:
            json.loads(ctx.answer)
        except ValueError as error:
            return _failing(self, 0.0, f"not valid JSON: {error}", ctx.answer)
        return Verdict(1.0, "valid JSON")


@dataclass(frozen=True, kw_only=True)
class JsonSchema(Check):
    """The answer parses as JSON and validates against ``schema``."""

    category: ClassVar[str] = "content"
    factory: ClassVar[str] = "json_schema"
    schema: dict[str, JSON]

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.schema, dict):
            raise _values.refuse(
                self.name, f"schema must be a JSON object (a mapping) {_values.got(self.schema)}"
            )
        import jsonschema

        try:
            jsonschema.validators.validator_for(self.schema).check_schema(self.schema)
        except jsonschema.SchemaError as error:
            raise _values.refuse(
                self.name, f"schema must be a valid JSON Schema: {error.message}"
            ) from None

    def evaluate(self, ctx: CheckContext) -> Verdict:
        """Parse and validate the answer, naming the first violation."""
        import jsonschema

        if ctx.answer is None or not ctx.answer.strip():
            return _missing(ctx.answer)
        try:
            document: Any = json.loads(ctx.answer)
        except ValueError as error:
            return _failing(self, 0.0, f"not valid JSON: {error}", ctx.answer)
        validator = jsonschema.validators.validator_for(self.schema)(self.schema)
        violation = jsonschema.exceptions.best_match(validator.iter_errors(document))
        if violation is None:
            return Verdict(1.0, "valid against the schema")
        where = "/".join(str(part) for part in violation.absolute_path) or "(root)"
        return _failing(self, 0.0, f"{where}: {violation.message}", ctx.answer)


@dataclass(frozen=True, kw_only=True)
class MinLength(Check):
    """The answer has at least ``characters`` characters (after stripping).

    Scored by degree: actual ÷ required when short (30 of 60 characters scores 0.5), 1.0 at
    or over; only 1.0 passes by default. The minimum is at least 1 character.
    """

    category: ClassVar[str] = "content"
    factory: ClassVar[str] = "min_length"
    characters: int

    def __post_init__(self) -> None:
        super().__post_init__()
        _values.count(self.name, "characters", self.characters)

    def evaluate(self, ctx: CheckContext) -> Verdict:
        """Measure the stripped answer."""
        if ctx.answer is None or not ctx.answer.strip():
            return _missing(ctx.answer)
        length = len(ctx.answer.strip())
        score = 1.0 if length >= self.characters else length / self.characters
        return _failing(self, score, f"{length} characters (minimum {self.characters})", ctx.answer)


def _contains(answer: str, text: str, ignore_case: bool) -> bool:
    return text.casefold() in answer.casefold() if ignore_case else text in answer


def _quote(text: str, limit: int = 120) -> str:
    shown = text if len(text) <= limit else text[: limit - 1] + "…"
    return repr(shown)
