"""The one `size` entry point: the CLI and the API both call `run_size`.

No file reading and no clock here: a measured I/O profile arrives parsed, and the wall time of
the search is measured with the clock the caller passes (the adapters pass `time.perf_counter`).
"""

from collections.abc import Callable, MutableMapping
from dataclasses import replace
from typing import Any, cast

from advisor.catalog.model import Catalog, PricingPlan
from advisor.catalog.pricing import dropped_for_plan, with_plan
from recommend.request import MysqlSizeRequest, SizeRequest
from recommend.result import MysqlSizeResult, SizeResult
from workloads.io_profile import MeasuredShape, sizing_shape_note
from workloads.mysql import TxnIo
from workloads.mysql_shape import shape_of

Progress = Callable[[int, float], None]


def run_size(req: SizeRequest, catalog: Catalog, *, measured: TxnIo | None = None,
             progress: Progress | None = None,
             clock: Callable[[], float] | None = None,
             memo: MutableMapping[str, Any] | None = None,
             measured_shape: MeasuredShape | None = None) -> SizeResult:
    """Size `req` on `catalog`. `measured`: a measured I/O profile's per-transaction I/O (MySQL),
    recorded in the result; `measured_shape`: that profile's measured transaction shape, which
    the result states beside the shape it sized for. `memo`: event-simulation results kept
    between runs (Aerospike's verdicts, MySQL's replications), keyed by all they depend on."""
    start = clock() if clock is not None else None
    plan = cast(PricingPlan, req.pricing)  # one of OFFERED_PLANS
    unpriced = dropped_for_plan(catalog, plan)
    catalog = with_plan(catalog, plan)
    result: SizeResult
    if isinstance(req, MysqlSizeRequest):
        from recommend.mysql_search import DES_MEMO, DES_RUNS
        from recommend.size import size_mysql

        token, runs = DES_MEMO.set(memo), DES_RUNS.set({})
        try:
            result = size_mysql(req, catalog, measured, progress=progress)
        finally:
            DES_RUNS.reset(runs)
            DES_MEMO.reset(token)
    else:
        from recommend.aerospike_search import size_aerospike

        result = size_aerospike(req, catalog, progress=progress, memo=memo)
    if measured is not None and measured.measured is not None \
            and isinstance(result, MysqlSizeResult):  # recorded: the report's curves use it
        result = replace(result, measured_io=measured.measured)
    if measured_shape is not None:
        result = with_measured_shape(result, measured_shape)
    if unpriced:  # said in the result: these types were not considered under the plan
        result = replace(result, unpriced=unpriced)
    if clock is None or start is None:
        return result
    return replace(result, search=replace(result.search, seconds=round(clock() - start, 3)))


def with_measured_shape(result: SizeResult, shape: MeasuredShape) -> SizeResult:
    """The result stating the measured profile's transaction shape (MySQL results only)."""
    if not isinstance(result, MysqlSizeResult):
        return result
    q = result.request
    sizing = shape_of(q.preset, read_txn=q.read_txn, write_txn=q.write_txn)
    note = sizing_shape_note(shape, sizing.read_txn, sizing.write_txn, q.reads_per_write,
                             sizing.preset)
    return replace(result, measured_shape=note)
