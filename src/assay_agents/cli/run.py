"""``assay-agents run``: execute a suite, persist it, compare it with its baseline, gate on it."""

from __future__ import annotations

import contextlib
import os
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from assay_agents.errors import AssayError, ConfigurationError
from assay_agents.exit_codes import exit_code_for
from assay_agents.limits import option_range

if TYPE_CHECKING:
    from assay_agents.evaluation import Evaluation, EvaluationArgs
    from assay_agents.exit_codes import ExitCode
    from assay_agents.report import ReportFormat

from assay_agents.cli._common import (
    GATING,
    JUDGING,
    MODELS,
    OUTPUT,
    STORAGE,
    ConcurrencyOption,
    DbOption,
    JudgeBaseUrlOption,
    JudgeOption,
    JudgeTimeoutOption,
    MetadataOption,
    ModelOption,
    QuietOption,
    SamplesOption,
    SuiteOption,
    TimeoutOption,
    VotesOption,
    database_url,
    db_words,
    metadata_option,
    resume_command,
    typed_db_words,
    user_errors,
)
from assay_agents.cli._files import (
    AgentOption,
    CaseOption,
    GateOption,
    GroupOption,
    HarnessOption,
    ProductionOption,
    ProductOption,
    SampleConcurrencyOption,
    SetOption,
)
from assay_agents.cli.baseline import WHERE_HELP, where_option
from assay_agents.cli.cache import CacheModelCallsOption, CacheOption
from assay_agents.text import visible


