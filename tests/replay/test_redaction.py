"""Credential shapes, bot tokens in paths and a suite's own patterns never reach evidence."""

from __future__ import annotations

import json

import httpx
import pytest

import assay
from assay.replay import REDACTED, ObservedRequest, ReplaySession
from assay.replay.matching import differences
from assay.replay.redact import Redactor, looks_random, redact_text, redact_url
from hostile import CREDENTIALS

API = "https://chat.example"


@pytest.mark.parametrize("name", sorted(CREDENTIALS))
def test_every_credential_shape_is_hidden_in_free_text(name: str) -> None:
    secret = CREDENTIALS[name]
    shown = redact_text(f"note: {secret} end")
    assert secret.split()[-1] not in shown and REDACTED in shown
    assert shown.startswith("note: ") and shown.endswith(" end")


@pytest.mark.parametrize("name", sorted(CREDENTIALS))
def test_every_credential_shape_is_hidden_in_a_url_path(name: str) -> None:
    secret = CREDENTIALS[name].split()[-1]
    assert secret not in redact_url(f"{API}/bot{secret}/sendMessage", [])
    assert secret not in redact_url(f"{API}/v1/{secret}/items", [("key", secret)])


def test_a_bot_token_in_a_path_keeps_the_rest_of_the_url_readable() -> None:
    token = CREDENTIALS["telegram_bot"]
    assert redact_url(f"{API}/bot{token}/sendMessage", []) == (
        f"{API}/bot{REDACTED}/sendMessage")


@pytest.mark.parametrize("segment", [
    "orders", "42", "3f2b8c1e-9d4a-4f6b-8e2a-1c3d5e7f9a0b", "a" * 40,
    "0123456789abcdef0123456789abcdef01234567", "customer-support-overview",
    "Customer-Support-Overview",
])
def test_names_ids_and_digests_in_paths_stay(segment: str) -> None:
    assert not looks_random(segment)
    assert redact_url(f"{API}/{segment}", []) == f"{API}/{segment}"


def test_a_long_random_path_segment_is_hidden() -> None:
    assert redact_url(f"{API}/hooks/T0k3nAbCdEfGhIjKlMnOpQrStUv/x", []) == (
        f"{API}/hooks/{REDACTED}/x")


def test_declared_patterns_hide_more_and_are_checked_when_declared() -> None:
    redactor = Redactor.of(assay.api(redact=[r"acct-\d{6}"]))
    assert redactor.text("account acct-123456 ok") == f"account {REDACTED} ok"
    with pytest.raises(assay.SpecError) as bad:
        assay.api(redact=["(unclosed"])
    assert bad.value.field == "api.redact[0]"
    with pytest.raises(assay.SpecError, match="matches some text"):
        assay.api(redact=["x*"])
    with pytest.raises(assay.SpecError, match="list"):
        assay.api(redact="acct")  # type: ignore[arg-type]


def test_declared_patterns_load_from_files_and_leave_the_fingerprint_alone() -> None:
    data = {"interactions": [{"method": "GET", "url": f"{API}/a", "response": {"json": {}}}]}
    plain = assay.ApiFixtures.from_mapping(data, base_dir=None)
    hiding = assay.ApiFixtures.from_mapping({**data, "redact": ["acct-\\d+"]}, base_dir=None)
    assert hiding.redact == ("acct-\\d+",)
    assert hiding.definition() == plain.definition()


def test_a_mismatch_between_hidden_values_says_how_they_differ() -> None:
    expected_token, sent_token = CREDENTIALS["github_classic"], CREDENTIALS["github_fine"]
    declared = (assay.api().expect_request("GET", f"{API}/repos",
                                           headers={"Authorization": f"token {expected_token}"})
                .respond_with(json={}).interactions[0].request)
    sent = ObservedRequest.build("GET", f"{API}/repos",
                                 [("authorization", f"token {sent_token}")], b"")
    [line] = differences(declared, sent)
    assert expected_token not in line and sent_token not in line
    assert line.startswith(f"header authorization: expected [redacted: "
                           f"{len(expected_token) + 6} chars, hmac ")
    assert f", got [redacted: {len(sent_token) + 6} chars, hmac " in line
    first, second = (part.split("hmac ")[1][:8] for part in line.split(", got "))
    assert first != second


def test_a_url_mismatch_hides_the_tokens_but_not_the_difference() -> None:
    token = CREDENTIALS["telegram_bot"]
    declared = (assay.api().expect_request("POST", f"{API}/bot{token}/sendMessage")
                .respond_with(json={}).interactions[0].request)
    sent = ObservedRequest.build("POST", f"{API}/bot{token[:-1]}X/sendMessage", [], b"")
    [line] = differences(declared, sent)
    assert token not in line and token[:-1] not in line
    assert line.startswith(f"url: expected {API}/bot[redacted: {len(token)} chars, hmac ")
    assert line.count(f"[redacted: {len(token)} chars, hmac ") == 2


def test_replayed_evidence_never_holds_a_credential() -> None:
    token, key = CREDENTIALS["telegram_bot"], CREDENTIALS["slack_bot"]
    fixtures = (assay.api(redact=[r"acct-\d{6}"])
                .expect_request("POST", f"{API}/bot{token}/sendMessage",
                                json={"text": "hi", "account": "acct-123456"})
                .respond_with(json={"ok": True, "echo": key}))
    session = ReplaySession(fixtures)
    with session.active():
        with pytest.raises(httpx.HTTPError):
            httpx.post(f"{API}/bot{token}/sendMessage",
                       json={"text": "hi", "account": "acct-654321"})
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"{API}/bot{token}/getUpdates", headers={"X-Slack": key})
    evidence = session.evidence()
    stored = json.dumps(evidence.to_json())
    for secret in (token, key, "acct-123456", "acct-654321"):
        assert secret not in stored
        assert secret not in (evidence.message() or "")
    assert 'json $.account: expected "[redacted: 11 chars, hmac ' in (evidence.message() or "")
