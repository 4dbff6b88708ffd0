"""A replication is shared between candidates only where it would run the same I/Os at the
same times: the same storage and server on another instance type whose limits held nothing
back and pace at least as fast (`recommend.mysql_search._runs_alike`)."""

from typing import Any

import numpy as np
import pytest

from advisor.catalog import builtin_catalog
from advisor.layout.model import resolve
from advisor.serial import to_json
from advisor.sim.des import RawLevel, run_des
from advisor.sim.plan import SimPlan, compile_plan
from recommend import mysql_search as ms
from recommend.request import size_request
from recommend.run import run_size

CATALOG = builtin_catalog()
# 4.5 ms: at 5 ms the event simulation passes the cheap candidates since its binlog takes a redo
# group whole (2026-11-29), and few rejections are left to share.
REQ = size_request({"workload": "mysql", "data_gb": 500, "p99_ms": 4.5})
STORAGE = "raid0:4xgp2:334GiB"


def _run(instance: str, tps: float = 815.1) -> tuple[SimPlan, RawLevel]:
    layout = resolve(f"{instance}:{STORAGE}", CATALOG)
    plan = compile_plan(layout, CATALOG)
    server = ms.server_for(REQ, layout, "master", 1, tps, None)
    raw = run_des(plan, server, duration_s=ms.DES_WARMUP_S + 10.0, seed=3,
                  warmup_s=ms.DES_WARMUP_S, couple_background=True,
                  throttle_lag_s=ms.flush_throttle_lag_s(server, layout))
    return plan, raw


def _seen(raw: RawLevel) -> Any:
    return np.stack([raw.lim_held, raw.lim_used, raw.lim_exhaust], axis=1)


def test_an_alike_plan_runs_the_same_ios_to_the_bit() -> None:
    """r6g.large and r7g.large (16 GiB, 2 vCPU each) with the same four gp2: the instance's
    EBS limits hold nothing back, r7g.large's burst rates are twice r6g.large's, so its run
    is r6g.large's; the other way round it is not taken as alike."""
    weak, weak_raw = _run("r6g.large")
    strong, strong_raw = _run("r7g.large")
    instance = [i for i, s in enumerate(weak.limit_scope) if s == "instance"]
    assert instance
    assert not weak_raw.lim_held[instance].any()
    assert ms._runs_alike(weak, _seen(weak_raw), strong)
    assert not ms._runs_alike(strong, _seen(strong_raw), weak)  # slower limits: not implied
    a, b = weak_raw.request_latency["all"], strong_raw.request_latency["all"]
    assert a.to_json() == b.to_json()
    assert weak_raw.background_lag_s == strong_raw.background_lag_s


def test_a_limit_that_held_back_or_ran_out_is_not_shared() -> None:
    """Had the instance's IOPS limit held one I/O back in the run, or its credits run out, or
    had the other instance's credits not covered what the run charged, the other instance's
    run could differ: none is taken as alike."""
    weak, weak_raw = _run("r6g.large")
    strong, _ = _run("r7g.large")
    iops = weak.limit_scope.index("instance")
    for column, value in ((0, 1.0), (2, 5.0), (1, float(strong.lim_init[iops]) * 2)):
        seen = _seen(weak_raw)
        seen[iops, column] = value
        assert not ms._runs_alike(weak, seen, strong), column


@pytest.mark.slow
@pytest.mark.usefixtures("optimistic_screen")
def test_sharing_changes_no_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The latency-bound request with an optimistic screen (conftest.OPTIMISM) verifies
    candidates the event simulation rejects, many of them the same storage on instance types
    alike for it: with the replications shared and without, the same answer (every DES figure,
    every rejection) from fewer simulations."""
    def sized() -> tuple[dict[str, Any], int]:
        calls = {"n": 0}
        real = run_des

        def counted(*args: Any, **kwargs: Any) -> RawLevel:
            calls["n"] += 1
            return real(*args, **kwargs)

        monkeypatch.setattr("advisor.sim.des.run_des", counted)
        out = dict(to_json(run_size(REQ, CATALOG)))
        out.pop("search")
        return out, calls["n"]

    shared, with_sharing = sized()
    monkeypatch.setattr(ms, "_runs_alike", lambda *_: False)
    alone, without = sized()
    assert shared == alone
    assert with_sharing < 0.7 * without
