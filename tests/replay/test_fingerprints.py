"""Fixtures in fingerprints: every asserted part counts, and suites without them never move."""

import pytest

import assay_agents as assay
from assay_agents import checks

URL = "https://shipping.example/orders"


def agent(text, ctx):
    return "ok"


def test_a_suite_without_fixtures_keeps_its_fingerprint():
    # The same value tests/spec/test_fingerprint.py pins from before replay existed.
    suite = assay.Suite("Support", agent=agent, version="1")
    suite.case("How long?", expected="30 days", checks=[checks.exact_match()])
    assert suite.fingerprint() == "4b8c1cb78af6577afc802217c1d0f70e0e505d0571427891c2f1ab4ed8270c6b"
    assert "api" not in suite.plan().cases[0].snapshot()


def fingerprint(fixtures):
    suite = assay.Suite("Support", agent=agent, version="1")
    suite.case("How long?", expected="30 days", checks=[checks.exact_match()], api=fixtures)
    return suite.fingerprint()


def declared(
    *,
    allow_hosts=None,
    method="GET",
    url=URL,
    query=None,
    json=None,
    headers=None,
    status=200,
    response_headers=None,
    body=None,
    body_file=None,
):
    request = {"query": query or {"id": "42"}, "headers": headers}
    if json is not None:
        request["json"] = json
    pending = assay.api(allow_hosts=allow_hosts).expect_request(method, url, **request)
    if body_file is not None:
        return pending.respond_with(status=status, headers=response_headers, body_file=body_file)
    return pending.respond_with(
        status=status,
        headers=response_headers,
        json=body if body is not None else {"status": "ready"},
    )


BASE = declared()


@pytest.mark.parametrize(
    "change",
    [
        {"allow_hosts": ["api.openai.com"]},
        {"method": "POST"},
        {"url": "https://shipping.example/order"},
        {"query": {"id": "43"}},
        {"query": {"id": ["42", "42"]}},
        {"json": {"id": 42}},
        {"headers": {"X-Region": "eu"}},
        {"status": 201},
        {"response_headers": {"Retry-After": "1"}},
        {"body": {"status": "late"}},
    ],
)
def test_every_declared_part_enters_the_fingerprint(change):
    assert fingerprint(declared(**change)) != fingerprint(BASE)


def test_fixtures_change_the_fingerprint_even_when_empty():
    without = assay.Suite("Support", agent=agent, version="1")
    without.case("How long?", expected="30 days", checks=[checks.exact_match()])
    assert fingerprint(assay.api()) != without.fingerprint()


def test_equivalent_declarations_share_a_fingerprint():
    assert fingerprint(declared(query={"b": "2", "a": "1"})) == fingerprint(
        declared(url=URL + "?a=1", query={"b": "2"})
    )
    assert fingerprint(declared(headers={"X-Region": "eu"})) == fingerprint(
        declared(headers={"x-region": "eu"})
    )


def test_whitespace_in_a_body_file_gives_an_incompatible_fingerprint(tmp_path):
    compact, spaced = tmp_path / "compact.json", tmp_path / "spaced.json"
    compact.write_bytes(b'{"status":"ready"}')
    spaced.write_bytes(b'{"status": "ready"}\n')
    assert fingerprint(declared(body_file=compact)) != fingerprint(declared(body_file=spaced))


def test_where_the_bytes_came_from_does_not_count(tmp_path):
    file = tmp_path / "order.json"
    file.write_bytes(b'{"status":"ready"}')  # the same bytes the inline JSON serves
    assert fingerprint(declared(body_file=file)) == fingerprint(BASE)


def test_credentials_asserted_in_query_or_json_never_reach_the_snapshot():
    import assay_agents as assay

    suite = assay.Suite("Creds", agent=lambda text, ctx: "ok")
    case = suite.case(
        "q",
        api=assay.api()
        .expect_request(
            "POST",
            "https://api.example/v1/login",
            query={"key": "AIzaSy-secret-1"},
            json={"user": "ana", "password": "hunter2", "nested": {"api_key": "sk-live-2"}},
        )
        .respond_with(json={"ok": True}),
    )
    snapshot = str(suite.plan().cases[0].snapshot())
    for secret in ("AIzaSy-secret-1", "hunter2", "sk-live-2"):
        assert secret not in snapshot
    assert "ana" in snapshot and "[redacted]" in snapshot and "sha256:" not in snapshot
    other = assay.Suite("Creds", agent=lambda text, ctx: "ok")
    other.case(
        "q",
        api=assay.api()
        .expect_request(
            "POST",
            "https://api.example/v1/login",
            query={"key": "AIzaSy-secret-1"},
            json={"user": "ana", "password": "changed", "nested": {"api_key": "sk-live-2"}},
        )
        .respond_with(json={"ok": True}),
    )
    assert other.fingerprint() == suite.fingerprint() and case.id == "q"
