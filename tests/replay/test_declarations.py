"""Declaring fixtures: validation at definition time, body snapshots, the plain-data form."""

import json
import runpy
import textwrap
from pathlib import Path

import pytest

import assay_agents as assay
from assay_agents.spec.fixtures import UNSET, ApiFixtures
from commandline import run_in_process

URL = "https://shipping.example/orders"


def agent(text, ctx):
    return "ok"


def respond(**response):
    return assay.api().expect_request("GET", URL).respond_with(**response)


def test_the_builder_normalises_the_request():
    fixtures = (
        assay.api(allow_hosts=["API.openai.com"])
        .expect_request(
            "get",
            "HTTPS://Shipping.Example:443/orders?b=2&a=1",
            query={"a": ["3", "1"]},
            headers={"X-Region": "eu"},
        )
        .respond_with(json={"status": "ready"})
    )
    request = fixtures.interactions[0].request
    assert request.method == "GET" and request.url == "https://shipping.example/orders"
    assert request.query == (("a", "1"), ("a", "1"), ("a", "3"), ("b", "2"))
    assert request.headers == (("x-region", "eu"),) and request.json is UNSET
    assert fixtures.allow_hosts == ("api.openai.com",)


def test_inline_json_is_served_as_compact_utf8_and_none_is_json_null():
    assert respond(json={"city": "Zürich", "n": 1}).interactions[0].response.body == (
        '{"city":"Zürich","n":1}'.encode()
    )
    null = respond(json=None).interactions[0].response
    assert null.body == b"null" and ("Content-Type", "application/json") in null.headers


def test_declared_content_type_is_kept():
    response = respond(json=[], headers={"content-type": "application/vnd.api+json"})
    assert response.interactions[0].response.headers == (
        ("content-type", "application/vnd.api+json"),
    )


def test_a_response_takes_at_most_one_source():
    with pytest.raises(assay.SpecError, match="at most one body source"):
        respond(json={}, body_file="x.json")


def test_a_response_without_a_source_has_an_empty_body():
    response = respond(status=204).interactions[0].response
    assert (response.status, response.body, response.headers) == (204, b"", ())


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda api: api.expect_request("GET", "/orders"), "api[0].url"),
        (lambda api: api.expect_request("GET", "ftp://x/y"), "api[0].url"),
        (lambda api: api.expect_request("G ET", URL), "api[0].method"),
        (lambda api: api.expect_request("GET", URL, query={"id": 42}), "api[0].query.id"),
        (
            lambda api: api.expect_request("GET", URL, headers={"A": "1", "a": "2"}),
            "api[0].headers",
        ),
        (lambda api: api.expect_request("GET", URL, json={1, 2}), "api[0].json"),
        (
            lambda api: api.expect_request("GET", URL).respond_with(status=99, json=1),
            "api[0].response.status",
        ),
    ],
)
def test_invalid_parts_fail_naming_the_field(call, field):
    with pytest.raises(assay.SpecError) as raised:
        call(assay.api())
    assert raised.value.field == field


@pytest.mark.parametrize(
    "host", ["*.openai.com", ".openai.com", "api.openai.com:443", "https://api.openai.com"]
)
def test_allowed_hosts_are_exact_names(host):
    with pytest.raises(assay.SpecError, match="exact host name"):
        assay.api(allow_hosts=[host])


def test_a_request_without_response_is_refused_by_the_case():
    suite = assay.Suite("S", agent=agent)
    with pytest.raises(assay.SpecError, match="respond_with") as raised:
        suite.case("q", api=assay.api().expect_request("GET", URL))
    assert raised.value.case == "q" and raised.value.field == "api"
    with pytest.raises(assay.SpecError, match=r"assay\.api"):
        suite.case("q", api={"interactions": []})


def write_spec(folder: Path, body_file: str) -> Path:
    spec = folder / "spec.py"
    spec.write_text(
        textwrap.dedent(f"""
        import assay_agents as assay
        fixtures = assay.api().expect_request("GET", "{URL}").respond_with(
            body_file={body_file!r})
    """)
    )
    return spec


def test_body_file_resolves_against_the_declaring_file_not_the_working_directory(
    tmp_path, monkeypatch
):
    (tmp_path / "specs" / "fixtures").mkdir(parents=True)
    exact = b'{\n  "status": "ready"\n}\n'
    (tmp_path / "specs" / "fixtures" / "order.json").write_bytes(exact)
    spec = write_spec(tmp_path / "specs", "fixtures/order.json")
    monkeypatch.chdir(tmp_path)  # fixtures/order.json does not exist relative to here
    response = runpy.run_path(str(spec))["fixtures"].interactions[0].response
    assert response.body == exact and response.source == "fixtures/order.json"


