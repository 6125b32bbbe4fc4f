"""Tables fit the terminal: nothing cut to an ellipsis, every figure printed whole."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from rich.table import Table

from vhuman.cli.tables import fit_table, print_table


def _table(n_columns: int, n_rows: int) -> Table:
    table = Table(title="figures")
    table.add_column("model")
    for c in range(n_columns):
        table.add_column(f"{80 * (c + 1)} ms\n(true {33 * (c + 1)})", justify="right")
    for r in range(n_rows):
        table.add_row(f"model_name_{r}", *(f"{100 + 1.25 * r * c:.2f}" for c in range(n_columns)))
    return table


def _printed(table: Table, width: int) -> str:
    out = io.StringIO()
    print_table(table, Console(file=out, width=width, highlight=False))
    return out.getvalue()


@pytest.mark.parametrize(("n_columns", "n_rows"), [(2, 3), (10, 4), (12, 2), (30, 12)])
@pytest.mark.parametrize("width", [80, 120])
def test_every_cell_is_printed_whole(n_columns: int, n_rows: int, width: int) -> None:
    text = _printed(_table(n_columns, n_rows), width)
    assert "…" not in text
    assert all(len(line) <= width for line in text.splitlines())
    for r in range(n_rows):
        assert f"model_name_{r}" in text
        for c in range(n_columns):
            assert f"{100 + 1.25 * r * c:.2f}" in text


def test_a_table_that_fits_is_left_as_built() -> None:
    table = _table(2, 3)
    assert fit_table(table, Console(width=80)) == [table]


def test_a_wide_table_of_few_rows_is_transposed() -> None:
    (out,) = fit_table(_table(10, 4), Console(width=80))
    assert isinstance(out, Table)
    assert [str(c.header) for c in out.columns] == ["model"] + [f"model_name_{r}" for r in range(4)]
    assert len(out.rows) == 10


def test_a_table_too_wide_either_way_becomes_one_record_per_row() -> None:
    parts = fit_table(_table(30, 12), Console(width=80))
    assert len(parts) == 12
