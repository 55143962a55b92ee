"""A report over one run, optionally against a baseline: in memory or written to a file."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, final

from assay_agents.compare import (
    DEFAULT_DRIFT_TOLERANCE,
    DEFAULT_MAX_EXCLUDED_SHARE,
    Comparison,
    ModelComparison,
    NoiseFloor,
    StoredComparison,
    compare_runs,
)
from assay_agents.errors import ConfigurationError
from assay_agents.report._fixing import FixContext, ToolResolver, resolved_items
from assay_agents.report._markdown_fixes import fix_item_markdown, fix_items_markdown
from assay_agents.report.files import check_target, write_atomically
from assay_agents.report.formats import ReportFormat, format_for, format_named
from assay_agents.report.html import html_of, theme_named
from assay_agents.report.jsonreport import render_json, report_dict
from assay_agents.report.markdown import case_markdown, render_markdown, verdict_markdown
from assay_agents.report.text import render_text
from assay_agents.report.view import ReportView, model_comparison_of, view_of
from assay_agents.results import Run
from assay_agents.results.baseline import BaselineChoice, BaselineReason
from assay_agents.results.costs import case_costs
from assay_agents.results.fixes import FixItem


@final
class Report:
    """A run's report: its figures, its comparisons, each sample's evidence.

    The comparison is computed against ``baseline`` when one is given (with the tolerances,
    exclusion ceiling and noise floor given here); otherwise it is the one stored with the
    completed run, if any. The model comparison is the one stored with the run, computed only
    for a run that has none stored and ran two or more models. Every format carries the same
    reading in the same order: header, summary, model comparison, comparison, cases.

    >>> Report(run, baseline=previous, tolerance=0.02).export("reports/run.md")  # doctest: +SKIP
    """

    def __init__(
        self,
        run: Run,
        *,
        baseline: Run | None = None,
        tolerance: float = 0.0,
        drift_tolerance: float = DEFAULT_DRIFT_TOLERANCE,
        max_excluded_share: float = DEFAULT_MAX_EXCLUDED_SHARE,
        noise_floor: NoiseFloor | None = None,
        tool_resolver: ToolResolver | None = None,
        agent_name: str | None = None,
        links: Mapping[str, str] | None = None,
    ) -> None:
        self.run = run
        self._fixing = FixContext(tool_resolver, agent_name or "the agent", dict(links or {}))
        recorded = run.comparison or StoredComparison()
        stored, models = recorded.baseline, recorded.models
        if baseline is not None:
            stored = compare_runs(
                baseline,
                run,
                tolerance=tolerance,
                drift_tolerance=drift_tolerance,
                max_excluded_share=max_excluded_share,
                noise_floor=noise_floor,
            )
            self.run = _compared_with(run, baseline.id)
        self.comparison: Comparison | None = stored
        self.model_comparison: ModelComparison | None = models or model_comparison_of(run)

    @property
    def fix_items(self) -> list[FixItem]:
        """What to fix: one item per fault kind and per distinct instruction change.

        In recommendation order; each names its cases and models, the count, the
        recommendation, the quoted instruction change and the tools involved under a label
        that says which, with the server behind each tool and an action when the report was
        given ``tool_resolver`` and ``links``.
        """
        return resolved_items(self.run.samples, self._fixing)

    @property
    def case_costs(self) -> list[dict[str, Any]]:
        """Each case's cost across models, the judge's, their total and whether estimated.

        One entry per case (``case_id``, ``cost_usd``, ``judge_cost_usd``, ``total_usd``,
        ``estimated``) with the same figures per model label under ``by_model``. The run's
        own judge calls (the verdict) belong to no case: with ``run.judge_usage`` the cases'
        totals add up to the summary's ``total_cost_usd``.
        """
        return case_costs(self.run.samples)

    def verdict_markdown(self) -> str:
        """The verdict, the per-model table it rests on and the model comparison (Markdown)."""
        return verdict_markdown(self.run, self.model_comparison)

    def fix_items_markdown(self, model: str | None = None) -> str:
        """``## What to fix`` in Markdown, for the whole run or one model's samples."""
        return fix_items_markdown(resolved_items(self.run.samples, self._fixing, model))

    def fix_item_markdown(self, item: FixItem) -> str:
        """One fix item in Markdown, as the What to fix section shows it."""
        return fix_item_markdown(item)

    def case_markdown(self, case_id: str) -> str:
        """One case with every model's result, in Markdown; ``KeyError`` for an unknown id."""
        return case_markdown(self.run, case_id)

    def view(self) -> ReportView:
        """The typed reading every format renders (see :mod:`assay_agents.report.view`)."""
        return view_of(self.run, self.comparison, self.model_comparison, self.fix_items)

    def to_text(self) -> str:
        """Render the plain-text report, for terminals and CI logs."""
        return render_text(self.run, self.comparison, self.model_comparison, self.fix_items)

    def to_markdown(self) -> str:
        """Render the GitHub-flavoured Markdown report."""
        return render_markdown(self.run, self.comparison, self.model_comparison, self.fix_items)

    def to_html(self, theme: str = "system") -> str:
        """Render the self-contained HTML page; ``theme`` is ``system``, ``light`` or ``dark``."""
        return html_of(self.view(), theme)

    def to_json(self) -> str:
        """Render :meth:`to_dict` as indented JSON text (non-ASCII characters kept as they are)."""
        return render_json(self.run, self.comparison, self.model_comparison, self.fix_items)

    def to_dict(self) -> dict[str, Any]:
        """Return the run snapshot at the top level (not wrapped), plus the comparisons.

        These keys are public interface:

        * ``id``, ``sequence``, ``suite``, ``suite_version``, ``agent``, ``fingerprint``
          (in full), ``status`` (``running`` / ``completed`` / ``interrupted``),
          ``started_at`` / ``finished_at`` (ISO 8601, ``finished_at`` null until finished),
          ``settings``, ``metadata``, ``baseline_id`` (the baseline this report compares
          with: the one stored with the run, or the one given as ``baseline``),
          ``baseline`` (which baseline and why: ``reason``, ``run_id``, ``where``, ``note``,
          ``hint``;
          ``reason`` is ``explicit`` when ``baseline`` is another run than the stored one),
          ``outcome`` (``passed``, ``failed``, ``regressed``, ``errored`` or ``unchecked``;
          null for a run stored before outcomes were kept).
        * ``summary``: null while no summary is stored; else ``samples``, ``passed``,
          ``failed``, ``errors``, ``not_evaluated``, ``pass_rate`` and ``check_score`` (0..1,
          null when nothing was evaluated), ``cases``, ``cases_passed``, ``input_tokens``,
          ``output_tokens``, ``cost_usd``, ``priced``, ``unpriced``, ``latency_avg_ms``,
          ``latency_p50_ms``, ``latency_p95_ms``, ``judge`` (criterion → ``mean``,
          ``samples``, ``passed``, ``errors``, ``mean_vote_spread``), ``by_model``
          (model → the same figures) and ``run_judge_usage``; the judge figures
          (``judge_calls``, ``judge_cost_usd``, ``total_cost_usd``) count every judge call,
          the run's own (the verdict's) included, a model's only its samples'.
        * ``cases[]``: ``id``, ``name``, ``position``, ``fingerprint``, ``definition`` (the
          case as the run defined it).
        * ``samples[]``: ``case_id``, ``model``, ``sample``, ``status``, ``answer``,
          ``actions`` (null = not instrumented, ``[]`` = none; each ``group``, ``name``,
          ``arguments``, ``result``, ``error``, ``result_bytes``), ``observation``, ``usage``,
          ``duration_ms``, ``error``, ``metadata`` and ``metrics[]`` (``name``, ``kind``,
          ``category``, ``threshold``, ``score``, ``passed``, ``reason``, ``error``,
          ``votes``).
        * ``comparison``: null without a baseline; else, in this order, ``summary`` (the
          pairing line), ``baseline_id``, ``current_id``, ``pairing`` (``paired``,
          ``compared``, ``excluded``, ``excluded_share``, ``max_excluded_share``,
          ``only_in_baseline``, ``only_in_current``), ``corpus_defects[]``, ``headline``
          (``status`` ``withheld`` with only a ``reason``, or ``measured`` with
          ``pass_rate_before``, ``pass_rate_after``, ``delta``, ``noise`` and the counts),
          ``excluded[]`` and ``intended_changes[]`` (``case_id``, ``model``, ``pairing``,
          ``parts[]``), ``policy``, ``noise_floor``, ``too_flaky``, ``regressions`` and
          ``signal_regressions`` (counts) and ``changes[]`` (``kind``, ``case_id``,
          ``model``, ``metric``, ``metric_kind``, ``category``, ``before``, ``after``,
          ``detail``, ``movement``, ``noise``).
        * ``verdict`` (the judge's pick of the best model: ``model``, ``rationale``,
          ``judge``; null without one), ``judge_usage`` (judge calls no sample owns), each
          sample's ``fault``, ``recommendation`` and ``diagnosis`` (``tools``,
          ``tools_label``, ``refinement``), and ``fix_items[]`` (see :attr:`fix_items`).
        * ``behaviours[]``: per case and model with two or more evaluated samples, as the
          text and Markdown reports show them: ``case_id``, ``model``, ``samples``,
          ``behaviours`` (distinct deterministic signatures) and ``checks_passed``.
        * ``model_comparison``: null with fewer than two models; else ``resamples``,
          ``seed``, ``confidence``, ``power``, ``models[]`` (``model``, ``cases``,
          ``pass_rate``, ``interval``), ``pairs[]`` (``models``, ``cases``, ``difference``,
          ``interval``, ``decisive``, ``detectable``, ``cases_needed``) and ``conclusion``.
        """
        return report_dict(self.run, self.comparison, self.model_comparison, self.fix_items)

    def render(self, format: str, *, theme: str | None = None) -> str:
        """Render the report in the format called ``format`` (``theme``: see :meth:`export`).

        A built-in one (:data:`FORMATS`) or one another package installed under the
        ``assay.report_formats`` entry point group (see :mod:`assay_agents.report.formats`).
        """
        return themed(format_named(format), theme).report(self.view())

    def export(
        self, path: str | Path, format: str | None = None, *, theme: str | None = None
    ) -> Path:
        """Write the report to ``path`` and return it.

        ``format`` overrides the extension (``.txt``/``.text``, ``.md``/``.markdown``,
        ``.json``, ``.xml`` for JUnit, ``.html``/``.htm``); ``theme`` chooses the HTML page's
        (``system`` by default). An unknown format, extension or theme (or a theme for another
        format than HTML), a path in a folder that does not exist or refuses a new file, and a
        folder given as the path raise :class:`~assay_agents.errors.ConfigurationError` naming it
        before anything is written. A write that fails after that (a full disk) raises
        :class:`OSError` with ``path`` as its ``filename``. An existing file is replaced whole
        (written beside it, then renamed over it): never left half-written.
        """
        target = Path(path)
        chosen = themed(format_for(target, format), theme)
        check_target(target)
        content = chosen.report(self.view())
        # Files end with a newline so they diff and concatenate cleanly; JSON text has none.
        return write_atomically(target, [content if content.endswith("\n") else content + "\n"])


