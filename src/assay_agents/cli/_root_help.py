"""``assay-agents --help``: the command list drawn with Rich's panel and table alone.

Typer draws help through ``typer.rich_utils``, which loads Rich's Markdown and traceback
machinery on the way (about 0.2 s on a small machine, as long as everything else together).
The top-level help needs none of it: two panels, options and commands. The help of each
command stays Typer's own.
"""

from __future__ import annotations

from typing import Any


def format_root_help(group: Any, ctx: Any) -> None:
    """Write the group's usage, help text, options and commands as Typer's panels look."""
    from rich import box
    from rich.console import Console
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    console = Console(highlight=False)
    console.print()
    usage = " ".join([ctx.command_path, *group.collect_usage_pieces(ctx)])
    console.print(Text(" Usage: ", style="yellow").append(usage, style="bold"))
    console.print()
    if group.help:
        console.print(Text(f" {group.help}"))
        console.print()
    for title, rows in (("Options", _options(group, ctx)), ("Commands", _commands(group, ctx))):
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold cyan", no_wrap=True)
        table.add_column(overflow="fold")
        for name, text in rows:
            table.add_row(name, text)
        console.print(
            Panel(table, title=title, title_align="left", border_style="dim", box=box.ROUNDED)
        )


def _options(group: Any, ctx: Any) -> list[tuple[str, str]]:
    rows = []
    for param in group.get_params(ctx):
        record = param.get_help_record(ctx)
        if record is not None:
            rows.append((record[0], record[1]))
    return rows


def _commands(group: Any, ctx: Any) -> list[tuple[str, str]]:
    rows = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is not None and not command.hidden:
            rows.append((name, command.get_short_help_str(limit=300)))
    return rows
