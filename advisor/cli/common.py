"""Shared CLI pieces: output format, catalog option, JSON/CSV/table printing."""

import csv
import io
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich import box
from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    from advisor.catalog.model import Catalog


class PipeClosed(Exception):
    """The reader of stdout went away (`advisor ... | head -1`); `main` exits 141 quietly.

    Not an OSError: click turns a BrokenPipeError that reaches it into exit 1, which is this
    CLI's "SLO not met", and so does rich's console."""


class PipeConsole(Console):
    """A rich console whose closed pipe raises PipeClosed."""

    def on_broken_pipe(self) -> None:
        del self._buffer[:]  # what could not be written is dropped, as rich's own handler does
        raise PipeClosed


def write_stdout(text: str) -> None:
    """Data output on stdout; a closed pipe raises PipeClosed."""
    try:
        sys.stdout.write(text)
    except BrokenPipeError:
        raise PipeClosed from None


console = PipeConsole()
err_console = PipeConsole(stderr=True)


class Format(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


FormatOpt = Annotated[
    Format,
    typer.Option("--format", "-f", help="table for people, json or csv for tools"),
]
OutOpt = Annotated[
    Path | None,
    typer.Option("--out", help="also write the JSON result to this file", show_default=False,
                 dir_okay=False),
]
CatalogOpt = Annotated[
    list[Path] | None,
    typer.Option("--catalog", help="user catalog JSON that adds or overrides entries "
                 "(repeatable; also $ADVISOR_CATALOG)", show_default=False),
]


NARROW_BELOW = 100  # columns: a narrower terminal gets compact tables


def is_narrow() -> bool:
    return console.width < NARROW_BELOW


def new_table(title: str | None = None, *, narrow: bool | None = None, **kwargs: Any) -> Table:
    """A rich table: boxed on a wide terminal; below 100 columns compact (no side borders, one
    space of padding, a rule under the header) so that every column fits whole."""
    if is_narrow() if narrow is None else narrow:
        kwargs = {"box": box.SIMPLE_HEAD, "show_edge": False, "pad_edge": False,
                  "padding": (0, 1), "collapse_padding": True, **kwargs}
    return Table(title=title, **kwargs)


def num_column(table: Table, header: str) -> None:
    """A column of numbers: right-aligned, never wrapped (a value is never split across lines);
    keep its header no wider than its values."""
    table.add_column(header, justify="right", no_wrap=True)


def text_column(table: Table, header: str, *, wrap: bool = False) -> None:
    """A column of words: `wrap` for prose (wrapped between words), else kept on one line."""
    table.add_column(header, no_wrap=not wrap, overflow="fold" if wrap else "ellipsis")


def load(catalog_files: list[Path] | None) -> "Catalog":
    from advisor.userfiles import load_catalog

    return load_catalog(catalog_files or ())


def emit_json(data: Any) -> None:
    from advisor.serial import to_json

    write_stdout(json.dumps(to_json(data), indent=2) + "\n")


def flatten(record: Mapping[str, Any], skip: Sequence[str] = ()) -> dict[str, Any]:
    """A JSON object as one CSV row: nested keys joined with '.', short lists of plain values as
    JSON text; lists of objects (timelines, histograms, per-server details) and `skip` left out."""
    row: dict[str, Any] = {}

    def walk(value: Any, key: str) -> None:
        if isinstance(value, Mapping):
            for k, v in value.items():
                if k not in skip:
                    walk(v, f"{key}.{k}" if key else str(k))
        elif isinstance(value, list | tuple):
            if all(not isinstance(v, Mapping) for v in value):
                row[key] = json.dumps(value)
        else:
            row[key] = value

    walk(record, "")
    return row


def emit_csv(records: Iterable[Mapping[str, Any]], skip: Sequence[str] = ("sources", "notes"),
             ) -> None:
    """Rows of JSON objects as one CSV table on stdout: a header row of the union of their
    (flattened) keys in first-seen order, then raw values (numbers unformatted, null empty)."""
    from advisor.serial import to_json

    rows = [flatten(to_json(r), skip) for r in records]
    header: dict[str, None] = {}
    for row in rows:
        header.update(dict.fromkeys(row))
    for key in [k for k in header if any(h.startswith(f"{k}.") for h in header)]:
        del header[key]  # null in some rows, an object in others: the object's keys stand
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        writer.writerow(["" if row.get(k) is None else row[k] for k in header])
    write_stdout(text.getvalue())


def write_out(out: Path | None, data: Any) -> None:
    """`--out FILE`: the JSON result, written as every command writes it."""
    if out is not None:
        from advisor.serial import to_json
        from advisor.userfiles import write_json

        write_json(out, to_json(data))


def usd(value: float) -> str:
    return f"${value:,.2f}"


def fmt_ms(value: float | None, digits: int = 3) -> str:
    """A latency in ms for a table cell; '-' when there is none."""
    return "-" if value is None else f"{value:,.{digits}f}"
