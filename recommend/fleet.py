"""Fleet sizing: many workloads, each sized by the same core call as `advisor size`.

Pure: rows arrive as mappings (the adapters read CSV, JSON Lines or Parquet), each becomes a
`FleetRow` holding the same `SizeRequest` `advisor size` would build from the same options, and
`size_row` calls `recommend.run.run_size` on it. Where the rows run (in this process or on a Dask
cluster) is the adapters' business (`advisor.fleet_run`); `summarise` turns the results into the
fleet report's figures.

A file that is malformed as a whole (an unknown column, a row without an id, a repeated id) is
refused with `FleetFileError` naming the row; a row whose values are wrong is a failed row with
its one-line reason, and the others still run.
"""

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from advisor.catalog.model import Catalog
from advisor.errors import AdvisorError, InfeasibleSlo, InvalidInput
from advisor.layout.spec import parse_spec
from advisor.options import Declared, FieldError, show_value
from advisor.serial import to_json
from recommend.request import WORKLOAD, SizeRequest, size_fields, size_request
from recommend.result import MysqlDeployment, SizeResult

ID = "id"
CURRENT_DEPLOYMENT = "current_deployment"
CURRENT_MONTHLY_USD = "current_monthly_usd"
MAX_ID_CHARS = 200
Status = Literal["ok", "no_slo", "invalid", "error"]
STATUSES: tuple[Status, ...] = ("ok", "no_slo", "invalid", "error")


class FleetFileError(InvalidInput):
    """The fleet file as a whole is malformed: its message names the row or the column."""


def columns() -> tuple[str, ...]:
    """Every column a fleet file may have: the id, the workload, `size`'s options, and the
    current deployment with its monthly cost."""
    return (ID, WORKLOAD.name, *size_fields(), CURRENT_DEPLOYMENT, CURRENT_MONTHLY_USD)


@dataclass(frozen=True, slots=True, kw_only=True)
class FleetRow:
    """One workload of the fleet: its request, or why it has none (a malformed row)."""

    id: str
    line: int  # 1-based row number in the file (after the header)
    workload: str
    request: SizeRequest | None
    problem: str | None = None  # why the row's values are refused (then request is None)
    current_deployment: str | None = None
    current_monthly_usd: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RowResult:
    """One row's answer: the recommendation's figures (status ok) or the one-line reason."""

    id: str
    workload: str
    status: Status
    reason: str = ""
    deployment: str | None = None
    monthly_usd: float | None = None
    instance_family: str | None = None
    storage: str | None = None  # the device of the recommendation's layout (gp3, io2, store...)
    raid: str | None = None  # raid0 / raid1 / raid10, or "none"
    current_deployment: str | None = None
    current_monthly_usd: float | None = None
    savings_monthly_usd: float | None = None  # current - recommended, when both are known
    result: dict[str, Any] | None = field(default=None, compare=True)  # the `size` result JSON

    def table_row(self) -> dict[str, Any]:
        """The row as the --out file holds it (the full result stays in the runs store)."""
        return {k: v for k, v in to_json(self).items() if k != "result"}


OUT_COLUMNS = ("id", "workload", "status", "reason", "deployment", "monthly_usd",
               "instance_family", "storage", "raid", "current_deployment",
               "current_monthly_usd", "savings_monthly_usd")


def _cell(d: Declared, value: Any) -> Any:
    """A value typed as text (a CSV cell) read by its declared type; other values as they are."""
    if not isinstance(value, str) or d.opt.text is not None:
        return value
    text = value.strip()
    kinds = str(d.type)
    try:
        if d.type is bool:
            low = text.lower()
            if low in ("true", "yes", "1"):
                return True
            if low in ("false", "no", "0"):
                return False
            raise FieldError(d.name, value, "must be true or false")
        if d.type is int or kinds == "int | None":
            return int(text)
        if d.type is float or kinds == "float | None":
            return float(text)
    except ValueError:
        what = "a whole number" if d.type is int or "int" in kinds else "a number"
        raise FieldError(d.name, value, f"must be {what}") from None
    return text


def _row_id(raw: Any, line: int) -> str:
    if raw is None or (isinstance(raw, float) and math.isnan(raw)):
        raise FleetFileError(f"row {line}: no id (every row needs a unique id)")
    text = str(raw).strip()
    if not text:
        raise FleetFileError(f"row {line}: no id (every row needs a unique id)")
    if len(text) > MAX_ID_CHARS:
        raise FleetFileError(f"row {line}: id {show_value(text)} is over {MAX_ID_CHARS} "
                             "characters")
    return text


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip()) or (
        isinstance(value, float) and math.isnan(value))


