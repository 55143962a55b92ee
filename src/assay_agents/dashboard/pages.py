"""The dashboard's pages and downloads: each a function of the request and the dashboard."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from assay_agents.dashboard import charts, params
from assay_agents.dashboard.diff import Piece, word_diff
from assay_agents.dashboard.render import link, page
from assay_agents.dashboard.security import COOKIE
from assay_agents.evaluation.browsing import ListedRun, case_detail, list_runs, trend_runs
from assay_agents.report import format as fmt
from assay_agents.results import Run, SampleResult

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

    from assay_agents.dashboard.context import Dashboard
    from assay_agents.report import Report
    from assay_agents.store.browse import CaseTally, RunLine, RunOverview


def _html(body: str, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    from starlette.responses import HTMLResponse

    return HTMLResponse(body, status_code=status, headers=headers)


# -- runs ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunRow:
    """One run in the list, its figures written once."""

    run: RunLine
    state: str
    progress: str | None
    pass_rate: str
    check_score: str
    judged: tuple[tuple[str, str], ...]
    cost: str
    outcome: str
    regressions: int | None
    revision: str | None


def _row(listed: ListedRun) -> RunRow:
    run, figures = listed.run, listed.run.figures
    progress = None
    if listed.stored is not None:
        planned = listed.planned or 0
        progress = f"{fmt.tokens(listed.stored)} of {fmt.tokens(planned)} samples"
    return RunRow(
        run=run,
        state=listed.state,
        progress=progress,
        pass_rate=fmt.MISSING
        if figures is None or figures.evaluated == 0
        else fmt.fraction(figures.passed, figures.evaluated),
        check_score=fmt.MISSING if figures is None else fmt.score(figures.check_score),
        judged=()
        if figures is None
        else tuple((name, fmt.score(mean)) for name, mean in sorted(figures.judge.items())),
        cost=fmt.MISSING
        if figures is None
        else fmt.money(figures.cost_usd, estimated=figures.cost_basis in ("estimated", "mixed")),
        outcome=fmt.MISSING if run.outcome is None else run.outcome.value,
        regressions=run.regressions,
        revision=_revision(run.metadata),
    )


def _revision(metadata: Mapping[str, Any]) -> str | None:
    for key in ("revision", "git_sha", "commit", "sha", "version"):
        value = metadata.get(key)
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value):
            return str(value)
    return None


def runs(request: Request, dashboard: Dashboard) -> Response:
    """The runs, newest first, filtered and a page at a time."""
    query = request.query_params
    where = params.run_filter(query)
    number = params.number(query, "page", 1, low=1, high=1_000_000)
    per = params.number(query, "per", params.PER_PAGE, low=1, high=params.MAX_PER_PAGE)
    found = list_runs(dashboard.store, where, offset=(number - 1) * per, limit=per)
    kept = {
        key: query.get(key) for key in ("suite", "agent", "model", "status", "from", "to", "per")
    }
    kept["meta"] = query.get("meta")
    return _html(
        page(
            request,
            "runs.html.j2",
            rows=[_row(listed) for listed in found.runs],
            names=dashboard.store.names(),
            chosen=kept,
            statuses=("running", "stale", "interrupted", "completed"),
            number=number,
            more=found.more,
            refresh=any(listed.state == "running" for listed in found.runs),
            filtered=any(kept.values()),
        )
    )


# -- one run ---------------------------------------------------------------------------------

_BODY = re.compile(r"<body[^>]*>(.*)</body>", re.DOTALL)
_SCRIPT = re.compile(r"<script>.*?</script>", re.DOTALL)
_SKIP = re.compile(r'<a class="skip"[^>]*>.*?</a>', re.DOTALL)


def report_body(html: str) -> str:
    """The HTML report's body, without its inline script (the page loads it as an asset)."""
    found = _BODY.search(html)
    body = found.group(1) if found else ""
    return _SKIP.sub("", _SCRIPT.sub("", body))


#: Cases listed on one page of a run.
CASES_PER_PAGE = 100


