"""Instance-store masters near their knee: the device backlog each kind of I/O finds, in the
event simulation and in the model (issue 10's grid; `advisor.sim.analytic.waits._chain_scale`).

    python bench/device_view.py [--seeds 2] [--format table|json]

An instance-store device's capacity is a limit every I/O waits through whole (no burst
tolerance): a read waits all of the backlog V it finds, a write only what lies beyond the
device's write-back cache. For any arrivals E[V] = sum_i lambda_i a_i E[V found by i] + Y / 2,
so what the I/Os that follow another of their request find sets E[V]. The event simulation
runs `--seeds` seeds of 125 s; its first batch's I/Os (every foreground device I/O, a commit
group's one log write included, and every background I/O issued in that batch's window) are
replayed through the device's capacity with the kernel's charge (each I/O's device time, a
write let in up to the cache's depth ahead), which gives the backlog each found. Printed: the
mean backlog found by background I/Os (Poisson: the time average), a request's first page
read, its later page reads, and its commits' writes (redo log, binlog); the same I/Os with
their times drawn at random (the M/G/1 value); and the model's E[V] (its M/G/1 value times
`_chain_scale`). Also a write transaction's commit time (its first commit's issue to its last
one's completion, after the warm-up) against the model's ordered commit with each flush its
service time and with it waiting beyond the cache (`waits._flushes_waiting`).
"""

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from numba import njit  # noqa: E402

from advisor.layout import resolve  # noqa: E402
from advisor.sim import des  # noqa: E402
from advisor.sim.analytic import waits  # noqa: E402
from advisor.sim.analytic.commit import commit_rates, with_group_commit  # noqa: E402
from advisor.sim.analytic.engine import steady_phase  # noqa: E402
from advisor.sim.analytic.mix import build_mix  # noqa: E402
from advisor.sim.plan import compile_plan  # noqa: E402
from advisor.sim.source import OP_COMMIT, OP_FLUSH, OP_READ  # noqa: E402
from advisor.userfiles import load_catalog  # noqa: E402
from workloads.mysql import MysqlParams  # noqa: E402
from workloads.mysql_run import Deployment, build_servers  # noqa: E402
from workloads.mysql_shape import shape_of  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from kernel_spy import WARMUP_S, kernel_arrays, seeds_args  # noqa: E402

CASES = (("r6id.xlarge:store", 0, 8731.0), ("m6id.2xlarge:store", 1, 11859.0),
         ("m5d.large:store", 0, 4570.0))
DATA_GB = 50.0


@njit(cache=False)
def _found(t, cost, ahead):  # type: ignore[no-untyped-def]
    """The backlog each I/O finds at a capacity every I/O waits through (GCRA, no tolerance)."""
    tat = 0.0
    out = np.zeros(t.size)
    for i in range(t.size):
        out[i] = max(tat - t[i], 0.0)
        start = max(t[i], tat - ahead[i])
        tat = max(tat, start) + cost[i]
    return out


QUANTILES = (0.5, 0.9, 0.99, 0.999)


def _commit_times(g: dict[str, Any], n: int) -> np.ndarray:
    """Each write transaction's commit time in one batch (seconds): from its first commit's
    issue to its last one's completion, the group commits' waits included."""
    first, op = g["first"][:n + 1], g["op"]
    out = []
    for i in range(n):
        c = np.flatnonzero(op[first[i]:first[i + 1]] == OP_COMMIT) + first[i]
        if c.size and g["issue"][c[0]] >= WARMUP_S:
            out.append(g["done"][c].max() - g["issue"][c[0]])
    return np.array(out)


def model_commit_ms(mix: Any, x: float, limits: list[Any]) -> dict[str, list[float]]:
    """The model's commit time of the write class (its ordered commit), its flushes as their
    service and as `waits._flushes_waiting` lengthens them, at QUANTILES: the chain's model
    (RAID 0 of devices). On a single device the limit in closed loop holds a held flush in
    what it adds to the request's completion instead, and the flushes keep their service."""
    limits = [dataclasses.replace(lw, closed=None) for lw in limits]
    wait = waits.io_wait(limits)
    rates = commit_rates(mix, x)
    out = {}
    cls = next(c for c in mix.classes if sum(io.op == OP_COMMIT for io in c.ios) == 2)
    for name, c in (("model, flushes as their service", cls),
                    ("model, flushes waiting beyond the cache",
                     waits._flushes_waiting(cls, limits, wait))):
        redo, binlog = (io for io in c.ios if io.op == OP_COMMIT)
        d = waits.ordered_commit(redo.service, binlog.service, rates[redo.log])
        out[name] = [round(d.quantile(q) * 1000, 3) for q in QUANTILES]
    return out


