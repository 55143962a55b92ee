"""Many rows into one table with one ``executemany``, converted as SQLAlchemy converts them.

A batch of samples is a few thousand rows. Executed as ``connection.execute(insert(table),
rows)``, SQLAlchemy builds the parameters of every row anew, looking each column's converter
up each time: on SQLite that costs five times the driver's own work. Here the statement is
compiled once per dialect and column set, each column's converter (the type's own bind
processor, as SQLAlchemy would apply it) is looked up once, and the converted rows go to the
driver's ``executemany`` as they are. Events, errors and transactions are the connection's,
as for any statement it executes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Connection, Dialect, Table, insert
from sqlalchemy.exc import StatementError

#: A row to insert, by column name (every row of a batch names the same columns).
Row = dict[str, Any]
Convert = Callable[[Any], Any]


class _Compiled:
    """An INSERT of some columns, compiled for one dialect, with each column's converter."""

    def __init__(self, table: Table, columns: tuple[str, ...], dialect: Dialect) -> None:
        compiled = insert(table).compile(dialect=dialect, column_keys=list(columns))
        self.sql = compiled.string
        self.positional = bool(compiled.positional)
        # The parameter order of a positional style ("?"), else the names the SQL uses.
        self.names: tuple[str, ...] = tuple(compiled.positiontup or columns)
        unknown = set(self.names) - set(columns)
        if unknown:  # a column default the SQL binds: this path never leaves one out
            raise ValueError(f"insert into {table.name}: unbound {sorted(unknown)}")
        self.converters: tuple[tuple[int, str, Convert], ...] = tuple(
            (index, name, converter)
            for index, name in enumerate(self.names)
            if (converter := table.c[name].type.dialect_impl(dialect).bind_processor(dialect))
            is not None
        )

    def parameters(self, rows: Sequence[Row]) -> list[Any]:
        """The rows as the driver takes them: tuples in order, or dicts by name.

        A value its column's type cannot convert fails as SQLAlchemy's own execution fails
        (a :class:`~sqlalchemy.exc.StatementError`), so callers see one kind of error.
        """
        try:
            return self._converted(rows)
        except (TypeError, ValueError, OverflowError) as error:
            raise StatementError(
                f"({type(error).__name__}) {error}", self.sql, None, error
            ) from error

    def _converted(self, rows: Sequence[Row]) -> list[Any]:
        names, converters = self.names, self.converters
        if self.positional:
            ordered: list[Any] = []
            for row in rows:
                values = [row[name] for name in names]
                for index, _, convert in converters:
                    values[index] = convert(values[index])
                ordered.append(tuple(values))
            return ordered
        named: list[Any] = []
        for row in rows:
            values_by_name = {name: row[name] for name in names}
            for _, name, convert in converters:
                values_by_name[name] = convert(values_by_name[name])
            named.append(values_by_name)
        return named


class BulkInserts:
    """Compiled inserts kept per table and column set, for the dialect of one engine."""

    def __init__(self) -> None:
        self._compiled: dict[tuple[str, str, tuple[str, ...]], _Compiled] = {}

    def insert(self, connection: Connection, table: Table, rows: Sequence[Row]) -> None:
        """Insert ``rows`` (all naming the same columns) into ``table`` in one executemany."""
        if not rows:
            return
        dialect = connection.dialect
        columns = tuple(rows[0])
        key = (dialect.name, table.name, columns)
        compiled = self._compiled.get(key)
        if compiled is None:
            compiled = self._compiled[key] = _Compiled(table, columns, dialect)
        parameters = compiled.parameters(rows)
        try:
            connection.exec_driver_sql(compiled.sql, parameters)
        except (TypeError, ValueError, OverflowError) as error:
            # psycopg serialises JSON while it executes: a value that is not JSON fails there.
            raise StatementError(
                f"({type(error).__name__}) {error}", compiled.sql, None, error
            ) from error