def run_command(
    spec: Annotated[
        Path,
        typer.Argument(
            help="A Python file defining assay.Suite(s), a YAML suite or catalog, a directory of "
            "TOML/JSON item files, or a text file of pasted scenarios."
        ),
    ],
    suite: SuiteOption = None,
    product: ProductOption = None,
    set_: SetOption = None,
    group: GroupOption = None,
    case: CaseOption = None,
    include_production_only: ProductionOption = False,
    agent: AgentOption = None,
    harness: HarnessOption = None,
    samples: SamplesOption = None,
    concurrency: ConcurrencyOption = None,
    model: ModelOption = None,
    timeout: TimeoutOption = None,
    sample_concurrency: SampleConcurrencyOption = None,
    executor: Annotated[
        str,
        typer.Option(
            help="Where the samples execute: local (this process) or ray (a task each on a Ray "
            "cluster; needs the ray extra).",
            rich_help_panel=MODELS,
        ),
    ] = "local",
    ray_address: Annotated[
        str | None,
        typer.Option(
            help="With --executor ray: the cluster (auto for the one ray start runs here, "
            "HOST:PORT for a cluster's GCS, ray://HOST:10001 for a remote one through Ray "
            "Client); connected to before the run is stored.",
            show_default="a local cluster for this run",
            rich_help_panel=MODELS,
        ),
    ] = None,
    concurrency_floor: Annotated[
        int | None,
        typer.Option(
            **option_range("concurrency_floor"),
            help="Rate limits (429, 503, 529) halve a model's samples in flight, never below this.",
            show_default="1",
            rich_help_panel=MODELS,
        ),
    ] = None,
    concurrency_ceiling: Annotated[
        int | None,
        typer.Option(
            **option_range("concurrency_ceiling"),
            help="Successes raise a model's samples in flight by one, never above this.",
            show_default="the starting concurrency",
            rich_help_panel=MODELS,
        ),
    ] = None,
    rate_limit_retries: Annotated[
        int | None,
        typer.Option(
            **option_range("rate_limit_retries"),
            help="Retries one sample may make after rate limits and transient failures.",
            show_default="6",
            rich_help_panel=MODELS,
        ),
    ] = None,
    judge: JudgeOption = None,
    judge_base_url: JudgeBaseUrlOption = None,
    judge_timeout: JudgeTimeoutOption = None,
    votes: VotesOption = None,
    cache: CacheOption = None,
    cache_model_calls: CacheModelCallsOption = False,
    judge_limit: Annotated[
        int | None,
        typer.Option(
            **option_range("judge_limit"),
            help="Judge calls a run may spend refining recommendations (default 25; 0 keeps the "
            "mechanical ones).",
            rich_help_panel=JUDGING,
        ),
    ] = None,
    baseline: Annotated[
        str | None,
        typer.Option(
            help="Compare with this run (it must be completed and compatible).",
            rich_help_panel=GATING,
        ),
    ] = None,
    baseline_where: Annotated[
        list[str] | None, typer.Option("--baseline-where", help=WHERE_HELP, rich_help_panel=GATING)
    ] = None,
    fail_on_regression: Annotated[
        bool,
        typer.Option(
            "--fail-on-regression",
            help="Exit 1 on signal regressions against the baseline "
            "(beyond the latest control run's noise floor, or "
            "unmeasured).",
            rich_help_panel=GATING,
        ),
    ] = False,
    tolerance: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=1.0,
            help="Score decrease allowed before it counts as a regression.",
            rich_help_panel=GATING,
        ),
    ] = 0.0,
    drift_tolerance: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=1.0,
            help="Judge-score movement (0–1 scale) below which it is not drift; "
            "independent of --tolerance.",
            rich_help_panel=GATING,
        ),
    ] = 0.025,
    allow_unchecked: Annotated[
        bool,
        typer.Option(
            "--allow-unchecked",
            help="Let a run in which no sample was evaluated (nothing was "
            "checked) exit 0; by default it exits 1.",
            rich_help_panel=GATING,
        ),
    ] = False,
    gate: GateOption = None,
    report: Annotated[
        list[Path] | None,
        typer.Option(
            help="Also write a report here (.txt, .md, .json, .xml for JUnit, or .html); "
            "repeat it for several.",
            rich_help_panel=OUTPUT,
        ),
    ] = None,
    theme: Annotated[
        str | None,
        typer.Option(
            help="The --report HTML page's theme: light, dark or system (the viewer's preference).",
            show_default="system",
            rich_help_panel=OUTPUT,
        ),
    ] = None,
    summary: Annotated[
        Path | None,
        typer.Option(
            help="Append the job summary (Markdown: the verdict, the gate and why, what to fix) "
            "to this file, as $GITHUB_STEP_SUMMARY is on GitHub Actions.",
            rich_help_panel=OUTPUT,
        ),
    ] = None,
    quiet: QuietOption = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="List everything: every sample, passing ones too, and every "
            "change (by default each list shows 20 and counts the rest).",
            rich_help_panel=OUTPUT,
        ),
    ] = False,
    trace: Annotated[
        bool | None,
        typer.Option(
            "--trace/--no-trace",
            help="Export the run's spans (a span per run, sample and judge call) by OTLP as the "
            "OTEL_* environment says (needs opentelemetry-exporter-otlp), or to --trace-file. "
            "By default a run is traced when the suite's code set a tracer provider; --no-trace "
            "never traces it. The configuration's trace key sets the default.",
            rich_help_panel=OUTPUT,
        ),
    ] = None,
    trace_file: Annotated[
        Path | None,
        typer.Option(
            help="With --trace: append the spans to this file as JSON lines instead of OTLP.",
            rich_help_panel=OUTPUT,
        ),
    ] = None,
    db: DbOption = None,
    metadata: MetadataOption = None,
    revision: Annotated[
        str | None,
        typer.Option(
            help="The revision of the agent this run scores (by default the git commit of the "
            "repository holding the suite, marked dirty with uncommitted changes).",
            rich_help_panel=STORAGE,
        ),
    ] = None,
    release_label: Annotated[
        str | None,
        typer.Option(
            help="A label for the release this run scores (v2.3, canary): shown in reports, "
            "filtered by assay-agents history --label.",
            rich_help_panel=STORAGE,
        ),
    ] = None,
    resume: Annotated[
        str | None,
        typer.Option(
            help="Finish an interrupted run: execute only its missing samples.",
            rich_help_panel=STORAGE,
        ),
    ] = None,
    store_retry: Annotated[
        float | None,
        typer.Option(
            **option_range("store_retry"),
            help="Seconds to keep retrying a failing store before the run stops as interrupted "
            "(exit 3).",
            show_default="60",
            rich_help_panel=STORAGE,
        ),
    ] = None,
    lease_timeout: Annotated[
        float | None,
        typer.Option(
            **option_range("lease_timeout"),
            help="With --resume: take over a running run whose heartbeat is older than this many "
            "seconds (15 or more: three heartbeats, 5 s apart or ASSAY_HEARTBEAT_INTERVAL).",
            show_default="60",
            rich_help_panel=STORAGE,
        ),
    ] = None,
    record: Annotated[
        bool,
        typer.Option(
            "--record",
            help="Let each case's agent reach the network and write its HTTP calls as replay "
            "fixtures (one JSON file per case, in --fixtures).",
            rich_help_panel=REPLAY,
        ),
    ] = False,
    replay: Annotated[
        bool,
        typer.Option(
            "--replay",
            help="Replay each case from the fixtures --record wrote (strict: no network).",
            rich_help_panel=REPLAY,
        ),
    ] = False,
    fixtures: Annotated[
        Path | None,
        typer.Option(
            help="The folder of recorded fixtures.",
            show_default="recorded/SUITE beside the suite file",
            rich_help_panel=REPLAY,
        ),
    ] = None,
    redact: Annotated[
        list[str] | None,
        typer.Option(
            "--redact",
            metavar="PATTERN",
            help="With --record: also hide what this regular expression matches (repeatable).",
            rich_help_panel=REPLAY,
        ),
    ] = None,
) -> None:
    """Run a suite, persist every sample, and compare it with its baseline.

    Exit codes: 0 nothing failed, 1 failed or errored samples, a failed gate, a gated
    regression or nothing checked, 2 bad input, 3 the run could not be completed (kept
    interrupted; resume it), 130/143/129 interrupted by Ctrl-C, SIGTERM or SIGHUP
    (resumable).
    """
    from assay_agents.cli._files import open_for_run, resolve_gate, selection_of

    started = time.monotonic()
    with user_errors():
        selection = selection_of(
            suite=suite,
            product=product,
            set_=set_,
            group=group,
            case=case,
            include_production_only=include_production_only,
            agent=agent,
            harness=harness,
        )
        _machinery()
        # The project's configuration fills what neither a flag nor the suite sets.
        chosen, judged_by, config = open_for_run(
            spec,
            selection,
            judge=judge,
            judge_base_url=judge_base_url,
            judge_timeout=judge_timeout,
        )
        chosen, recording = _recorded(chosen, spec, record=record, replay=replay, folder=fixtures)
        if redact and not record:
            raise ConfigurationError("--redact needs --record")
        reports = _check_report_paths(report or [], theme)
        summaries = _summary_files(summary)
        chosen_executor = _executor(executor, ray_address)
        run_id = resume or str(uuid.uuid4())
        options: EvaluationArgs = {
            "metadata": metadata_option(metadata),
            "samples": samples,
            "concurrency": concurrency,
            "models": model or None,
            "timeout": timeout,
            "baseline": baseline,
            "baseline_where": where_option(baseline_where, config, baseline),
            "tolerance": tolerance,
            "drift_tolerance": drift_tolerance,
            "resume": resume,
            "votes": votes,
            "judge": judged_by,
            "sample_concurrency": sample_concurrency,
            "gate": resolve_gate(chosen, gate or ()),
            "fail_on_regression": fail_on_regression,
            "allow_unchecked": allow_unchecked,
            "store_retry": store_retry,
            "lease_timeout": lease_timeout,
            "run_id": run_id,
            "judge_limit": judge_limit,
            "record": recording,
            "trace": _tracing(trace, trace_file, config.trace),
            "record_redact": redact,
            "cache": cache if cache is not None else config.cache,
            "executor": chosen_executor,
            "concurrency_floor": concurrency_floor,
            "concurrency_ceiling": concurrency_ceiling,
            "rate_limit_retries": rate_limit_retries,
            "release": _release(revision, release_label),
            "cache_model_calls": cache_model_calls,
        }
        from assay_agents.cli._warnings import print_unchecked

        print_unchecked(
            chosen,
            judged=options["judge"] is not None or chosen.judge is not None,
            judge_hint="give the run --judge MODEL",
        )
        with _exported(options["trace"], trace_file):
            evaluation = _execute(chosen, options, database_url(db), quiet, run_id)
        if recording is not None:
            _say_recorded(evaluation.run.samples, recording)
    with _signals_held():
        code = _finish(
            evaluation,
            reports,
            verbose=verbose,
            started=started,
            db=db,
            summaries=summaries,
            theme=theme,
        )
    raise typer.Exit(code)