def measure(spec: str, replicas: int, tps: float, seeds: int) -> dict[str, Any]:
    catalog = load_catalog(use_env=False)
    layout = resolve(spec, catalog)
    params = MysqlParams(tps=tps, data_gb=DATA_GB, replicas=replicas,
                         shape=shape_of("point-rw"), reads_per_write=3.25)
    dep = Deployment(master=layout, replica=layout if replicas else None)
    server = build_servers(dep, params, None)[0]
    plan = compile_plan(layout, catalog)
    _, _, devf, devm = plan.packed()
    found: dict[str, list[np.ndarray]] = {}
    commit_ms: list[np.ndarray] = []
    rng = np.random.default_rng(0)
    for seed in range(1, seeds + 1):
        g = kernel_arrays(plan, server, layout, seed)[0]
        n = g["ran"]
        k = int(g["first"][n])
        op = g["op"][:k]
        commit_ms.append(_commit_times(g, n) * 1000)
        dev = des._device_ios(op, g["aux"][:k], g["done"][:k])
        ft = g["issue"][:k][dev]
        lo, hi = float(ft.min()), float(ft.max())
        bg = (g["bg_issue"] > 0) & (g["bg_issue"] >= lo) & (g["bg_issue"] <= hi)
        bg &= g["bg_op"] != OP_FLUSH
        t = np.concatenate([ft, g["bg_issue"][bg]])
        ops = np.concatenate([op[dev], g["bg_op"][bg]])
        size = np.concatenate([g["size"][:k][dev], g["bg_size"][bg]]).astype(np.float64)
        write = ops != OP_READ
        extra = size - devm[0, 3]
        cost = np.where(write, devf[0, 1, 5], devf[0, 0, 5]) + np.maximum(extra, 0) / devm[0, 4]
        ahead = np.where(write, devm[0, 6], 0.0)
        kinds = []
        count: dict[int, int] = {}
        req = np.searchsorted(g["first"][:n + 1], np.flatnonzero(dev), side="right") - 1
        for j, r in zip(np.flatnonzero(dev), req, strict=True):
            if op[j] == OP_READ:
                kinds.append("first page read" if count.get(r, 0) == 0 else "later page read")
                count[r] = count.get(r, 0) + 1
            else:
                kinds.append("redo log write" if g["aux"][j] == 0 else "binlog write")
        kind = np.array(kinds + ["background"] * int(bg.sum()))
        o = np.argsort(t, kind="stable")
        seen = _found(t[o], cost[o], ahead[o])
        for name in np.unique(kind):
            found.setdefault(str(name), []).append(seen[kind[o] == name])
        at_random = np.sort(rng.uniform(lo, hi, t.size))
        perm = rng.permutation(t.size)
        found.setdefault("all, at random times", []).append(
            _found(at_random, cost[perm], ahead[perm]))
    mix = with_group_commit(build_mix(plan, server.request_classes(), server.background_specs()),
                            server.rate_tps)
    last = steady_phase(plan, mix, rate=server.rate_tps, duration_s=120)
    got = waits.limit_waits(plan, mix, last.x, list(last.rates))
    model = next(w for w in got if w.limit == 0)
    commits = np.concatenate(commit_ms)
    return {"layout": spec, "replicas": replicas, "tps": tps, "seeds": seeds,
            "found_ms": {k: round(float(np.concatenate(v).mean()) * 1000, 4)
                         for k, v in found.items()},
            "commit_ms": {"event simulation": [round(float(x), 3)
                                               for x in np.quantile(commits, QUANTILES)],
                          **model_commit_ms(mix, last.x, got)},
            "model_mean_wait_ms": round(model.wait_dist().mean * 1000, 4)}


def main(argv: list[str] | None = None) -> int:
    args = seeds_args(__doc__, argv, default=2, most=20)
    out = [measure(spec, r, tps, args.seeds) for spec, r, tps in CASES]
    if args.format == "json":
        print(json.dumps(out, indent=2))
        return 0
    for r in out:
        print(f"{r['layout']} master ({r['replicas']} replica(s)) at {r['tps']:g} tps, seeds "
              f"1-{r['seeds']}: mean backlog found, ms")
        for k, v in sorted(r["found_ms"].items()):
            print(f"  event simulation, {k:22s} {v:.4f}")
        print(f"  model, a read's mean wait (E[V])         {r['model_mean_wait_ms']:.4f}")
        print("  a write transaction's commit time, ms at "
              + " / ".join(f"p{q * 100:g}" for q in QUANTILES))
        for k, v in r["commit_ms"].items():
            print(f"    {k:42s} {' / '.join(f'{x:.3f}' for x in v)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
