"""A hostile corpus: text an agent, a judge, a remote endpoint or a suite file may hand Assay.

Every surface that prints or writes text is fed these strings; the helpers below say what must
not survive. Credentials are assembled from parts so that no scanner mistakes this file for a
leak; none of them is real.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

#: Characters a terminal acts on: titles, screen clears, bells, overwrites, reordering.
CONTROLS = {
    "osc_title": "\x1b]0;pwned\x07",
    "clear_screen": "\x1b[2J\x1b[H",
    "colour": "\x1b[31mred\x1b[0m",
    "bell": "ring\x07",
    "backspaces": "safe\x08\x08\x08\x08evil",
    "carriage_return": "harmless\rEVIL",
    "c1_csi": "\x9b31m",
    "c1_osc": "\x9d0;pwned\x9c",
    "delete": "a\x7fb",
    "vertical_tab": "a\x0bb",
    "form_feed": "page\x0cbreak",
    "separators": "file\x1cgroup\x1drecord\x1e",
    "next_line": "a\x85b",
    "line_separator": "a\u2028b\u2029c",
    "noncharacters": "a\ufffeb\uffffc\ufdd0d\U0001fffe",
    "rlo": "invoice\u202efdp.exe",
    "lre_pdf": "\u202aembedded\u202c",
    "isolates": "\u2066x\u2067y\u2068z\u2069",
    "marks": "\u200eleft\u200fright\u061carabic",
}

#: Markup that must stay text in Markdown (and, later, HTML).
MARKUP = {
    "script": "<script>alert(1)</script>",
    "img_onerror": "<img src=x onerror=alert(1)>",
    "remote_image": "![pixel](https://evil.example/p.png)",
    "js_link": "[click](javascript:alert(1))",
    "reference": "[ref]: https://evil.example/ref.png",
    "autolink": "<https://evil.example/auto>",
    "bare_url": "see https://evil.example/bare and www.evil.example",
    "github_links": "user@evil.example mailto:a@evil.example xmpp:u@evil.example @octocat #1 GH-1",
    "fence": "```\nbroken out\n```",
    "long_fence": "`````` and ``",
    "heading": "# pwned heading",
    "setext": "pwned setext\n===",
    "table": "| a | b |\n| --- | --- |\n| c | d |",
    "html_comment": "<!-- hidden -->",
    "details_close": "</details><iframe src=https://evil.example>",
    "emphasis": "**bold** _em_ ~~struck~~",
    "math": "$\\color{red}{pwned}$",
    "entity": "&lt;script&gt;",
}

#: Rich console markup that must stay text on the terminal: a link, a style, a stray closing tag.
RICH = {
    "link": "[link=https://evil.example/rich]click here[/link]",
    "bold": "[bold]loud[/bold]",
    "close": "[/] and [/bold]",
}

_R = "k7Qm2Xv9Lp4Zt8Wn3Rb6Yc1Hd5Fg0Js"  # base62 filler, no real key anywhere


def _token(prefix: str, length: int, alphabet: str = _R) -> str:
    return prefix + (alphabet * 4)[:length]


#: Credential shapes that evidence must never show.
CREDENTIALS = {
    "github_classic": _token("gh" + "p_", 36),
    "github_fine": _token("github" + "_pat_", 60),
    "slack_bot": "xox" + "b-" + "1234567890-1234567890-" + _R[:24],
    "slack_app": "xap" + "p-1-A0123456789-" + _R[:20],
    "jwt": "eyJ" + "hbGciOiJIUzI1NiJ9." + "eyJ" + "zdWIiOiIxMjM0In0." + _R[:27],
    "aws_access_key": "AKI" + "A" + "Q3EGX7ZJ2NUW5K4M",
    "google_api_key": _token("AI" + "za", 35),
    "stripe_live": _token("sk" + "_live_", 24),
    "stripe_webhook": _token("wh" + "sec_", 32),
    "openai": _token("sk" + "-proj-", 40),
    "bearer": "Bearer " + _R,
    "telegram_bot": _token("123456789:" + "AA", 33),
    "gitlab": _token("glp" + "at-", 20),
    "gitlab_trigger": _token("glp" + "tt-", 40, "0123456789abcdef"),
    "gitlab_deploy": _token("gl" + "dt-", 20),
    "huggingface": _token("h" + "f_", 34),
    "npm": _token("np" + "m_", 36),
    "twilio": "S" + "K" + "0123456789abcdef0123456789abcdef",
    "aws_secret": "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY",
}

#: Everything above in one string: the worst a single field can hold.
EVERYTHING = " ".join([*CONTROLS.values(), *MARKUP.values(), *RICH.values()])

_TERMINAL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
    "\u2028\u2029\ufdd0-\ufdef\ufffe\uffff\U0001fffe\U0001ffff]"
)


def raw_controls(text: str) -> list[str]:
    """The control, line-separator, bidirectional and non-characters left raw in ``text``.

    Newlines and tabs aside: they are the only breaks and blanks a surface may keep.
    """
    return sorted({f"U+{ord(char):04X}" for char in _TERMINAL.findall(text)})


#: What a Markdown report may render: its own structure, never a link, image or script.
ALLOWED_TAGS = {
    "h1",
    "h2",
    "h3",
    "p",
    "ul",
    "li",
    "strong",
    "em",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "blockquote",
    "pre",
    "code",
    "details",
    "summary",
    "br",
}


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.headings: list[str] = []
        self._heading: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))
        if re.fullmatch(r"h\d", tag):
            self._heading = []

    def handle_endtag(self, tag: str) -> None:
        if re.fullmatch(r"h\d", tag) and self._heading is not None:
            self.headings.append("".join(self._heading))
            self._heading = None

    def handle_data(self, data: str) -> None:
        if self._heading is not None:
            self._heading.append(data)

    def handle_comment(self, data: str) -> None:
        self.tags.append(("!--", []))


def render_markdown(markdown: str) -> str:
    """Render as a CommonMark renderer with GitHub's tables and raw HTML passing through."""
    from markdown_it import MarkdownIt

    return (
        MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"]).render(markdown)
    )