@dataclass(frozen=True, slots=True)
class CaseLine:
    """One case in a run's list of cases: its id, name and sample statuses.

    ``cells`` are its row of the case × model matrix: each model's cell, written as the
    report's matrix writes it, with the report's tone (``pass``, ``fail`` or ``""``).
    """

    case_id: str
    name: str
    statuses: str
    tone: str
    cells: tuple[tuple[str, str], ...]


def _case_line(tally: CaseTally, models: tuple[str | None, ...]) -> CaseLine:
    from assay_agents.report.html import cell_tone
    from assay_agents.report.view import matrix_cell

    counts = tally.statuses
    words = " · ".join(f"{count} {status}" for status, count in sorted(counts.items()))
    failing = counts.get("failed") or counts.get("error")
    tone = "fail" if failing else ("pass" if counts.get("passed") else "")
    cells = []
    for model in models:
        found = tally.models.get(model)
        text = (
            fmt.MISSING if found is None else matrix_cell(found.passed, found.samples, found.faults)
        )
        cells.append((text, cell_tone(text)))
    return CaseLine(tally.case_id, tally.name, words or "no samples", tone, tuple(cells))


@dataclass(frozen=True, slots=True)
class LaidOut:
    """A run page's report body and one page of its cases, as shown.

    ``models`` heads the case × model matrix's columns (as the report's matrix does); a run
    of one model lists its cases instead, so it has none.
    """

    body: str
    cases: tuple[CaseLine, ...]
    total: int
    models: tuple[str, ...]


def run(request: Request, dashboard: Dashboard) -> Response:
    """A run: the HTML report's reading of its summary, a page of its cases, its baseline.

    The report is read from the stored summary and comparisons, what the figures need of
    the samples counted by the store, and the samples with a fault (what to fix): the run
    is not loaded whole. Each case's evidence is on its own page. A run without a stored
    summary (still running, or interrupted) is read whole, as its figures come from it.
    """
    number = params.number(request.query_params, "cases", 1, low=1, high=1_000_000)
    offset = (number - 1) * CASES_PER_PAGE
    ref = request.path_params["run"]
    remembered = dashboard.reports.get((ref, number))
    if remembered is None:
        found = dashboard.store.run_overview(ref, offset=offset, limit=CASES_PER_PAGE)
        head, kept = found.run, _laid_out(dashboard, found)
        if head.status.value == "completed":
            # Kept by the run's id: a prefix or a handle is looked up again each time.
            dashboard.keep_report((head.id, number), (head, kept))
    else:
        head, kept = remembered
    progress = None
    if head.status.value == "running":
        stored, planned = dashboard.store.progress(head)
        progress = f"{fmt.tokens(stored)} of {fmt.tokens(planned)} samples stored"
    return _html(
        page(
            request,
            "run.html.j2",
            run=head,
            report=kept.body,
            cases=kept.cases,
            total=kept.total,
            models=kept.models,
            number=number,
            per_page=CASES_PER_PAGE,
            more=offset + len(kept.cases) < kept.total,
            progress=progress,
            refresh=progress is not None,
        )
    )


def _laid_out(dashboard: Dashboard, found: RunOverview) -> LaidOut:
    from assay_agents.report import Report
    from assay_agents.report.html import html_of
    from assay_agents.report.view import view_of

    head = found.run
    # Two models or more: the cases are the rows of the report's case × model matrix.
    columns = found.cases.models if len(found.cases.models) > 1 else ()
    cases = tuple(_case_line(tally, columns) for tally in found.cases.cases)
    headers = tuple(model or "result" for model in columns)
    stored = head.comparison
    models = None if stored is None else stored.models
    if head.summary is None or (len(head.summary.by_model) > 1 and models is None):
        # No stored summary (or no stored model comparison): the figures come from the samples.
        return LaidOut(
            report_body(Report(dashboard.store.get_run(head.id)).to_html()),
            cases,
            found.cases.total,
            headers,
        )
    items = Report(replace(head, samples=found.faulted)).fix_items
    baseline = None if stored is None else stored.baseline
    view = view_of(head, baseline, models, items, evidence=False, facts=found.facts)
    return LaidOut(report_body(html_of(view)), cases, found.cases.total, headers)


