"""Credential shapes, bot tokens in paths and a suite's own patterns never reach evidence."""

from __future__ import annotations

import json

import httpx
import pytest

import assay_agents as assay
from assay_agents.replay import REDACTED, ObservedRequest, ReplaySession
from assay_agents.replay.matching import differences
from assay_agents.replay.redact import Redactor, looks_random, redact_text, redact_url
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
    assert redact_url(f"{API}/bot{token}/sendMessage", []) == (f"{API}/bot{REDACTED}/sendMessage")


@pytest.mark.parametrize(
    "segment",
    [
        "orders",
        "42",
        "3f2b8c1e-9d4a-4f6b-8e2a-1c3d5e7f9a0b",
        "a" * 40,
        "0123456789abcdef0123456789abcdef01234567",
        "customer-support-overview",
        "Customer-Support-Overview",
    ],
)
def test_names_ids_and_digests_in_paths_stay(segment: str) -> None:
    assert not looks_random(segment)
    assert redact_url(f"{API}/{segment}", []) == f"{API}/{segment}"


def test_a_long_random_path_segment_is_hidden() -> None:
    assert redact_url(f"{API}/hooks/T0k3nAbCdEfGhIjKlMnOpQrStUv/x", []) == (
        f"{API}/hooks/{REDACTED}/x"
    )


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
    declared = (
        assay.api()
        .expect_request("GET", f"{API}/repos", headers={"Authorization": f"token {expected_token}"})
        .respond_with(json={})
        .interactions[0]
        .request
    )
    sent = ObservedRequest.build(
        "GET", f"{API}/repos", [("authorization", f"token {sent_token}")], b""
    )
    [line] = differences(declared, sent)
    assert expected_token not in line and sent_token not in line
    assert line.startswith(
        f"header authorization: expected [redacted: {len(expected_token) + 6} chars, hmac "
    )
    assert f", got [redacted: {len(sent_token) + 6} chars, hmac " in line
    first, second = (part.split("hmac ")[1][:8] for part in line.split(", got "))
    assert first != second


def test_a_url_mismatch_hides_the_tokens_but_not_the_difference() -> None:
    token = CREDENTIALS["telegram_bot"]
    declared = (
        assay.api()
        .expect_request("POST", f"{API}/bot{token}/sendMessage")
        .respond_with(json={})
        .interactions[0]
        .request
    )
    sent = ObservedRequest.build("POST", f"{API}/bot{token[:-1]}X/sendMessage", [], b"")
    [line] = differences(declared, sent)
    assert token not in line and token[:-1] not in line
    assert line.startswith(f"url: expected {API}/bot[redacted: {len(token)} chars, hmac ")
    assert line.count(f"[redacted: {len(token)} chars, hmac ") == 2


def test_replayed_evidence_never_holds_a_credential() -> None:
    token, key = CREDENTIALS["telegram_bot"], CREDENTIALS["slack_bot"]
    fixtures = (
        assay.api(redact=[r"acct-\d{6}"])
        .expect_request(
            "POST", f"{API}/bot{token}/sendMessage", json={"text": "hi", "account": "acct-123456"}
        )
        .respond_with(json={"ok": True, "echo": key})
    )
    session = ReplaySession(fixtures)
    with session.active():
        with pytest.raises(httpx.HTTPError):
            httpx.post(
                f"{API}/bot{token}/sendMessage", json={"text": "hi", "account": "acct-654321"}
            )
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"{API}/bot{token}/getUpdates", headers={"X-Slack": key})
    evidence = session.evidence()
    stored = json.dumps(evidence.to_json())
    for secret in (token, key, "acct-123456", "acct-654321"):
        assert secret not in stored
        assert secret not in (evidence.message() or "")
    assert 'json $.account: expected "[redacted: 11 chars, hmac ' in (evidence.message() or "")


def test_an_aws_secret_key_split_by_slashes_is_hidden_in_a_path_and_in_text() -> None:
    secret = CREDENTIALS["aws_secret"]
    assert len(secret) == 40 and "/" in secret
    assert redact_url(f"{API}/keys/{secret}/check", []) == f"{API}/keys/{REDACTED}/check"
    assert redact_text(f"aws_secret_access_key = {secret}") == (
        f"aws_secret_access_key = {REDACTED}"
    )