REPLAY = "Replay"


def _machinery() -> None:
    """Load what every run needs before the suite's own code, and set it aside.

    It lives until the process exits: set aside (:func:`assay_agents.startup.set_aside`), the
    collector neither walks it while samples run nor tears it down at exit. The suite's code
    comes after, and what it leaves at exit is finalised as Python does it (a file it left
    open is flushed).
    """
    import assay_agents.cli._render
    import assay_agents.evaluation.api
    import assay_agents.evaluation.loop
    import assay_agents.report.prose
    import assay_agents.runner.progress
    import assay_agents.store.store  # noqa: F401
    from assay_agents.results.pricing import load_catalogue
    from assay_agents.startup import set_aside

    load_catalogue()
    set_aside()


def _executor(name: str, address: str | None) -> Any:
    """The executor ``--executor`` names (``None``: the local one), ``--ray-address`` with it."""
    if name not in ("local", "ray"):
        raise ConfigurationError(f"--executor {name!r}: choose local or ray")
    if name == "local":
        if address is not None:
            raise ConfigurationError("--ray-address needs --executor ray")
        return None
    from assay_agents.ray import RayExecutor, address_error, require_ray

    problem = None if address is None else address_error(address)
    if problem is not None:
        raise ConfigurationError(f"--ray-address {address!r}: {problem}")
    require_ray()
    return RayExecutor(address=address)


