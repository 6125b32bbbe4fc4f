"""Tables for people at any terminal width: as built when they fit, else transposed or listed."""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console, RenderableType
from rich.table import Table

__all__ = ["fit_table", "print_table"]


def _widths(table: Table) -> tuple[list[int], list[int]]:
    """Per column, the width it needs and the width it would like.

    Needed: its longest body cell or its header's longest word (headers may
    wrap between words, a number or a name may not). Liked: its longest line.
    """
    need, like = [], []
    for column in table.columns:
        body = max((cell_len(str(c)) for c in column.cells), default=0)
        header = str(column.header)
        need.append(max(body, max((cell_len(w) for w in header.split()), default=0)))
        like.append(max(body, max((cell_len(line) for line in header.splitlines()), default=0)))
    return need, like


def _frame(table: Table) -> int:
    """Columns of ``table`` taken by padding and borders."""
    borders = len(table.columns) + 1 if table.box is not None else 0
    return 2 * table.padding[1] * len(table.columns) + borders


def _fits(table: Table, console: Console) -> bool:
    """Whether ``table`` fits ``console`` with every body cell on one line."""
    return sum(_widths(table)[0]) + _frame(table) <= console.width


def _sized(table: Table, console: Console) -> Table:
    """``table`` with fixed column widths: what each needs, then the room left shared out.

    Rich shrinks a table wider than its console column by column and may cut
    a number to "…" even where wrapping a header would have made room; fixed
    widths leave it nothing to cut.
    """
    need, like = _widths(table)
    room = console.width - _frame(table) - sum(need)
    for column, n, w in zip(table.columns, need, like, strict=True):
        extra = min(max(room, 0), w - n)
        column.width = n + extra
        room -= extra
    return table


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
    if not table.show_header or not table.columns:
        return [table]
    if _fits(table, console):
        return [_sized(table, console)]
    transposed = _transposed(table)
    if _fits(transposed, console):
        return [_sized(transposed, console)]
    return list(_records(table))


def print_table(table: Table, console: Console) -> None:
    """Print ``table`` on ``console`` laid out by :func:`fit_table`."""
    for part in fit_table(table, console):
        console.print(part)