def parse_rows(records: Iterable[Mapping[str, Any]]) -> list[FleetRow]:
    """The fleet's rows from mappings of column -> value (text cells parsed by each option's
    type; blank cells take `size`'s default). Raises FleetFileError for an unknown column, a
    row without an id or a repeated id; a row with a bad value keeps its one-line problem."""
    known = set(columns())
    fields = size_fields()
    seen: dict[str, int] = {}
    rows = []
    for line, record in enumerate(records, start=1):
        unknown = sorted(set(record) - known)
        if unknown:
            raise FleetFileError(f"row {line}: unknown column {unknown[0]!r} (columns: id, "
                                 "workload, the options of `advisor size` in snake_case, "
                                 f"{CURRENT_DEPLOYMENT}, {CURRENT_MONTHLY_USD})")
        row_id = _row_id(record.get(ID), line)
        if row_id in seen:
            raise FleetFileError(f"row {line}: id {show_value(row_id)} repeats row "
                                 f"{seen[row_id]}")
        seen[row_id] = line
        rows.append(_row(row_id, line, record, fields))
    if not rows:
        raise FleetFileError("the fleet file has no rows")
    return rows


def _row(row_id: str, line: int, record: Mapping[str, Any],
         fields: Mapping[str, Declared]) -> FleetRow:
    workload = record.get(WORKLOAD.name)
    workload = "mysql" if _blank(workload) else str(workload).strip()
    current = record.get(CURRENT_DEPLOYMENT)
    current = None if _blank(current) else str(current).strip()
    cost: float | None = None
    try:
        raw_cost = record.get(CURRENT_MONTHLY_USD)
        if not _blank(raw_cost):
            cost = _current_cost(raw_cost)
        options = {name: _cell(fields[name], value) for name, value in record.items()
                   if name in fields and not _blank(value)}
        request = size_request({**options, WORKLOAD.name: workload})
    except AdvisorError as exc:
        problem = exc.named(exc.name) if isinstance(exc, FieldError) else str(exc)
        return FleetRow(id=row_id, line=line, workload=workload, request=None,
                        problem=problem, current_deployment=current, current_monthly_usd=cost)
    return FleetRow(id=row_id, line=line, workload=workload, request=request,
                    current_deployment=current, current_monthly_usd=cost)


def _current_cost(raw: Any) -> float:
    if isinstance(raw, bool):
        raise FieldError(CURRENT_MONTHLY_USD, raw, "must be a number (USD a month)")
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise FieldError(CURRENT_MONTHLY_USD, raw, "must be a number (USD a month)") from None
    if not math.isfinite(value):  # 'nan', 'inf', or a figure past a float such as 1e400
        raise FieldError(CURRENT_MONTHLY_USD, raw, "must be a finite number (USD a month)")
    if value < 0:
        raise FieldError(CURRENT_MONTHLY_USD, raw, "must be 0 or more (USD a month)")
    return value


def infeasible_line(exc: InfeasibleSlo) -> str:
    """Why no deployment meets the SLO, in one line (the budget when deployments meet it above
    the budget, else the lowest p99 found when there is one)."""
    if exc.over_budget is not None:
        return f"no layout meets the SLO within max_monthly_usd: {exc.over_budget}"
    if exc.best_p99_ms is not None:
        return f"no layout meets the SLO: the lowest p99 found is {exc.best_p99_ms:,.2f} ms " \
               f"({exc.best})"
    first = str(exc).partition("; ")[0]
    return "no layout meets the SLO: " + (first if len(first) <= 200 else first[:199] + "…")


# Event-simulation results shared by the rows a process sizes (in this process, or on one Dask
# worker): rows alike in what a simulation depends on (a fleet's identical replicas of one
# database, say) reuse it, to the bit (`run_size(memo=...)`). Bounded: emptied when full.
_ROW_MEMO: dict[str, Any] = {}
ROW_MEMO_MAX = 4096  # a MySQL replication ~5 KB: ~20 MB at most


def size_row(row: FleetRow, catalog: Catalog) -> RowResult:
    """One row sized by `advisor size`'s core call (no clock: the result is the same wherever
    it runs). A refused row or an SLO nobody meets is a result, not an exception."""
    from recommend.run import run_size

    if len(_ROW_MEMO) > ROW_MEMO_MAX:
        _ROW_MEMO.clear()

    base: dict[str, Any] = {"id": row.id, "workload": row.workload,
                            "current_deployment": row.current_deployment,
                            "current_monthly_usd": row.current_monthly_usd}
    if row.request is None:
        return RowResult(status="invalid", reason=row.problem or "invalid row", **base)
    if row.request.region is not None and row.request.region != catalog.region:
        return RowResult(status="invalid", reason=f"region {row.request.region!r}: the "
                         f"catalog holds {catalog.region}", **base)
    try:
        result = run_size(row.request, catalog, memo=_ROW_MEMO)
    except InfeasibleSlo as exc:
        return RowResult(status="no_slo", reason=infeasible_line(exc), **base)
    except FieldError as exc:
        return RowResult(status="invalid", reason=exc.named(exc.name), **base)
    except AdvisorError as exc:
        return RowResult(status="invalid", reason=str(exc), **base)
    except Exception as exc:  # a bug in one row must not stop the fleet; it is reported as one
        return RowResult(status="error", reason=f"internal error: {type(exc).__name__}: {exc}",
                         **base)
    return _answer(result, base)


