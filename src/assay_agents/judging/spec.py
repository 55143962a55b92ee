"""The spec of a judge that can be built again, as a run keeps it in its settings."""

from __future__ import annotations

from assay_agents.judging.judge import Judge, judge_chain
from assay_agents.judging.litellm_judge import LiteLLMJudge
from assay_agents.judging.openai_judge import OpenAIJudge
from assay_agents.results.settings import JudgeSpec


def judge_spec(judge: Judge) -> JudgeSpec | None:
    """The spec of the judge (the innermost, under a cache or a meter); ``None`` for others.

    A function judge, or one of a third party, is code: it has no spec to keep.
    """
    inner = judge_chain(judge)[-1]
    if isinstance(inner, OpenAIJudge):
        return JudgeSpec(
            client="openai",
            model=inner.model,
            label=inner.label,
            provider=inner.provider,
            base_url=_without_credentials(inner.base_url),
            temperature=inner.temperature,
            timeout=inner.timeout,
            judge_timeout=inner.judge_timeout,
        )
    if isinstance(inner, LiteLLMJudge):
        return JudgeSpec(
            client="litellm",
            model=inner.model,
            label=inner.label,
            provider="litellm",
            temperature=inner.temperature,
            judge_timeout=inner.judge_timeout,
        )
    return None


def _without_credentials(url: str | None) -> str | None:
    """``url`` without a ``user:password@`` part: a run keeps where, never who."""
    if url is None or "@" not in url:
        return url
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=host))
