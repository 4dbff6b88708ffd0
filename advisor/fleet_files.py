"""Fleet files: workloads in (CSV, JSON Lines or Parquet), row results out (CSV or Parquet).

Reading gives plain records for `recommend.fleet.parse_rows`; a CSV cell is text, a JSON Lines
or Parquet value keeps its type (a Parquet column of the wrong type is refused naming the
column). The results file is written as rows finish: a CSV file gets one flushed line per row,
so an interrupted run keeps what it finished and `--resume` skips those ids; a Parquet file is
written whole at the end, through a temporary file and a rename.
"""

import csv
import io
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from advisor.errors import InvalidInput, one_line
from advisor.userfiles import open_stream, read_bytes, read_text, write_bytes
from recommend.fleet import (
    CURRENT_DEPLOYMENT,
    CURRENT_MONTHLY_USD,
    ID,
    OUT_COLUMNS,
    RowResult,
    columns,
)
from recommend.request import WORKLOAD, size_fields

MAX_FLEET_BYTES = 256 * 2**20
SUFFIXES = (".csv", ".jsonl", ".ndjson", ".parquet")


def _suffix(path: Path, allowed: tuple[str, ...], what: str) -> str:
    suffix = path.suffix.lower()
    if suffix not in allowed:
        raise InvalidInput(f"{path}: the {what} must end in {', '.join(allowed)} "
                           f"(got {suffix or 'no extension'})")
    return suffix


def read_fleet(path: Path) -> list[dict[str, Any]]:
    """The file's records, column -> value, in file order."""
    suffix = _suffix(path, SUFFIXES, "fleet file")
    if suffix == ".parquet":
        return _parquet(path)
    text = read_text(path, what="fleet file", limit_bytes=MAX_FLEET_BYTES)
    if suffix == ".csv":
        reader = csv.DictReader(io.StringIO(text))
        records = []
        for line, record in enumerate(reader, start=1):
            if None in record:  # more cells than the header has names
                raise InvalidInput(f"{path}: row {line}: {len(record[None]) if record[None] else 0}"
                                   " cell(s) more than the header's columns")
            records.append(dict(record))
        if reader.fieldnames is None:
            raise InvalidInput(f"{path}: the fleet file is empty (a header row is needed)")
        _known_columns(path, reader.fieldnames)
        return records
    records = []
    for line, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            record = json.loads(raw)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise InvalidInput(f"{path}: line {line} is not JSON ({exc})") from None
        if not isinstance(record, dict):
            raise InvalidInput(f"{path}: line {line} is not a JSON object")
        records.append(record)
    return records


def _known_columns(path: Path, names: Sequence[str]) -> None:
    """A header naming a column no row may have is refused before any row is read."""
    known = set(columns())
    unknown = [n for n in names if n not in known]
    if unknown:
        raise InvalidInput(f"{path}: unknown column {unknown[0]!r} in the header (columns: id, "
                           "workload, the options of `advisor size` in snake_case, "
                           "current_deployment, current_monthly_usd)")


def _column_kinds() -> dict[str, str]:
    """What each Parquet column must hold: number, integer, bool or text."""
    kinds = {ID: "id", WORKLOAD.name: "text", CURRENT_DEPLOYMENT: "text",
             CURRENT_MONTHLY_USD: "number"}
    for name, d in size_fields().items():
        t = str(d.type)
        if d.opt.text is not None:
            kinds[name] = "any"
        elif d.type is bool:
            kinds[name] = "bool"
        elif d.type is int or t == "int | None":
            kinds[name] = "integer"
        elif d.type is float or t == "float | None":
            kinds[name] = "number"
        else:
            kinds[name] = "text"
    return kinds


def _parquet(path: Path) -> list[dict[str, Any]]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise InvalidInput(f"{path}: Parquet needs pyarrow: pip install 'advisor[fleet]'") \
            from None
    st = _stat(path)
    if st > MAX_FLEET_BYTES:
        raise InvalidInput(f"{path}: fleet file is {st:,} bytes, over the 256 MiB limit")
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowException) as exc:
        why = one_line(exc)
        raise InvalidInput(f"{path}: not a readable Parquet file ({why})") from None
    _known_columns(path, table.schema.names)
    kinds = _column_kinds()
    for fld in table.schema:
        kind = kinds.get(fld.name)
        if kind is None:
            continue  # parse_rows names the unknown column
        t = fld.type
        ok = {"id": pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_integer(t),
              "text": pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_null(t),
              "number": pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_null(t),
              "integer": pa.types.is_integer(t) or pa.types.is_null(t),
              "bool": pa.types.is_boolean(t) or pa.types.is_null(t),
              "any": True}[kind]
        if not ok:
            want = {"id": "text or integers", "text": "text", "number": "numbers",
                    "integer": "whole numbers", "bool": "booleans"}[kind]
            raise InvalidInput(f"{path}: column {fld.name!r} holds {t}, expected {want}")
    return [{k: v for k, v in rec.items() if v is not None} for rec in table.to_pylist()]