def live_markup(markdown: str) -> list[str]:
    """What in ``markdown`` would render as live markup rather than as the text written."""
    parser = _Tags()
    parser.feed(render_markdown(markdown))
    found = [f"<{tag}>" for tag, _ in parser.tags if tag not in ALLOWED_TAGS]
    # The only attribute the report itself makes: a fence's language.
    found += [
        f"{tag} {name}"
        for tag, attrs in parser.tags
        for name, _ in attrs
        if (tag, name) != ("code", "class")
    ]
    # The corpus's own headings begin with "pwned"; the report's headings only quote it.
    found += [f"heading {text!r}" for text in parser.headings if text.startswith("pwned")]
    found += [f"autolink {m.group()!r}" for m in _AUTOLINKS.finditer(outside_code(markdown))]
    return found


# GitHub links bare URLs, www. names, email addresses, mailto: and xmpp:, and (as mentions
# and references) @name, #1 and GH-1; an escaped "\:" or "www\.", or a zero-width space
# entity after "@", "#" or "GH-", is not linked.
_AUTOLINKS = re.compile(
    r"(?<!\\)(?<=[A-Za-z])://|(?<![\w.\\])www\.|@\w|(?<![\w&])#\d|(?i:\bgh-\d)"
    r"|(?i:\b(?:mailto|xmpp):)"
)
_FENCED = re.compile(r"^(`{3,})[^\n]*\n.*?^\1\s*$", re.MULTILINE | re.DOTALL)
_SPAN = re.compile(r"(?<![`\\])(`+)(?!`).+?(?<!`)\1(?!`)")


def outside_code(markdown: str) -> str:
    """The Markdown with its fenced code blocks and code spans taken out."""
    return _SPAN.sub("", _FENCED.sub("", markdown))
