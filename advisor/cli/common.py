"""Shared CLI pieces: output format, catalog option, JSON/table printing."""

import json
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

if TYPE_CHECKING:
    from advisor.catalog.model import Catalog

console = Console()
err_console = Console(stderr=True)


class Format(str, Enum):
    table = "table"
    json = "json"


FormatOpt = Annotated[
    Format,
    typer.Option("--format", "-f", help="table for people, json for tools"),
]
CatalogOpt = Annotated[
    list[Path] | None,
    typer.Option("--catalog", help="user catalog JSON that adds or overrides entries "
                 "(repeatable; also $ADVISOR_CATALOG)", show_default=False),
]


def load(catalog_files: list[Path] | None) -> "Catalog":
    from advisor.userfiles import load_catalog

    return load_catalog(catalog_files or ())


def emit_json(data: Any) -> None:
    from advisor.serial import to_json

    sys.stdout.write(json.dumps(to_json(data), indent=2) + "\n")


def usd(value: float) -> str:
    return f"${value:,.2f}"


def fmt_ms(value: float | None, digits: int = 3) -> str:
    """A latency in ms for a table cell; '-' when there is none."""
    return "-" if value is None else f"{value:,.{digits}f}"
