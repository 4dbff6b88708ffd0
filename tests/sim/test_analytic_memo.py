"""The analytic engine computes a transaction mix's service times once per plan (they do not
depend on the load) and must give exactly what a fresh computation gives."""

import numpy as np

from advisor.layout import resolve
from advisor.sim.analytic import build_mix
from advisor.sim.plan import at_baseline, compile_plan, with_balances, with_write_load
from advisor.userfiles import load_catalog
from workloads.mysql import MysqlParams, derive_io, servers

CATALOG = load_catalog()
SPEC = "m5.large:raid10:4xgp3:100GiB"


def _server(tps: float):  # type: ignore[no-untyped-def]
    params = MysqlParams(tps=tps, reads_per_write=3.25, replicas=1, data_gb=100)
    io = derive_io(params, 8.0)
    return servers(params, io, io, data_bytes=100 * 2**30, master_capacity=200 * 2**30,
                   replica_capacity=200 * 2**30)[1]


def test_a_mix_at_a_new_load_reuses_the_service_times_and_matches_a_fresh_plan() -> None:
    """At a second load the mix shares the first one's service distributions, and every field
    equals the mix built on a freshly compiled plan (no stale or shared mutable state)."""
    layout = resolve(SPEC, CATALOG)
    plan = compile_plan(layout, CATALOG)
    low, high = _server(400.0), _server(900.0)
    first = build_mix(plan, low.request_classes(), low.background_specs())
    again = build_mix(plan, high.request_classes(), high.background_specs())
    fresh = build_mix(compile_plan(layout, CATALOG), high.request_classes(),
                      high.background_specs())
    assert again.service is first.service
    np.testing.assert_array_equal(again.cost, fresh.cost)
    np.testing.assert_array_equal(again.cost_sq, fresh.cost_sq)
    np.testing.assert_array_equal(again.service.values, fresh.service.values)
    np.testing.assert_array_equal(again.service.weights, fresh.service.weights)
    assert (again.serial_seconds, again.bytes_per_request, again.fg_share,
            again.read_ios_per_request, again.write_ios_per_request) == (
        fresh.serial_seconds, fresh.bytes_per_request, fresh.fg_share,
        fresh.read_ios_per_request, fresh.write_ios_per_request)


def test_a_derived_plan_starts_with_an_empty_memo() -> None:
    """`with_write_load` changes the device's tail: its mixes are computed anew, not taken from
    the plan it was derived from."""
    layout = resolve("i3.large:store", CATALOG)
    plan = compile_plan(layout, CATALOG)
    srv = _server(400.0)
    build_mix(plan, srv.request_classes(), srv.background_specs())
    loaded = with_write_load(plan, 50.0)
    assert plan.rate_free
    assert not loaded.rate_free


def test_a_plan_judged_at_its_baselines_shares_the_costs_and_gives_a_fresh_plans_mix() -> None:
    """`at_baseline` and `with_balances` change only the limits' rates and credits: the judged
    plan shares its parent's per-I/O costs and service times (a search judges every candidate's
    buckets), and its mix equals the one built on a freshly compiled plan judged alike."""
    layout = resolve("m5.large:raid0:2xgp2:100GiB", CATALOG)
    plan = compile_plan(layout, CATALOG)
    srv = _server(600.0)
    mix = build_mix(plan, srv.request_classes(), srv.background_specs())
    judged = with_balances(at_baseline(plan, why="test"), {})
    assert judged is not plan
    assert judged.rate_free is plan.rate_free
    assert not judged.memo
    shared = build_mix(judged, srv.request_classes(), srv.background_specs())
    fresh_plan = at_baseline(compile_plan(layout, CATALOG), why="test")
    fresh = build_mix(fresh_plan, srv.request_classes(), srv.background_specs())
    assert fresh_plan.rate_free is not plan.rate_free
    assert shared.service is mix.service
    np.testing.assert_array_equal(shared.cost, fresh.cost)
    np.testing.assert_array_equal(mix.cost, fresh.cost)  # the search keeps the parent's mix
    np.testing.assert_array_equal(shared.cost_sq, fresh.cost_sq)
    np.testing.assert_array_equal(shared.service.values, fresh.service.values)
    assert (shared.serial_seconds, shared.bytes_per_request, shared.fg_share) == (
        fresh.serial_seconds, fresh.bytes_per_request, fresh.fg_share)
