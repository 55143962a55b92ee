"""Body matching that survives a client upgrade: ignored paths and subset bodies."""

import json

import pytest

import assay_agents as assay
from assay_agents.errors import SpecError
from assay_agents.replay import ObservedRequest
from assay_agents.replay.matching import differences

URL = "https://api.example/v1/chat/completions"
RECORDED = {"model": "m", "messages": [{"role": "user", "content": "hi", "name": "a"}]}


def declared(**kwargs):
    fixtures = assay.api().expect_request("POST", URL, json=RECORDED, **kwargs)
    return fixtures.respond_with(json={}).interactions[0].request


def sent(body, url=URL):
    return ObservedRequest.build("POST", url, (), json.dumps(body).encode())


UPGRADED = {
    "model": "m",
    "messages": [{"role": "user", "content": "hi", "name": "b"}],
    "stream_options": {"include_usage": True},
}


def test_exact_matching_reports_every_new_and_changed_field():
    assert differences(declared(), sent(UPGRADED)) == [
        'json $.messages[0].name: expected "a", got "b"',
        'json $.stream_options: not expected (got {"include_usage":true})',
    ]


def test_ignored_paths_and_a_subset_body_accept_the_upgraded_request():
    lenient = declared(ignore=["$.messages[*].name"], match="subset")
    assert differences(lenient, sent(UPGRADED)) == []


def test_a_subset_body_still_needs_every_recorded_field_equal():
    lenient = declared(match="subset")
    changed = {**UPGRADED, "model": "n"}
    del changed["messages"]
    assert differences(lenient, sent(changed)) == [
        'json $.model: expected "m", got "n"',
        'json $.messages: missing (expected [{"content":"hi","name":"a","role":"user"}])',
    ]


def test_an_ignored_path_leaves_only_that_field_out():
    only_name = declared(ignore=['$["messages"][0].name'])
    assert differences(only_name, sent(UPGRADED)) == [
        'json $.stream_options: not expected (got {"include_usage":true})'
    ]


def test_an_ignored_query_parameter_is_not_compared():
    fixtures = assay.api().expect_request("GET", URL, query={"v": "1", "trace": "x"})
    declaration = fixtures.respond_with(json={}).interactions[0].request
    lenient = assay.api().expect_request(
        "GET", URL, query={"v": "1", "trace": "x"}, ignore=["query.trace"]
    )
    observed = ObservedRequest.build("GET", f"{URL}?v=1&trace=y", (), b"")
    assert differences(declaration, observed) == ["query: missing trace=x, not expected trace=y"]
    assert differences(lenient.respond_with(json={}).interactions[0].request, observed) == []


@pytest.mark.parametrize(
    ("ignore", "match", "field", "says"),
    [
        (["$.a", "a.b"], "exact", "api[0].ignore[1]", "is not a JSON path"),
        (["$"], "exact", "api[0].ignore[0]", "whole body"),
        (["$.a[-1]"], "exact", "api[0].ignore[0]", "cannot read '[-1]'"),
        ("$.a", "exact", "api[0].ignore", "must be a list"),
        ([], "loose", "api[0].match", "'loose' is not one of"),
    ],
)
def test_bad_ignore_paths_and_match_modes_name_the_field(ignore, match, field, says):
    data = {
        "interactions": [
            {
                "method": "POST",
                "url": URL,
                "json": {},
                "ignore": ignore,
                "match": match,
                "response": {"json": {}},
            }
        ]
    }
    with pytest.raises(SpecError) as raised:
        assay.ApiFixtures.from_mapping(data, base_dir=None)
    assert raised.value.field == field
    assert says in raised.value.detail


def test_ignore_and_match_count_in_the_fingerprint_only_when_given():
    plain = declared().definition()
    assert "ignore" not in plain and "match" not in plain
    assert declared(match="subset").definition()["match"] == "subset"
