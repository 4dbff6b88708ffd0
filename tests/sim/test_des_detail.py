"""`run_des(detail=False)`, as the sizing search runs its replications: the same simulation to
the bit, only less accounting. What the search reads (the requests' latency, the background's
lag, the limits' counters and the throughput) must equal a full run's, below saturation and
past it (where requests still waiting for a connection at the end count in the percentiles),
and what it skips must be visibly empty rather than stale."""

import numpy as np
import pytest

from advisor.catalog.model import Catalog
from advisor.layout import resolve
from advisor.sim.des import run_des
from advisor.sim.plan import compile_plan
from advisor.userfiles import load_catalog
from workloads.mysql import MysqlParams
from workloads.mysql_run import Deployment, build_servers


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(use_env=False)


@pytest.mark.parametrize(("spec", "tps"), [("c5.large:raid0:2xgp3:60GiB", 400.0),
                                           ("c5.large:gp3:200GiB", 4000.0)])
def test_search_runs_read_what_a_full_run_measures(catalog: Catalog, spec: str,
                                                   tps: float) -> None:
    layout = resolve(spec, catalog)
    plan = compile_plan(layout, catalog)
    dep = Deployment(master=layout, replica=None)
    server = build_servers(dep, MysqlParams(tps=tps, replicas=0), None)[0]
    kw = {"duration_s": 12.0, "warmup_s": 2.0, "seed": 5, "couple_background": True,
          "throttle_lag_s": 0.2}
    full = run_des(plan, server, **kw)
    lean = run_des(plan, server, detail=False, **kw)
    a, b = full.request_latency["all"], lean.request_latency["all"]
    assert a.n > 1000
    assert b.n == a.n
    assert np.array_equal(b.counts, a.counts)
    assert (b.total_s, b.max_s) == (a.total_s, a.max_s)
    assert lean.background_lag_s == full.background_lag_s
    assert lean.background_ios == full.background_ios
    for name in ("lim_used", "lim_held", "lim_exhaust", "lim_tat", "serial_busy_s"):
        assert np.array_equal(getattr(lean, name), getattr(full, name)), name
    assert (lean.completed, lean.finished_in_window) == (full.completed, full.finished_in_window)
    assert lean.mean_in_flight == full.mean_in_flight
    # skipped: empty, never half-filled
    assert full.io_latency["read"].n > 0
    assert full.timeline_counts.sum() > 0
    assert lean.io_latency["read"].n == lean.io_latency["write"].n == 0
    assert lean.request_latency["read"].n == lean.request_latency["write"].n == 0
    assert lean.background_latency.n == 0
    assert lean.timeline_counts.sum() == 0
    assert lean.requests["total"] == 0
    if tps > 1000:  # past saturation: far fewer finish than arrive, and those still waiting
        # for a connection at the end are in the percentiles of both runs (b.n == a.n above)
        assert full.finished_in_window < tps * 10 * 0.5
        assert a.n > 2 * full.finished_in_window