def _release(revision: str | None, label: str | None) -> dict[str, str] | None:
    """``--revision`` and ``--release-label`` as ``release=`` takes them (git fills the rest)."""
    given = {"revision": revision, "label": label}
    return {key: value for key, value in given.items() if value is not None} or None


def _recorded(
    suite: Any, spec: Path, *, record: bool, replay: bool, folder: Path | None
) -> tuple[Any, Path | None]:
    """The suite to run and the folder to record into, from --record, --replay, --fixtures."""
    if record and replay:
        raise ConfigurationError("--record and --replay exclude each other; choose one")
    if not (record or replay):
        if folder is not None:
            raise ConfigurationError("--fixtures needs --record or --replay")
        return suite, None
    from assay_agents.spec.fixtures import fixture_file

    if folder is None:
        base = spec.parent if spec.is_file() else spec
        folder = fixture_file(base / "recorded", suite.name).with_suffix("")
    if record:
        return suite, folder
    from assay_agents.load.recorded import replaying

    return replaying(suite, folder), None


def _say_recorded(samples: Any, folder: Path) -> None:
    """Say where the fixtures went, and which cases could not be recorded."""
    from assay_agents.replay.recording import RECORD_KEY

    notes = [sample.metadata.get(RECORD_KEY) for sample in samples]
    written = [note for note in notes if isinstance(note, dict) and "error" not in note]
    print(f"recorded: {len(written)} fixture file(s) in {visible(str(folder))}", file=sys.stderr)
    for sample, note in zip(samples, notes, strict=True):
        if isinstance(note, dict) and "error" in note:
            why = visible(str(note["error"]))
            print(f"not recorded: case {visible(sample.case_id)!r}: {why}", file=sys.stderr)