def test_body_bytes_are_snapshotted_when_declared(tmp_path):
    file = tmp_path / "order.json"
    file.write_bytes(b'{"status": "ready"}')
    fixtures = respond(body_file=file)  # absolute path
    file.write_bytes(b'{"status": "changed"}')
    assert fixtures.interactions[0].response.body == b'{"status": "ready"}'


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read"),
        (b'{"status": ', "is not valid JSON"),
        (b'{"status": NaN}', "is not valid JSON"),
        (b'{"city": "Z\xfcrich"}', "is not valid UTF-8"),
    ],
)
def test_bad_body_files_fail_before_any_agent_runs(tmp_path, content, message):
    if content is not None:
        (tmp_path / "order.json").write_bytes(content)
    spec = write_spec(tmp_path, "order.json")
    with pytest.raises(assay.SpecError, match=message) as raised:
        runpy.run_path(str(spec))
    assert raised.value.field == "api[0].response.body_file"
    assert str(tmp_path / "order.json") in str(raised.value)


def test_the_cli_reports_a_bad_body_file_with_its_line(tmp_path):
    (tmp_path / "order.json").write_bytes(b"not json")
    spec = tmp_path / "bad_eval.py"
    spec.write_text(
        textwrap.dedent(f"""
        import assay_agents as assay
        suite = assay.Suite("S", agent=lambda q, ctx: "ok")
        suite.case("q", api=assay.api().expect_request("GET", "{URL}")
                   .respond_with(body_file="order.json"))
    """)
    )
    done = run_in_process(["run", str(spec)], tmp_path)
    assert done.returncode == 2
    assert "is not valid JSON" in done.stderr and "(line 5)" in done.stderr
    assert not (tmp_path / ".assay").exists()  # nothing ran, nothing was stored


def test_from_mapping_builds_the_same_fixtures_as_the_builder(tmp_path):
    (tmp_path / "quote.json").write_bytes(b'{"eta_days": 3}\n')
    data = {
        "allow_hosts": ["api.openai.com"],
        "interactions": [
            {
                "method": "GET",
                "url": URL,
                "query": {"id": "42"},
                "response": {"status": 200, "json": {"status": "ready"}},
            },
            {
                "method": "POST",
                "url": "https://shipping.example/quotes",
                "json": {"order_id": "77"},
                "headers": {"X-Region": "eu"},
                "response": {"body_file": "quote.json", "headers": {"Retry-After": "1"}},
            },
        ],
    }
    loaded = ApiFixtures.from_mapping(data, base_dir=tmp_path)
    built = (
        assay.api(allow_hosts=["api.openai.com"])
        .expect_request("GET", URL, query={"id": "42"})
        .respond_with(json={"status": "ready"})
        .expect_request(
            "POST",
            "https://shipping.example/quotes",
            json={"order_id": "77"},
            headers={"X-Region": "eu"},
        )
        .respond_with(body_file=tmp_path / "quote.json", headers={"Retry-After": "1"})
    )
    assert loaded.definition() == built.definition()


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"interactions": [{"method": "GET", "url": URL, "respond": {}}]}, "api[0]"),
        ({"interactions": [{"method": "GET", "url": URL}]}, "api[0].response"),
        (
            {"interactions": [{"method": "GET", "url": URL, "response": {"json": 1, "code": 2}}]},
            "api[0].response",
        ),
        ({"interactions": [{"url": URL, "response": {"json": 1}}]}, "api[0]"),
        ({"hosts": []}, "api"),
        (
            {
                "interactions": [
                    {"method": "GET", "url": URL, "response": {"body_file": "missing.json"}}
                ]
            },
            "api[0].response.body_file",
        ),
    ],
)
def test_from_mapping_rejects_unknown_and_missing_fields(tmp_path, data, field):
    with pytest.raises(assay.SpecError) as raised:
        ApiFixtures.from_mapping(data, base_dir=tmp_path)
    assert raised.value.field == field


def test_from_mapping_without_a_base_dir_needs_absolute_paths(tmp_path):
    data = {
        "interactions": [{"method": "GET", "url": URL, "response": {"body_file": "quote.json"}}]
    }
    with pytest.raises(assay.SpecError, match="absolute path"):
        ApiFixtures.from_mapping(data, base_dir=None)


def test_case_snapshots_hide_asserted_credentials_and_do_not_fingerprint_them():
    def fixtures(token):
        return (
            assay.api()
            .expect_request("GET", URL, headers={"Authorization": token})
            .respond_with(json={})
        )

    suite = assay.Suite("S", agent=agent)
    suite.case("q", api=fixtures("Bearer sk-secret-one"))
    snapshot = json.dumps(suite.plan().cases[0].snapshot())
    assert "sk-secret-one" not in snapshot and "sha256:" not in snapshot
    assert '"authorization": "[redacted]"' in snapshot
    other = assay.Suite("S", agent=agent)
    other.case("q", api=fixtures("Bearer sk-secret-two"))
    # No stored form can be tested against guesses, so a rotated credential is the same case.
    assert suite.fingerprint() == other.fingerprint()