def _stat(path: Path) -> int:
    import stat as st_mod

    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InvalidInput(f"{path}: fleet file not found") from None
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read fleet file ({exc.strerror})") from None
    if not st_mod.S_ISREG(st.st_mode):
        raise InvalidInput(f"{path}: fleet file is not a regular file")
    return st.st_size


# -- results out ----------------------------------------------------------------------------


def check_out(path: Path) -> None:
    _suffix(path, (".csv", ".parquet"), "results file (--out)")
    from advisor.userfiles import check_output

    check_output(path, what="results file")


def done_rows(path: Path) -> list[dict[str, Any]]:
    """The rows already in a results file (for --resume); none if it does not exist yet."""
    if not path.exists():
        return []
    if path.suffix.lower() == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        data = read_bytes(path, what="results file", limit_bytes=MAX_FLEET_BYTES)
        try:
            table = pq.read_table(pa.BufferReader(data))
        except (OSError, pa.ArrowException) as exc:
            why = one_line(exc)
            raise InvalidInput(f"{path}: not a readable Parquet file ({why})") from None
        columns, rows = table.schema.names, list(table.to_pylist())
    else:
        text = read_text(path, what="results file", limit_bytes=MAX_FLEET_BYTES)
        reader = csv.DictReader(io.StringIO(text))
        columns, rows = list(reader.fieldnames or []), list(reader)
    if (columns or rows) and set(columns) != set(OUT_COLUMNS):
        raise InvalidInput(f"{path}: not a fleet results file (its columns differ); --resume "
                           "continues a file `advisor fleet --out` wrote")
    return rows


def _out_row(r: RowResult) -> dict[str, Any]:
    row = r.table_row()
    return {k: row.get(k) for k in OUT_COLUMNS}


class ResultsFile:
    """Rows written as they finish (CSV) or at the end (Parquet); `keep` are rows from an
    earlier run that `--resume` continues."""

    def __init__(self, path: Path, keep: list[RowResult]) -> None:
        self.path = path
        self.parquet = path.suffix.lower() == ".parquet"
        self.rows: list[dict[str, Any]] = [_out_row(r) for r in keep]
        self._file: Any = None
        if not self.parquet:  # the kept rows first, then each new row as it finishes
            self._file = open_stream(path, what="results file")
            self._csv = csv.DictWriter(self._file, fieldnames=OUT_COLUMNS)
            self._csv.writeheader()
            self._csv.writerows(self.rows)
            self._file.flush()

    def add(self, r: RowResult) -> None:
        row = _out_row(r)
        self.rows.append(row)
        if self._file is not None:
            self._csv.writerow(row)
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            return
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = pa.schema([(c, pa.float64() if c in ("monthly_usd", "current_monthly_usd",
                                                      "savings_monthly_usd") else pa.string())
                            for c in OUT_COLUMNS])
        table = pa.Table.from_pylist([_typed(r) for r in self.rows], schema=schema)
        buffer = io.BytesIO()
        pq.write_table(table, buffer)
        write_bytes(self.path, buffer.getvalue(), what="results file")


def _typed(row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for c in OUT_COLUMNS:
        v = row.get(c)
        if c in ("monthly_usd", "current_monthly_usd", "savings_monthly_usd"):
            out[c] = None if v in (None, "") else float(v)
        else:
            out[c] = None if v is None else str(v)
    return out


def kept_results(rows: list[dict[str, Any]]) -> list[RowResult]:
    """The finished rows of an earlier run as results (without their full `size` result); a row
    the cluster lost (status error) is not kept, so --resume runs it again."""
    out = []
    for row in rows:
        if row.get("status") in (None, "", "error") or not row.get("id"):
            continue
        values: dict[str, Any] = {c: (None if row.get(c) in (None, "") else row[c])
                                  for c in OUT_COLUMNS}
        for c in ("monthly_usd", "current_monthly_usd", "savings_monthly_usd"):
            if values[c] is not None:
                values[c] = float(values[c])
        values["reason"] = values["reason"] or ""
        out.append(RowResult(**values))
    return out