def _tracing(flag: bool | None, file: Path | None, configured: bool | None) -> bool | None:
    """Whether the run exports its spans: the flag, else ``--trace-file``, else the config."""
    if flag is False and file is not None:
        raise ConfigurationError("--trace-file needs tracing; drop --no-trace")
    if flag is not None:
        return flag
    return True if file is not None else configured


@contextlib.contextmanager
def _exported(trace: bool | None, file: Path | None) -> Iterator[None]:
    """Export the spans while the run executes (with ``--trace``), flushed at its end."""
    if trace is not True:
        yield
        return
    try:
        from assay_agents.otel.export import export_spans
    except ImportError as error:
        raise ConfigurationError(
            f"--trace needs OpenTelemetry ({error}); install it with "
            "pip install 'assay-agents[otel]'"
        ) from None
    stop = export_spans(file)
    try:
        yield
    finally:
        stop()


def _execute(
    suite: Any, options: EvaluationArgs, url: str | None, quiet: bool, run_id: str
) -> Evaluation:
    from assay_agents.errors import IncompleteRunError, StoreUnavailableError, Terminated
    from assay_agents.evaluation import evaluate_async
    from assay_agents.evaluation.loop import run_sync
    from assay_agents.runner.progress import default_progress

    try:
        return run_sync(evaluate_async(suite, db=url, progress=default_progress(quiet), **options))
    except (KeyboardInterrupt, Terminated) as stop:
        _signalled("interrupted" if isinstance(stop, KeyboardInterrupt) else str(stop), run_id, url)
        raise typer.Exit(exit_code_for(stop)) from None
    except IncompleteRunError as error:
        if error.resumable:
            _stopped(f"error: {visible(str(error))}", run_id)
        else:
            print(f"error: {visible(str(error))}", file=sys.stderr)
        raise typer.Exit(exit_code_for(error)) from None
    except StoreUnavailableError as error:
        # Before the run existed: there is nothing to resume; run the command again.
        print(f"error: {visible(str(error))}", file=sys.stderr)
        raise typer.Exit(exit_code_for(error)) from None


def _signalled(what: str, run_id: str, url: str | None) -> None:
    """Say what a signal left: a resume command only for a run the store holds, open."""
    from assay_agents.results import RunStatus

    found = _stored_status(url, run_id)
    if found is None:
        print(f"{what}: run {run_id} was not stored; nothing to resume", file=sys.stderr)
    elif found is RunStatus.COMPLETED:
        print(
            f"{what}: run {run_id} had completed; see assay-agents report "
            f"{run_id[:8]}{typed_db_words()}",
            file=sys.stderr,
        )
    else:
        _stopped(f"{what}: run {run_id} was saved as far as it got", run_id)


def _stored_status(url: str | None, run_id: str) -> Any:
    """The stored status of ``run_id``: ``None`` when it is not stored (or no history is)."""
    from assay_agents.errors import StoreError
    from assay_agents.store import Store

    try:
        with Store.open(url, create=False) as store:
            return store.get_run(run_id).status
    except StoreError as error:
        if error.transient:
            from assay_agents.results import RunStatus

            return RunStatus.INTERRUPTED  # cannot tell: the run may well be there
        return None
    except AssayError:
        return None


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """While a completed run is reported, Ctrl-C and SIGTERM wait: it is complete as stored.

    Otherwise a signal in these last moments would end the process as if the run had been
    cut short (exit 130 or 143, no output) when its outcome is already stored.
    """
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = [
        getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
    ]
    previous = {number: signal.signal(number, signal.SIG_IGN) for number in held}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)


def _stopped(message: str, run_id: str) -> None:
    import sys

    print(f"{message}; finish it with\n  {resume_command(run_id)}", file=sys.stderr)


