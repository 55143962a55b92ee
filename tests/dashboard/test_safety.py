"""The dashboard stays read-only and private: methods, headers, escaping, errors, the token."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser

import pytest
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.testclient import TestClient

from assay_agents.dashboard import create_app
from assay_agents.dashboard.app import login_path
from assay_agents.dashboard.security import Access
from assay_agents.store import Store
from hostile import raw_controls

from .conftest import History


@pytest.fixture
def store(sqlite_history: History) -> Iterator[Store]:
    with Store.open(sqlite_history.url) as opened:
        yield opened


@pytest.fixture
def client(store: Store) -> Iterator[TestClient]:
    with TestClient(create_app(store)) as client:
        yield client


class Markup(HTMLParser):
    """Every element and attribute of a page."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _pages(history: History) -> list[str]:
    run, hostile = history.regressed, history.hostile
    return [
        "/",
        f"/runs/{run.id}",
        f"/runs/{run.id}/case?id=returns",
        f"/runs/{hostile.id}",
        f"/runs/{hostile.id}/case?id=hostile-case",
        "/trends",
        "/trends?suite=Customer+support",
        f"/compare?baseline={history.reference.id}&current={run.id}",
        "/compare",
    ]


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"])
@pytest.mark.parametrize("path", ["/", "/runs/anything", "/static/dashboard.css", "/nowhere"])
def test_every_other_method_is_refused(client: TestClient, method: str, path: str) -> None:
    answer = client.request(method, path)
    assert answer.status_code == 405
    assert answer.headers["allow"] == "GET, HEAD"
    assert "read-only" in answer.text and answer.headers["x-frame-options"] == "DENY"


def test_every_page_is_strict_about_scripts_frames_and_types(
    client: TestClient, sqlite_history: History
) -> None:
    run = sqlite_history.regressed.id
    for path in [
        *_pages(sqlite_history),
        "/static/dashboard.css",
        f"/runs/{run}/run.json",
        "/runs/no-such-run",
        "/?page=zero",
    ]:
        answer = client.get(path)
        policy = answer.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy, path
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert answer.headers["referrer-policy"] == "no-referrer"
        assert answer.headers["x-frame-options"] == "DENY"


def test_pages_carry_no_inline_script_style_or_handler(
    client: TestClient, sqlite_history: History
) -> None:
    for path in _pages(sqlite_history):
        answer = client.get(path)
        assert answer.status_code == 200, (path, answer.text)
        for tag, attrs in Markup(answer.text).tags:
            assert not [name for name in attrs if name.startswith("on")], (path, tag)
            assert "style" not in attrs, (path, tag)
            if tag == "script":
                assert (attrs.get("src") or "").startswith("/static/"), path
            assert tag not in ("iframe", "img", "object", "embed", "base"), (path, tag)


def test_hostile_text_reads_as_characters_on_every_page(
    client: TestClient, sqlite_history: History
) -> None:
    hostile = sqlite_history.hostile
    for path in (
        "/",
        f"/runs/{hostile.id}",
        f"/runs/{hostile.id}/case?id=hostile-case",
        f"/trends?suite={hostile.suite}",
    ):
        answer = client.get(path)
        assert answer.status_code == 200, path
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in answer.text, path
        assert "<script>alert" not in answer.text and "<img src=x" not in answer.text
        assert not raw_controls(answer.text), path
        assert "\u202e" not in answer.text  # the override is shown as an escape


@pytest.mark.parametrize(
    "path",
    [
        "/?page=0",
        "/?page=abc",
        "/?per=100000",
        "/?status=finished",
        "/?from=2026-13-01",
        "/?from=2026-02-02&to=2026-02-01",
        "/?meta=novalue",
        "/trends?suite=x&limit=1",
        "/runs/{run}/case",
        "/runs/{run}/run.json?download=yes",
        "/runs/{run}/report.md?part=everything",
        "/?page=%C2%B2",  # a superscript two: a digit to str.isdigit, not to int()
        "/?per=%D9%A1",  # an Arabic-Indic one
    ],
)
def test_malformed_parameters_are_400_pages(
    client: TestClient, sqlite_history: History, path: str
) -> None:
    answer = client.get(path.format(run=sqlite_history.regressed.id))
    assert answer.status_code == 400
    assert "Bad request" in answer.text and "Traceback" not in answer.text
    query = path.partition("?")[2]
    if query:  # the page names the (last) parameter that does not read
        assert f"?{query.rpartition('&')[2].partition('=')[0]}" in answer.text, path


