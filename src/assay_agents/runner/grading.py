"""After the agent: pricing its tokens, and asking the judge about its prose."""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass

from assay_agents.agent import ModelSpec, Observation, Outcome, Usage
from assay_agents.agent.usage_by_model import usage_by_model
from assay_agents.errors import AssayError
from assay_agents.judging import Judge, JudgeUsage, assess, judge_input, resolve
from assay_agents.judging.retry import sample_deadline
from assay_agents.results import JudgeUsage as CountedUsage
from assay_agents.results import MetricResult, errored
from assay_agents.results.pricing import catalogue_loaded, estimate_cost, load_catalogue
from assay_agents.spec import JSON, CasePlan, PlannedMetric, canonical_json

#: The error a judge criterion keeps until the separate judging of its sample grades it.
NOT_JUDGED = "not judged: the judging of this sample did not return"


@dataclass(frozen=True, slots=True)
class Judging:
    """The judge a run grades prose with, and how many votes each grade takes.

    ``deferred`` grades nothing here: each criterion is left as an error naming
    :data:`NOT_JUDGED`, for a separate step to grade (a cluster judges in tasks of its own).
    """

    judge: Judge
    votes: int = 1
    deferred: bool = False


async def grade(
    plan: CasePlan,
    answer: str | None,
    judging: Judging | None,
    observation: Observation | None = None,
) -> tuple[tuple[MetricResult, ...], CountedUsage | None]:
    """Grade the answer on the case's judge criteria; the judge sees strings only.

    A case whose ``metadata["committed_effects_channel"]`` names an observation channel has
    the effects the system itself recorded there handed to the judge (as text), so that an
    answer claiming an effect is judged against what actually happened.
    """
    planned = [metric for metric in plan.metrics if metric.kind == "judge"]
    if not planned or judging is None:
        return (), None
    if judging.deferred:
        return tuple(_not_judged(metric) for metric in planned), None
    usage = JudgeUsage()
    results: list[MetricResult] = []
    with sample_deadline():  # judge_timeout bounds the sample's judging, not each call
        for metric in planned:
            results.append(await _grade_one(plan, metric, answer, judging, usage, observation))
    return tuple(results), usage.counted()


def _not_judged(metric: PlannedMetric) -> MetricResult:
    return errored(metric.name, "judge", metric.category, metric.threshold, NOT_JUDGED)


async def _grade_one(
    plan: CasePlan,
    metric: PlannedMetric,
    answer: str | None,
    judging: Judging,
    usage: JudgeUsage,
    observation: Observation | None,
) -> MetricResult:
    if answer is None:
        return errored(
            metric.name,
            "judge",
            metric.category,
            metric.threshold,
            "the agent gave no answer to judge",
        )
    criterion = resolve(metric.name, metric.check, metric.threshold)
    data = judge_input(plan.case, answer, committed_effects(plan, observation))
    return await assess(judging.judge, criterion, data, votes=judging.votes, usage=usage)


def committed_effects(plan: CasePlan, observation: Observation | None) -> tuple[str, ...] | None:
    """The effects read from the case's declared channel, as text; ``None`` without one.

    A declared channel that recorded nothing gives no effects (an empty tuple): the judge is
    told that nothing was committed, rather than nothing at all.
    """
    channel = plan.case.metadata.get("committed_effects_channel")
    if not isinstance(channel, str):
        return None
    items = [] if observation is None else observation.channels.get(channel, [])
    return tuple(item if isinstance(item, str) else canonical_json(item) for item in items)


async def price(outcome: Outcome, model: ModelSpec | None) -> Outcome:
    """Estimate the cost of reported tokens when the agent reported no cost.

    The model is the one an adapter recorded in ``metadata["model"]`` (the model actually
    called), else the sample's (``ctx.model``). The estimate is marked ``estimated`` and its
    rate stored in the sample's metadata (``cost_rate``); a model the catalogue does not know
    stays unpriced.
    """
    usage = outcome.usage
    by_model = usage_by_model(outcome.metadata)
    if by_model is not None:
        return await _price_each(outcome, by_model)
    named = outcome.metadata.get("model")
    if isinstance(named, str) and named:
        # The model an adapter actually called wins over the sample's label: an adapter
        # with a fixed model answers with that model whatever --model said.
        model = ModelSpec.parse(named)
    if usage is None or usage.cost_usd is not None or model is None:
        return outcome
    if not catalogue_loaded():
        # Loading the price tables takes a while: never on the event loop, where it would
        # stop every other sample's clock.
        await asyncio.to_thread(load_catalogue)
    estimate = estimate_cost(model.provider, model.model, usage.input_tokens, usage.output_tokens)
    if estimate is None:
        return outcome
    priced = Usage(usage.input_tokens, usage.output_tokens, estimate.cost_usd, "estimated")
    metadata = {**outcome.metadata, "cost_rate": estimate.rate()}
    return dataclasses.replace(outcome, usage=priced, metadata=metadata)


async def _price_each(outcome: Outcome, by_model: dict[str, tuple[int, int]]) -> Outcome:
    """Each answering model's tokens at its own rate, when every one of them is known.

    The counts must add up to the sample's usage and every model must be in the catalogue:
    a part priced and a part not would understate the cost, so such a sample stays unpriced.
    """
    usage = outcome.usage
    if usage is None or usage.cost_usd is not None:
        return outcome
    totals = tuple(sum(counts[i] for counts in by_model.values()) for i in (0, 1))
    if totals != (usage.input_tokens or 0, usage.output_tokens or 0):
        return outcome
    if not catalogue_loaded():
        await asyncio.to_thread(load_catalogue)
    rates: dict[str, JSON] = {}
    total = 0.0
    for name, (input_tokens, output_tokens) in by_model.items():
        try:  # the names are the agent's, untrusted
            spec = ModelSpec.parse(name)
        except AssayError:
            return outcome
        estimate = estimate_cost(spec.provider, spec.model, input_tokens, output_tokens)
        if estimate is None:
            return outcome
        total += estimate.cost_usd
        rates[name] = estimate.rate()
    priced = Usage(usage.input_tokens, usage.output_tokens, total, "estimated")
    rate: dict[str, JSON] = {"source": "catalog", "models": rates}
    metadata: dict[str, JSON] = {**outcome.metadata, "cost_rate": rate}
    return dataclasses.replace(outcome, usage=priced, metadata=metadata)