def _finish(
    evaluation: Evaluation,
    reports: tuple[Path, ...],
    *,
    verbose: bool = False,
    started: float,
    db: str | None = None,
    summaries: tuple[tuple[str, Path], ...] = (),
    theme: str | None = None,
) -> ExitCode:
    from assay_agents.cli._render import (
        closing_line,
        make_console,
        reliability_lines,
        render_run,
        shown,
    )
    from assay_agents.report.prose import verdict_lines
    from assay_agents.results.sample_facts import SampleFacts

    run = evaluation.run
    # Read of the samples once for the summary and the reliability lines: a large run's
    # samples are unpacked for every pass over them.
    facts = SampleFacts.of(run.samples)
    console = make_console()
    with _reader_may_leave():
        console.print(f"database: {shown(evaluation.database)}", highlight=False)
        # Every command printed to paste names the database given with --db.
        pasted = db_words(db)
        render_run(
            console,
            run,
            evaluation.comparison,
            evaluation.model_comparison,
            baseline=evaluation.baseline,
            verbose=verbose,
            db=pasted,
            facts=facts,
        )
        reliability = reliability_lines(run, verbose=verbose, db=pasted, facts=facts)
        print(visible("\n".join(reliability), lines=True))
        _warn_unverified(console, run)
        _warn_unpriced(console, run)
        _warn_contradicted(console, run)
    if reports:
        _write_reports(run, reports, theme)
    verdict = evaluation.verdict
    if summaries:
        _write_summaries(evaluation, summaries)
    with _reader_may_leave():
        lines = verdict_lines(verdict.findings)
        if lines:
            print(visible("\n".join(lines), lines=True))
        # One closing line, whatever happened above: the line a CI log is read from.
        style = "green" if verdict.passed else "red"
        console.print(
            closing_line(run, verdict, time.monotonic() - started),
            style=style,
            markup=False,
            highlight=False,
        )
    return verdict.exit_code


def _warn_unverified(console: Any, run: Any) -> None:
    from assay_agents.cli._render import shown
    from assay_agents.cli._warnings import unverified_line

    line = unverified_line(run)
    if line is not None:
        console.print(shown(line), style="yellow", markup=False, highlight=False)


def _warn_unpriced(console: Any, run: Any) -> None:
    from assay_agents.cli._render import shown
    from assay_agents.cli._warnings import unpriced_line

    line = unpriced_line(run)
    if line is not None:
        console.print(shown(line), style="yellow", markup=False, highlight=False)


def _warn_contradicted(console: Any, run: Any) -> None:
    from assay_agents.cli._render import shown
    from assay_agents.cli._warnings import contradicted_line

    line = contradicted_line(run)
    if line is not None:
        console.print(shown(line), style="yellow", markup=False, highlight=False)


def _write_reports(run: Any, reports: tuple[Path, ...], theme: str | None = None) -> None:
    """Write each report file; the run is stored whatever happens to them.

    A failure is reported naming the option and the path, the other reports are still
    written, and the run's own exit code stands.
    """
    from assay_agents.report import Report  # only when a report is asked for

    made = Report(run)
    for path in reports:
        try:
            made.export(path, theme=theme if _is_html(path) else None)
            with _reader_may_leave():
                print(f"report written to {visible(str(path))}")
        except (OSError, AssayError) as error:
            print(
                f"error: --report {visible(str(path))}: "
                f"{visible(str(getattr(error, 'strerror', None) or error))}",
                file=sys.stderr,
            )


def _is_html(path: Path) -> bool:
    from assay_agents.report import format_for

    return format_for(path, named_by=None).name == "html"


@contextlib.contextmanager
def _reader_may_leave() -> Iterator[None]:
    """A reader that closed the pipe (``| head``) changes nothing.

    The run's own exit code stands and its report is still written.
    """
    import sys

    from assay_agents.cli._common import silence_stdout

    try:
        yield
        sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()