@pytest.mark.parametrize(
    "path",
    [
        "/runs/0000-no-such-run",
        "/runs/Customer%20support%2399",
        "/runs/Customer%20support%2399999999999999999999999",  # past any integer column
        "/runs/{run}/case?id=no-such-case",
        "/runs/{run}/case.json?id=no-such-case",
        "/runs/nope/report.json",
        "/nowhere/at/all",
        "/static/missing.css",
    ],
)
def test_unknown_ids_are_404_pages(client: TestClient, sqlite_history: History, path: str) -> None:
    answer = client.get(path.format(run=sqlite_history.regressed.id))
    assert answer.status_code == 404
    assert "Traceback" not in answer.text


def test_every_link_follows_the_mount_path(store: Store, sqlite_history: History) -> None:
    host = Starlette(routes=[Mount("/team/evals", app=create_app(store))])
    run = sqlite_history.regressed
    with TestClient(host) as client:
        for path in ("/team/evals/", f"/team/evals/runs/{run.id}"):
            answer = client.get(path)
            assert answer.status_code == 200
            links = [
                attrs.get("href") or attrs.get("src") or attrs.get("action")
                for tag, attrs in Markup(answer.text).tags
                if tag in ("a", "link", "script", "form")
            ]
            local = [link for link in links if link and not link.startswith("#")]
            assert local and all(link.startswith("/team/evals/") for link in local), local
            for link in {link.replace("&amp;", "&") for link in local[:25]}:
                assert client.get(link).status_code == 200, link


def test_a_token_guards_every_page_and_a_login_link_works_once(store: Store) -> None:
    app = create_app(store, token="correct horse")
    with TestClient(app) as client:
        refused = client.get("/")
        assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
        assert client.get("/", headers={"Authorization": "Bearer wrong"}).status_code == 401
        bearer = client.get("/", headers={"Authorization": "Bearer correct horse"})
        assert bearer.status_code == 200
        link = login_path(app)
        assert link is not None and "correct" not in link
        signed = client.get(link, follow_redirects=False)
        assert signed.status_code == 303
        cookie = signed.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie and "correct" not in cookie
        assert client.get("/").status_code == 200  # the cookie now admits
        client.cookies.clear()
        assert client.get(link, follow_redirects=False).status_code == 401  # spent
        assert client.get("/").status_code == 401


def test_a_token_beyond_ascii_is_admitted_as_utf8_bytes(store: Store) -> None:
    app = create_app(store, token="tökén")
    with TestClient(app) as client:
        sent = client.get("/", headers={"Authorization": "Bearer tökén".encode()})
        assert sent.status_code == 200
        assert client.get("/", headers={"Authorization": "Bearer tken"}).status_code == 401
    # What the guard hands over: each header byte as one Latin-1 character.
    access = Access("tökén")
    assert access.admits({"authorization": "Bearer tökén".encode().decode("latin-1")})
    assert not access.admits({"authorization": "Bearer tökén"})  # its Latin-1 bytes differ


def test_the_token_may_come_from_the_environment(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_DASHBOARD_TOKEN", "from-env")
    with TestClient(create_app(store)) as client:
        assert client.get("/").status_code == 401
        assert client.get("/", headers={"Authorization": "Bearer from-env"}).status_code == 200


@pytest.mark.postgres
def test_the_database_password_never_shows(postgres_history: History) -> None:
    from sqlalchemy.engine import make_url

    secret = "pw-never-shown-7f3a"
    url = make_url(postgres_history.url).set(password=secret).render_as_string(hide_password=False)
    app = create_app(url)
    with TestClient(app) as client:
        for path in [*_pages(postgres_history), "/runs/missing-run", "/?page=x"]:
            answer = client.get(path)
            assert secret not in answer.text and secret not in str(answer.headers), path


def test_the_core_never_imports_the_dashboard() -> None:
    code = "import assay_agents, assay_agents.cli.app, assay_agents.report\n"
    code += "import assay_agents.evaluation\nimport sys\n"
    code += "print(*sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(done.stdout.split())
    assert not {"assay_agents.dashboard", "starlette", "uvicorn"} & loaded


def test_every_page_names_the_packaged_icon_so_a_browser_asks_for_no_other(
    client: TestClient, sqlite_history: History
) -> None:
    for path in _pages(sqlite_history):
        links = [
            attributes
            for tag, attributes in Markup(client.get(path).text).tags
            if tag == "link" and attributes.get("rel") == "icon"
        ]
        assert [each.get("href") for each in links] == ["/static/favicon.svg"], path
    icon = client.get("/static/favicon.svg")
    assert icon.status_code == 200 and icon.headers["content-type"] == "image/svg+xml"
    assert icon.text.startswith("<svg")
