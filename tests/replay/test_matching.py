"""Request matching and redaction, without any HTTP client."""

import json

import pytest

import assay_agents as assay
from assay_agents.replay import REDACTED, ObservedRequest, json_equal
from assay_agents.replay.matching import differences
from assay_agents.replay.redact import redact_json, redact_text, redact_url

URL = "https://shipping.example/orders"


def expected(**kwargs):
    fixtures = assay.api().expect_request(kwargs.pop("method", "POST"), URL, **kwargs)
    return fixtures.respond_with(json={}).interactions[0].request


def observed(url=URL, *, method="POST", headers=(), body=None):
    data = b"" if body is None else json.dumps(body).encode()
    return ObservedRequest.build(method, url, headers, data)


def test_query_order_is_insignificant_but_multiplicity_counts():
    declaration = expected(query={"tag": ["a", "b", "a"]}, method="GET")
    assert differences(declaration, observed(URL + "?tag=b&tag=a&tag=a", method="GET")) == []
    assert differences(declaration, observed(URL + "?tag=a&tag=b", method="GET")) == [
        "query: missing tag=a"
    ]
    assert differences(declaration, observed(URL + "?tag=a&tag=b&tag=a&tag=c", method="GET")) == [
        "query: not expected tag=c"
    ]


@pytest.mark.parametrize(
    ("declared", "sent", "difference"),
    [
        ({"count": 1}, {"count": "1"}, 'json $.count: expected 1 (number), got "1" (string)'),
        ({"flag": None}, {"flag": False}, "json $.flag: expected null (null), got false (boolean)"),
        ({"n": 1}, {"n": True}, "json $.n: expected 1 (number), got true (boolean)"),
        ({"a": [1, 2]}, {"a": [1]}, "json $.a: expected 2 item(s), got 1"),
        ({"a": {"b": "x"}}, {"a": {"b": "y"}}, 'json $.a.b: expected "x", got "y"'),
        ({"a": 1}, {}, "json $.a: missing (expected 1)"),
        ({}, {"extra": 1}, "json $.extra: not expected (got 1)"),
    ],
)
def test_json_is_compared_by_type(declared, sent, difference):
    assert differences(expected(json=declared), observed(body=sent)) == [difference]


def test_numbers_compare_by_value():
    assert differences(expected(json={"n": 1}), observed(body={"n": 1.0})) == []
    assert json_equal([1, {"a": None}], [1.0, {"a": None}])
    assert not json_equal(0, False) and not json_equal(None, False)


def test_an_omitted_json_requires_an_empty_body():
    assert differences(expected(), observed(body={"x": 1})) == [
        "body: expected an empty body, got 8 byte(s)"
    ]
    assert differences(expected(json=None), observed()) == [
        "body: expected JSON null, got an empty body"
    ]
    assert differences(expected(json=None), observed(body=None)) != []
    not_json = ObservedRequest.build("POST", URL, (), b"id=42")
    assert differences(expected(json={}), not_json) == [
        "body: expected JSON, got 5 byte(s) that are not JSON"
    ]


def test_only_declared_headers_are_asserted_and_names_ignore_case():
    declaration = expected(headers={"X-Region": "eu"})
    assert differences(declaration, observed(headers=[("x-region", "eu"), ("x-other", "1")])) == []
    assert differences(declaration, observed(headers=[("X-REGION", "us")])) == [
        "header x-region: expected 'eu', got 'us'"
    ]
    assert differences(declaration, observed()) == ["header x-region: missing (expected 'eu')"]


def test_method_and_url_differences_are_named():
    found = differences(expected(), observed(URL.replace("orders", "order"), method="GET"))
    assert found == [
        "method: expected POST, got GET",
        "url: expected https://shipping.example/orders, got https://shipping.example/order",
    ]


def test_default_ports_and_percent_encoding_do_not_matter():
    declaration = expected(method="GET")
    assert (
        differences(declaration, observed("https://SHIPPING.example:443/orders", method="GET"))
        == []
    )
    spaced = assay.api().expect_request("GET", "https://x.example/a b").respond_with(json=1)
    assert (
        differences(
            spaced.interactions[0].request, observed("https://x.example/a%20b", method="GET")
        )
        == []
    )


def test_long_lists_of_differences_are_cut():
    declaration = expected(json={f"k{i}": i for i in range(30)})
    found = differences(declaration, observed(body={}))
    assert len(found) == 13 and found[-1] == "… and 18 more difference(s)"


def test_differences_never_show_credentials():
    declaration = expected(
        headers={"Authorization": "Bearer sk-expected-secret-1"},
        json={"api_key": "expected-key", "token": {"v": "t1"}},
        query={"access_token": "q1"},
    )
    sent = observed(
        URL + "?access_token=q2",
        headers=[("authorization", "Bearer sk-actual-secret-22")],
        body={"api_key": "actual-key", "token": {"v": "t2"}},
    )
    text = "\n".join(differences(declaration, sent))
    for secret in (
        "sk-expected",
        "sk-actual",
        "expected-key",
        "actual-key",
        "q1",
        "q2",
        "t1",
        "t2",
    ):
        assert secret not in text
    assert "[redacted: " in text


def test_redaction_of_names_and_credential_looking_values():
    document = {
        "Authorization": "x",
        "password": "p",
        "client_secret": "s",
        "author": "Ann",
        "note": "use Bearer abc.def-123 please",
        "key": "sk-abcdefghijklmnopq",
        "nested": [{"X-Api-Key": "k", "id": 1}],
    }
    assert redact_json(document) == {
        "Authorization": REDACTED,
        "password": REDACTED,
        "client_secret": REDACTED,
        "author": "Ann",
        "note": f"use Bearer {REDACTED} please",
        "key": REDACTED,
        "nested": [{"X-Api-Key": REDACTED, "id": 1}],
    }
    assert redact_url(URL, [("id", "42"), ("api_key", "k")]) == (f"{URL}?id=42&api_key={REDACTED}")
    assert redact_text("Basic dXNlcjpwYXNz") == f"Basic {REDACTED}"