def _check_report_paths(paths: list[Path], theme: str | None = None) -> tuple[Path, ...]:
    """Refuse, before anything runs, a report path whose format, theme or folder is unusable.

    Standard output is the run's own, and one file named twice would be written twice.
    """
    if not paths and theme is None:
        return ()  # nothing to check: the report machinery is not imported for it
    from assay_agents.report.files import check_target
    from assay_agents.report.report import themed

    if theme is not None and not paths:
        raise ConfigurationError("--theme is the HTML report's: give --report FILE.html")
    seen: dict[str, Path] = {}
    formats: list[ReportFormat] = []
    for path in paths:
        _refuse_standard_output("--report", path)
        # --report has no --format: the extension decides.
        formats.append(_extension_format(path))
        check_target(path, named=f"--report {path}")
        earlier = seen.setdefault(os.path.realpath(path), path)
        if earlier is not path:
            raise ConfigurationError(
                f"--report {path} is given twice"
                if str(earlier) == str(path)
                else f"--report {path} names the same file as --report {earlier}"
            )
    html = [chosen for chosen in formats if chosen.name == "html"]
    for chosen in html or formats[:1]:
        themed(chosen, theme)  # an unknown theme, or one without an HTML report, is refused
    return tuple(paths)


def _extension_format(path: Path) -> ReportFormat:
    from assay_agents.report import format_for
    from assay_agents.report.formats import BUILTIN_FORMATS

    try:
        return format_for(path, named_by=None)
    except ConfigurationError:
        extension = repr(path.suffix) if path.suffix else "(none)"
        known = ", ".join(ext for f in BUILTIN_FORMATS for ext in f.extensions)
        raise ConfigurationError(
            f"--report {path}: cannot tell the report format from its extension {extension}; "
            f"use a file name with a known extension: {known}"
        ) from None


def _refuse_standard_output(option: str, path: Path) -> None:
    if str(path) == "-":
        raise ConfigurationError(
            f"{option} -: assay-agents run prints its progress and results on standard output; "
            f"give {option} a file name, or print a stored run with assay-agents report RUN"
        )


#: Where GitHub Actions asks a step for the Markdown shown on the run's summary page.
GITHUB_STEP_SUMMARY = "GITHUB_STEP_SUMMARY"


def _summary_files(summary: Path | None) -> tuple[tuple[str, Path], ...]:
    """The files the job summary is appended to: ``--summary``, then ``$GITHUB_STEP_SUMMARY``.

    Each with the name it was given by. ``--summary`` is checked before anything runs
    (exit 2); the environment's file is the CI's, so a bad one is only a warning once the
    run is over.
    """
    from assay_agents.report.files import check_target

    files: list[tuple[str, Path]] = []
    if summary is not None:
        _refuse_standard_output("--summary", summary)
        check_target(summary, named=f"--summary {summary}")
        files.append(("--summary", summary))
    github = os.environ.get(GITHUB_STEP_SUMMARY)
    if github and not any(_same_file(Path(github), chosen) for _, chosen in files):
        files.append((f"${GITHUB_STEP_SUMMARY}", Path(github)))
    return tuple(files)


def _same_file(one: Path, other: Path) -> bool:
    return os.path.abspath(one) == os.path.abspath(other)


def _write_summaries(evaluation: Evaluation, files: tuple[tuple[str, Path], ...]) -> None:
    """Append the job summary to each file; one that refuses it is a warning naming it.

    The run is stored and decided already: a summary that cannot be written changes neither.
    """
    from assay_agents.report import build_view
    from assay_agents.report.ci import ci_summary
    from assay_agents.report.files import append_text

    # A blank line first: whatever an earlier step left, the summary starts a block of its own.
    text = "\n" + ci_summary(build_view(evaluation), evaluation.verdict)
    for named, path in files:
        try:
            append_text(path, text)
        except (OSError, AssayError) as error:
            print(
                f"warning: {named} {visible(str(path))}: "
                f"{visible(str(getattr(error, 'strerror', None) or error))} "
                "(the job summary was not written)",
                file=sys.stderr,
            )
