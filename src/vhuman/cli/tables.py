"""Tables for people at any terminal width: as built when they fit, else transposed or listed."""

from __future__ import annotations

from rich.console import Console, RenderableType
from rich.table import Table

__all__ = ["fit_table", "print_table"]


def _fits(table: Table, console: Console) -> bool:
    """Whether ``table`` fits ``console`` at its natural width.

    Rich shrinks a table that is wider than the console and may cut words to
    "…" even when the sum of the longest words would fit, so only tables whose
    every cell fits unwrapped are printed as built.
    """
    # Rich clamps a measurement to the width it is given: measure on a wide page.
    unclamped = console.options.update_width(1_000_000)
    return console.measure(table, options=unclamped).maximum <= console.width


def _transposed(table: Table) -> Table:
    """``table`` with its columns as rows: the first column's cells become the headers."""
    columns = table.columns
    names = [str(c) for c in columns[0].cells]
    out = Table(title=table.title, caption=table.caption)
    out.add_column(str(columns[0].header))
    for name in names:
        out.add_column(name, justify="right")
    for column in columns[1:]:
        out.add_row(str(column.header), *(str(c) for c in column.cells))
    return out


def _records(table: Table) -> list[Table]:
    """One two-column table (header, value) per row of ``table``."""
    columns = table.columns
    rows = list(zip(*(list(c.cells) for c in columns), strict=True))
    records = []
    for row in rows:
        record = Table(title=f"{table.title}: {row[0]}" if table.title else str(row[0]))
        record.show_header = False
        for column, cell in zip(columns[1:], row[1:], strict=True):
            record.add_row(str(column.header).replace("\n", " "), str(cell))
        records.append(record)
    return records


def fit_table(table: Table, console: Console) -> list[RenderableType]:
    """``table`` laid out to fit ``console``'s width without cutting a number or a name.

    As built when it fits; else transposed (a table of many columns and few
    rows, such as one model per row and one horizon per column, fits as one
    row per horizon); else one small two-column table per row.

    Parameters
    ----------
    table : rich.table.Table
        A table with a header row whose first column names each row; its
        cells must be plain strings.
    console : rich.console.Console
        The console it is printed on (its ``width`` decides).

    Returns
    -------
    list of renderables
        What to print, in order.
    """
    if not table.show_header or _fits(table, console) or not table.columns:
        return [table]
    transposed = _transposed(table)
    if _fits(transposed, console):
        return [transposed]
    return list(_records(table))


def print_table(table: Table, console: Console) -> None:
    """Print ``table`` on ``console`` laid out by :func:`fit_table`."""
    for part in fit_table(table, console):
        console.print(part)