# -- one case --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SamplePair:
    """A sample of the case and the same sample (model and index) in the baseline run."""

    current: Any
    baseline: Any | None
    diff: tuple[Piece, ...] | None


def _pairs(current: Run, baseline: Run | None) -> list[SamplePair]:
    from assay_agents.report.view import sample_view

    before: dict[tuple[str | None, int], SampleResult] = {}
    if baseline is not None:
        before = {(s.model, s.sample): s for s in baseline.samples}
    pairs = []
    for sample in current.samples:
        old = before.get((sample.model, sample.sample))
        diff = None
        if old is not None and (old.answer is not None or sample.answer is not None):
            diff = tuple(word_diff(old.answer or "", sample.answer or ""))
        pairs.append(
            SamplePair(sample_view(sample), None if old is None else sample_view(old), diff)
        )
    return pairs


def case(request: Request, dashboard: Dashboard) -> Response:
    """One case: definition, every sample's evidence, the baseline beside it, its history."""
    case_id = params.required(request.query_params, "id")
    detail = case_detail(dashboard.store, request.path_params["run"], case_id)
    current = detail.run
    snapshot = current.case(case_id)
    definition = {} if snapshot is None else dict(snapshot.definition)
    return _html(
        page(
            request,
            "case.html.j2",
            run=current,
            case_id=case_id,
            name=case_id if snapshot is None else snapshot.name,
            input=definition.pop("input", None),
            reference=definition.pop("reference", None),
            definition=definition,
            fingerprint=None if snapshot is None else snapshot.fingerprint,
            pairs=_pairs(current, detail.baseline),
            baseline=detail.baseline,
            history=detail.history,
            flaky=detail.flaky,
            evidence_key=_evidence_key(),
        )
    )


def _evidence_key() -> str:
    from assay_agents.replay.evidence import EVIDENCE_KEY

    return EVIDENCE_KEY


def case_json(request: Request, dashboard: Dashboard) -> Response:
    """One case's samples as JSON, as ``assay-agents report RUN --case ID --format json`` prints."""
    import json

    from assay_agents.record import write

    case_id = params.required(request.query_params, "id")
    found = dashboard.store.run_case(request.path_params["run"], case_id)
    if found is None:
        raise LookupError(f"run {request.path_params['run']} has no case {case_id!r}")
    text = json.dumps(
        {"run_id": found.id, "case_id": case_id, "samples": write(found.samples)},
        indent=2,
        ensure_ascii=True,
    )
    return _download(request, text + "\n", f"{_slug(found)}-case-{_slug_text(case_id)}.json")


# -- trends and comparisons ------------------------------------------------------------------


def trends(request: Request, dashboard: Dashboard) -> Response:
    """Each suite's pass rate and judge criteria over its runs; a suite list without one."""
    query = request.query_params
    suite, agent = params.text(query, "suite"), params.text(query, "agent")
    limit = params.number(query, "limit", 50, low=2, high=params.MAX_TREND)
    if suite is None:
        names = dashboard.store.names()
        return _html(page(request, "trends.html.j2", suite=None, agent=None, names=names))
    found = trend_runs(dashboard.store, suite, agent, limit=limit)
    return _html(
        page(
            request,
            "trends.html.j2",
            suite=suite,
            agent=agent,
            names=dashboard.store.names(),
            chart=charts.trend(found),
            limit=limit,
        )
    )


def compare(request: Request, dashboard: Dashboard) -> Response:
    """Any two runs, paired and compared as ``assay-agents compare`` does."""
    from assay_agents.evaluation.comparing import compare as compare_runs
    from assay_agents.report.prose import verdict_lines
    from assay_agents.report.view import compared_section

    query = request.query_params
    before, after = params.text(query, "baseline"), params.text(query, "current")
    if before is None and after is None:
        return _html(page(request, "compare.html.j2", section=None, before=None, after=None))
    if before is None or after is None:
        raise params.BadParameter("?baseline and ?current name the two runs to compare")
    compared = compare_runs(dashboard.store, before, after)
    return _html(
        page(
            request,
            "compare.html.j2",
            section=compared_section(compared.comparison),
            findings=verdict_lines(compared.verdict.findings),
            before=compared.comparison.baseline_id,
            after=compared.comparison.current_id,
        )
    )