@pytest.mark.parametrize(
    "url",
    [
        "postgres://app:s3cr3t-Pa55@db.example:5432/orders",
        "mysql://root:hunter2@localhost/x",
        "redis://:hunter2@cache.example:6379/0",
        "postgresql://u:p@ss@h/db",
        "postgres://app:a@b@c:d@db.example/orders?sslmode=require",
    ],
)
def test_a_password_in_a_dsn_is_hidden_and_the_rest_stays(url: str) -> None:
    # The user info ends at the last "@" before the host: a password may hold "@" itself.
    userinfo, host = url.split("://", 1)[1].split("?")[0].rsplit("@", 1)
    password = userinfo.split(":", 1)[1]
    base = url.split("?")[0]
    for shown in (redact_text(f"connecting to {url} now"), redact_url(base, [])):
        assert password not in shown and REDACTED in shown
        assert not any(part in shown for part in password.split("@") if len(part) > 1)
        assert f"{REDACTED}@{host}" in shown  # host, port and database stay readable


@pytest.mark.parametrize(
    "text",
    [
        "host=db.example user=app password=hunter2 dbname=orders",
        "Server=db;User Id=app;Password=hunter2;Database=orders",
        "login pwd=hunter2 ok",
        "login pass=hunter2&next=/home",
        "env db_pass=hunter2 rest",
        "PASSWORD = 'hunter2' and more",
    ],
)
def test_passwords_assigned_in_free_text_are_hidden(text: str) -> None:
    shown = redact_text(text)
    assert "hunter2" not in shown and REDACTED in shown
    assert shown.split()[0] == text.split()[0]  # the rest of the text stays readable


def test_words_that_merely_end_in_pass_keep_their_values_in_free_text() -> None:
    assert redact_text("bypass=cache compass=north") == "bypass=cache compass=north"


@pytest.mark.parametrize(
    "name",
    [
        "pwd",
        "pass",
        "db_pass",
        "PASS",
        "passphrase",
        "Passwd",
        "secret_key",
        "SecretKey",
        "aws_secret_key",
    ],
)
def test_values_under_password_names_are_hidden(name: str) -> None:
    assert redact_url(f"{API}/login", [(name, "hunter2")]) == f"{API}/login?{name}={REDACTED}"
    assert "hunter2" not in json.dumps(Redactor().json({name: "hunter2"}))


def test_names_that_merely_end_in_pass_stay() -> None:
    assert redact_url(f"{API}/route", [("bypass", "cache")]) == f"{API}/route?bypass=cache"


def test_oauth_code_and_state_in_a_query_are_hidden_but_a_json_code_stays() -> None:
    url = redact_url(f"{API}/callback", [("code", "4/0AX4XfWh"), ("state", "xyz123abc")])
    assert url == f"{API}/callback?code={REDACTED}&state={REDACTED}"
    assert Redactor().json({"code": 404, "state": "open"}) == {"code": 404, "state": "open"}


def test_a_declared_credential_is_stored_in_no_form_a_guess_can_test() -> None:
    import hashlib

    fixtures = (
        assay.api()
        .expect_request(
            "GET",
            f"{API}/items?api_key=hunter2",
            headers={"Authorization": "Bearer hunter2"},
            json={"password": "hunter2"},
        )
        .respond_with(json={"ok": True}, headers={"Set-Cookie": "sid=hunter2"})
    )
    stored = json.dumps(fixtures.definition())
    guesses = {"hunter2", "Bearer hunter2", '"hunter2"', "sid=hunter2"}
    for guess in guesses:
        assert hashlib.sha256(guess.encode()).hexdigest() not in stored
    assert "hunter2" not in stored and REDACTED in stored


def test_a_credential_shape_declared_anywhere_is_not_stored() -> None:
    bot, github = CREDENTIALS["telegram_bot"], CREDENTIALS["github_classic"]
    fixtures = (
        assay.api()
        .expect_request(
            "POST",
            f"{API}/bot{bot}/send",
            headers={"X-Ref": github},
            json={"note": f"deploy with {github}"},
        )
        .respond_with(json={"ok": True})
    )
    stored = json.dumps(fixtures.definition())
    assert bot not in stored and github not in stored and "/send" in stored


def test_a_declared_credential_leaves_the_fingerprint_stable() -> None:
    def suite(secret: str):
        built = assay.Suite("S", agent=lambda q, c: "a")
        built.case(
            "q",
            id="c",
            api=assay.api()
            .expect_request("GET", f"{API}/items", headers={"Authorization": f"Bearer {secret}"})
            .respond_with(json={}),
        )
        return built.fingerprint()

    # Stable across processes (no per-process key in it), and a rotated key is the same case.
    assert suite("hunter2") == suite("hunter2") == suite("correct-horse")