def themed(chosen: ReportFormat, theme: str | None) -> ReportFormat:
    """``chosen`` rendering in ``theme`` (``None``: its default); only HTML has themes.

    An unknown theme, or one for another format, is a :class:`ConfigurationError`.
    """
    if theme is None:
        return chosen
    checked = theme_named(theme)
    if chosen.name != "html":
        raise ConfigurationError(
            f"a theme applies to the html report format only, not to {chosen.name}"
        )
    return replace(chosen, render=partial(html_of, theme=checked))


def _compared_with(run: Run, baseline_id: str) -> Run:
    """``run`` as a report against ``baseline_id`` states it: every format names that baseline.

    Another run than the one it was compared with when it completed is an explicit choice;
    the stored one keeps the reason it was chosen for.
    """
    if run.baseline_id == baseline_id:
        return run
    return replace(
        run,
        baseline_id=baseline_id,
        baseline_choice=BaselineChoice(BaselineReason.EXPLICIT, baseline_id),
    )


def render(run: Run, format: str, *, baseline: Run | None = None, tolerance: float = 0.0) -> str:
    """Render ``run`` in one format (``text``, ``markdown``, ``json``; aliases ``txt``, ``md``)."""
    return Report(run, baseline=baseline, tolerance=tolerance).render(format)