def _answer(result: SizeResult, base: dict[str, Any]) -> RowResult:
    rec = result.recommendation
    # The layout that carries the workload: the master's, or a replica's when the master
    # receives no transactions (a read-only shape).
    spec = parse_spec(rec.layout if not isinstance(rec, MysqlDeployment)
                      else rec.replicas[0] if rec.idle and rec.replicas else rec.master)
    current = base["current_monthly_usd"]
    savings = None if current is None else round(current - rec.monthly_usd, 2)
    return RowResult(status="ok", deployment=rec.deployment, monthly_usd=rec.monthly_usd,
                     instance_family=spec.instance.split(".", 1)[0], storage=spec.device,
                     raid=spec.raid or "none", savings_monthly_usd=savings,
                     result=to_json(result), **base)


# -- the fleet report's figures -------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Savings:
    """Current vs recommended monthly cost over the rows that state their current cost."""

    rows: int
    current_monthly_usd: float
    recommended_monthly_usd: float
    savings_monthly_usd: float


@dataclass(frozen=True, slots=True, kw_only=True)
class FleetSummary:
    kind: Literal["fleet"] = "fleet"
    rows: int
    by_status: dict[str, int]
    recommended_monthly_usd: float  # every sized row
    compared: Savings  # rows with a current cost and a recommendation
    savings_by_family: dict[str, Savings]
    savings_by_workload: dict[str, Savings]
    top_savings: tuple[RowResult, ...]  # the largest savings per workload (row)
    unmet: tuple[RowResult, ...]  # rows with no recommendation, and why
    families: dict[str, int]
    storage_types: dict[str, int]
    raid_levels: dict[str, int]
    catalog_version: str


def _savings(rows: Sequence[RowResult]) -> Savings:
    current = sum(r.current_monthly_usd or 0.0 for r in rows)
    recommended = sum(r.monthly_usd or 0.0 for r in rows)
    return Savings(rows=len(rows), current_monthly_usd=round(current, 2),
                   recommended_monthly_usd=round(recommended, 2),
                   savings_monthly_usd=round(current - recommended, 2))


def _counts(values: Iterable[str | None]) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        if v is not None:
            out[v] = out.get(v, 0) + 1
    return dict(sorted(out.items(), key=lambda kv: (-kv[1], kv[0])))


def _grouped(rows: Sequence[RowResult], key: str) -> dict[str, Savings]:
    groups: dict[str, list[RowResult]] = {}
    for r in rows:
        groups.setdefault(str(getattr(r, key)), []).append(r)
    return {k: _savings(v) for k, v in sorted(groups.items())}


def summarise(results: Sequence[RowResult], *, catalog_version: str,
              top: int = 10) -> FleetSummary:
    """The fleet report's figures, independent of the order the rows finished in."""
    ordered = sorted(results, key=lambda r: r.id)
    sized = [r for r in ordered if r.status == "ok"]
    compared = [r for r in sized if r.current_monthly_usd is not None]
    by_savings = sorted(compared, key=lambda r: (-(r.savings_monthly_usd or 0.0), r.id))
    slim = [RowResult(**{**_fields(r), "result": None}) for r in by_savings[:top]]
    return FleetSummary(
        rows=len(ordered), by_status={s: sum(r.status == s for r in ordered) for s in STATUSES},
        recommended_monthly_usd=round(sum(r.monthly_usd or 0.0 for r in sized), 2),
        compared=_savings(compared), savings_by_family=_grouped(compared, "instance_family"),
        savings_by_workload=_grouped(compared, "workload"), top_savings=tuple(slim),
        unmet=tuple(r for r in ordered if r.status != "ok"),
        families=_counts(r.instance_family for r in sized),
        storage_types=_counts(r.storage for r in sized),
        raid_levels=_counts(r.raid for r in sized), catalog_version=catalog_version)


def _fields(r: RowResult) -> dict[str, Any]:
    return {name: getattr(r, name) for name in RowResult.__dataclass_fields__}