# -- downloads -------------------------------------------------------------------------------

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_TYPES = {
    "json": "application/json; charset=utf-8",
    "md": "text/markdown; charset=utf-8",
    "xml": "application/xml; charset=utf-8",
    "html": "text/html; charset=utf-8",
}


def _slug_text(text: str) -> str:
    return _UNSAFE.sub("-", text).strip("-")[:80] or "run"


def _slug(found: Run) -> str:
    number = found.number if found.number is not None else found.id[:8]
    return f"{_slug_text(found.suite)}-run-{number}"


def _download(
    request: Request, text: str, filename: str, headers: dict[str, str] | None = None
) -> Response:
    from starlette.responses import Response

    extension = filename.rsplit(".", 1)[-1]
    chosen = dict(headers or {})
    if request.query_params.get("download") == "1":
        chosen["content-disposition"] = f'attachment; filename="{filename}"'
    elif request.query_params.get("download") not in (None, "", "0"):
        raise params.BadParameter("?download: expected 1 (or 0)")
    return Response(text.encode("utf-8"), media_type=_TYPES[extension], headers=chosen)


def _report(request: Request, dashboard: Dashboard) -> Report:
    from assay_agents.report import Report

    return Report(dashboard.store.get_run(request.path_params["run"]))


def report_json(request: Request, dashboard: Dashboard) -> Response:
    """The run as ``assay-agents report RUN --format json`` prints it, byte for byte."""
    made = _report(request, dashboard)
    return _download(request, made.render("json"), f"{_slug(made.run)}.json")


def report_junit(request: Request, dashboard: Dashboard) -> Response:
    """The run as JUnit XML."""
    made = _report(request, dashboard)
    return _download(request, made.render("junit"), f"{_slug(made.run)}.xml")


_PARTS = ("verdict", "fix_items", "case")


def report_markdown(request: Request, dashboard: Dashboard) -> Response:
    """The report in Markdown, or one part of it (``?part=verdict|fix_items|case``)."""
    query = request.query_params
    part = params.text(query, "part")
    if part is not None and part not in _PARTS:
        raise params.BadParameter(f"?part={part!r}: expected one of {', '.join(_PARTS)}")
    made = _report(request, dashboard)
    name = _slug(made.run)
    if part == "verdict":
        text = made.verdict_markdown()
    elif part == "fix_items":
        text = made.fix_items_markdown(params.text(query, "model"))
    elif part == "case":
        case_id = params.required(query, "case")
        try:
            text = made.case_markdown(case_id)
        except KeyError:
            raise LookupError(f"run {made.run.id} has no case {case_id!r}") from None
    else:
        text = made.render("markdown")
    suffix = "" if part is None else f"-{part.replace('_', '-')}"
    return _download(request, text, f"{name}{suffix}.md")


def report_html(request: Request, dashboard: Dashboard) -> Response:
    """The self-contained HTML report, with the page's own policy (its inline parts hashed)."""
    made = _report(request, dashboard)
    html = made.render("html")
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', html)
    headers = {}
    if policy is not None:
        headers["content-security-policy"] = policy.group(1) + "; frame-ancestors 'none'"
    return _download(request, html, f"{_slug(made.run)}.html", headers)


# -- login -----------------------------------------------------------------------------------


def login(request: Request, dashboard: Dashboard) -> Response:
    """Spend a one-time login code: set the session cookie and go to the runs."""
    from starlette.responses import RedirectResponse

    code = request.query_params.get("code", "")
    if not dashboard.access.required:
        return RedirectResponse(link(request, ""), status_code=303)
    if not code or not dashboard.access.spend(code):
        from assay_agents.dashboard.problems import error_response

        return error_response(
            request, 401, "This login link is not valid or was used already: ask for a new one."
        )
    response = RedirectResponse(link(request, ""), status_code=303)
    response.set_cookie(
        COOKIE,
        dashboard.access.session(),
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path=(request.scope.get("root_path") or "") + "/",
    )
    return response
