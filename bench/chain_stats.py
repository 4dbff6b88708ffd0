"""How a master's write transactions wait at a volume's IOPS limit, I/O by I/O: the event
simulation against the analytic engine's chain (issue 10).

    .venv/bin/python bench/chain_stats.py [--layout c5.large:gp3:70GiB] [--data-gb 50]
        [--tps 358] [--replicas 1] [--seeds 3] [--path-seed 1] [--format table|json]

The deployment runs in the event simulation twice per seed (120 s after 5 s): as sized, and with
the volume raised to 16,000 IOPS, where its IOPS limit holds nothing back. The kernel's service
draws are keyed by the I/O, so an I/O's wait at the IOPS limit is its latency less its latency in
the second run. Over the write transactions (those that commit) this gives

- the chance that the k-th device I/O waits, and its mean wait when it does;
- after an I/O that waited w, the chance the next one waits and its mean wait (the chain's
  regression), and after one that did not;
- how many other transactions are in flight when an I/O waits, and when it does not;
- the quantiles of a transaction's summed waits,

and beside them the analytic engine's figures at that limit: the chance an I/O waits and its mean
wait, the chain's carry and step, and the quantiles of a write transaction's summed waits there
(`waits.limit_wait_sum`, which `waits.class_latency` takes at every limit).

Then the same I/Os as the engine's own input at that limit (`waits.limit_waits`: the background's
Poisson I/Os and each class's requests as clusters at their offsets, a service and a mean wait
apart), sampled as an open-loop path (no feedback: a request's next I/O comes at its offset
whatever the last one waited) and run through the limit's backlog by Lindley's recursion: the
chance the k-th I/O of a write transaction waits, the chance an I/O waits when its request's
last one did not, and the regression of the next wait on the last. What the open loop gets right
(the chances) and wrong (the congested waits' persistence, which feedback cuts) is what
docs/analytic-vs-des.md's sampled chance refers to. About 5 s.
"""

import argparse
import itertools
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import advisor.sim.des as des  # noqa: E402
import advisor.sim.kernel as kernel  # noqa: E402
from advisor.layout import resolve  # noqa: E402
from advisor.sim.analytic import build_mix, waits  # noqa: E402
from advisor.sim.analytic.commit import COMMIT, with_group_commit  # noqa: E402
from advisor.sim.plan import compile_plan  # noqa: E402
from advisor.userfiles import load_catalog  # noqa: E402
from workloads.mysql import MysqlParams  # noqa: E402
from workloads.mysql_run import Deployment, build_servers, flush_throttle_lag_s  # noqa: E402
from workloads.mysql_shape import shape_of  # noqa: E402

QUANTILES = (90.0, 95.0, 97.0, 98.0, 99.0, 99.5, 99.9)
WAITED_S = 5e-6  # a wait under 5 us is none (the two runs' float round-off)
BINS_MS = (0.0, 0.2, 0.5, 1.0, 2.0, np.inf)  # of the last I/O's wait, for the regression


def _server(spec: str, data_gb: float, tps: float, replicas: int) -> Any:
    catalog = load_catalog()
    layout = resolve(spec, catalog)
    params = MysqlParams(tps=tps, data_gb=data_gb, replicas=replicas, shape=shape_of("point-rw"))
    dep = Deployment(master=layout, replica=layout if replicas else None)
    return catalog, layout, build_servers(dep, params, None)[0]


def event_simulation(spec: str, data_gb: float, tps: float, replicas: int,
                     seeds: int) -> dict[str, Any]:
    """The event simulation's figures (the module's docstring)."""
    runs: dict[str, list[dict[str, Any]]] = {}
    events = kernel.run_events
    now = ""

    def spy(*args: Any) -> int:  # the arrays of run_des's batches
        ran = int(events(*args))
        runs.setdefault(now, []).append({"first": args[1].copy(), "op": args[2].copy(),
                                         "start": args[30].copy(), "end": args[31].copy(),
                                         "issue": args[32].copy(), "done": args[33].copy(),
                                         "ran": ran})
        return ran

    kernel.run_events = spy
    try:
        for now in (spec, f"{spec}:16000iops"):
            catalog, layout, server = _server(now, data_gb, tps, replicas)
            for seed in range(1, seeds + 1):
                des.run_des(compile_plan(layout, catalog), server, duration_s=125.0,
                            warmup_s=5.0, seed=seed, couple_background=True,
                            throttle_lag_s=flush_throttle_lag_s(server, layout))
    finally:
        kernel.run_events = events
    sums: list[float] = []
    waits: list[float] = []
    places: list[int] = []
    pairs: list[tuple[float, float]] = []
    in_flight: dict[bool, list[int]] = {True: [], False: []}
    for held, free in zip(runs[spec], runs[f"{spec}:16000iops"], strict=True):
        n = min(held["ran"], free["ran"])
        k = int(held["first"][n])
        wait = ((held["done"][:k] - held["issue"][:k])
                - (free["done"][:k] - free["issue"][:k])) * 1000
        op, first = held["op"][:k], held["first"][:n + 1]
        starts, ends = np.sort(held["start"][:n]), np.sort(held["end"][:n])
        for t in range(n):
            a, b = int(first[t]), int(first[t + 1])
            device = (op[a:b] == 0) | (op[a:b] == COMMIT)
            if held["start"][t] < 5.0 or not np.any(op[a:b] == COMMIT):
                continue
            w = wait[a:b][device]
            sums.append(float(w.sum()))
            waits.extend(w.tolist())
            places.extend(range(w.size))
            pairs.extend(zip(w[:-1].tolist(), w[1:].tolist(), strict=True))
            at = held["issue"][a:b][device]
            others = (np.searchsorted(starts, at, "right") - np.searchsorted(ends, at, "right")
                      - 1)
            for waited, o in zip(w > WAITED_S * 1000, others, strict=True):
                in_flight[bool(waited)].append(int(o))
    wv, pv, pr = np.array(waits), np.array(places), np.array(pairs)
    by_place = []
    for k in range(int(pv.max()) + 1):
        w = wv[pv == k]
        hit = w > WAITED_S * 1000
        by_place.append({"k": k + 1, "chance": round(float(hit.mean()), 4),
                         "mean_ms": round(float(w[hit].mean()), 3) if hit.any() else None})
    regression = []
    none = WAITED_S * 1000
    bins = [(None, pr[:, 0] <= none)] + [
        ((lo, hi), (pr[:, 0] > max(lo, none)) & (pr[:, 0] <= hi))
        for lo, hi in itertools.pairwise(BINS_MS)]
    for last, m in bins:
        nxt = pr[m, 1]
        regression.append({"last_ms": None if last is None else
                           [last[0], None if np.isinf(last[1]) else last[1]],
                           "n": int(m.sum()),
                           "last_mean_ms": round(float(pr[m, 0].mean()), 3),
                           "next_waits": round(float((nxt > WAITED_S * 1000).mean()), 3),
                           "next_mean_ms": round(float(nxt.mean()), 3)})
    s = np.array(sums)
    return {"transactions": int(s.size), "by_place": by_place, "regression": regression,
            "others_in_flight": {"waiting": round(float(np.mean(in_flight[True])), 2),
                                 "not_waiting": round(float(np.mean(in_flight[False])), 2)},
            "sum_ms": {str(q): round(float(np.percentile(s, q)), 2) for q in QUANTILES}}


def _engine_input(spec: str, data_gb: float, tps: float, replicas: int) -> tuple[Any, ...]:
    """(plan, mix with group commit, the limits' rates in force, tps) as the engine takes them."""
    catalog, layout, server = _server(spec, data_gb, tps, replicas)
    plan = compile_plan(layout, catalog)
    mix = with_group_commit(build_mix(plan, server.request_classes(),
                                      server.background_specs()), server.rate_tps)
    rates = [plan.rate_in_force(l, set()) for l in range(plan.n_limits)]
    return plan, mix, rates, server.rate_tps


def analytic(spec: str, data_gb: float, tps: float, replicas: int) -> dict[str, Any]:
    """The analytic engine's figures at the volume's IOPS limit (the module's docstring)."""
    plan, mix, rates, x = _engine_input(spec, data_gb, tps, replicas)
    limits, _ = waits.spaced_waits(plan, mix, x, rates)  # as request_latency's
    wait = waits.io_wait(limits)
    lw = next(w for w in limits if plan.limit_names[w.limit].endswith("volume IOPS"))
    cls = next(c for c in mix.classes if c.kind == 1)
    total = waits.limit_wait_sum(cls, lw, wait)
    chain = waits.limit_chain(cls, lw, wait)
    return {"chance": round(lw.p, 4), "mean_ms": round(lw.theta_s * 1000, 3),
            "carry": round(chain.carry, 3), "step_ms": round(chain.step_s * 1000, 3),
            "sum_ms": {str(q): round(total.quantile(q / 100) * 1000, 2) for q in QUANTILES}}


PATH_IOS = 200_000  # I/Os of the sampled open-loop path
PATH_WARM = 0.05  # its share at the start, left out (the path starts empty)


def open_loop(spec: str, data_gb: float, tps: float, replicas: int,
              seed: int = 1) -> dict[str, Any]:
    """The engine's input at the volume's IOPS limit as a sampled open-loop path (the module's
    docstring)."""
    plan, mix, rates, x = _engine_input(spec, data_gb, tps, replicas)
    _, mean_wait = waits.spaced_waits(plan, mix, x, rates)
    l = next(i for i, name in enumerate(plan.limit_names) if name.endswith("volume IOPS"))
    rate, tau = rates[l], float(plan.tolerance_s[l])
    singles = [(x * io.rate * hit, work / rate) for io in mix.background
               for hit, work in [waits._hit(plan, l, io)] if io.rate > 0 and hit > 0]
    dev_classes = [c for c in mix.classes if waits._has_device(c)]
    clusters = waits.class_clusters(mix, x, mean_wait)
    ios = sum(r for r, _ in singles) + sum(cl.rate * sum(k * p for k, p in cl.pmf)
                                            for cl in clusters)
    horizon = PATH_IOS / ios
    rng = np.random.default_rng(seed)
    times, works, ids, places, writes = [], [], [], [], []
    base = 0
    for c, cl in zip(dev_classes, clusters, strict=True):
        # per op: (chance an I/O reaches this limit, its work there in seconds)
        per_op = {}
        for op in {io.op for io in c.ios if io.op in waits.DEVICE_OPS and io.rate > 0}:
            ios_op = [io for io in c.ios if io.op == op and io.rate > 0]
            per_request = sum(io.rate for io in ios_op)
            hw = [(waits._hit(plan, l, io), io.rate / per_request) for io in ios_op]
            h = sum(share * hit for (hit, _), share in hw)
            per_op[op] = (h, sum(share * hit * work for (hit, work), share in hw)
                          / max(h, 1e-12) / rate)
        n = rng.poisson(cl.rate * horizon)
        starts = rng.random(n) * horizon
        probs = np.array([p for p, _ in cl.shapes])
        pick = rng.choice(len(probs) + 1, size=n,
                          p=np.append(probs, max(0.0, 1 - probs.sum())) / max(1.0, probs.sum()))
        width = max(len(o) for _, o in cl.shapes)
        keep = rng.random((n, width))
        for i, ((_, offsets), ops) in enumerate(zip(cl.shapes, cl.ops, strict=True)):
            rows = np.flatnonzero(pick == i)
            o = np.asarray(offsets)
            chance = np.array([per_op[op][0] for op in ops])
            a = np.array([per_op[op][1] for op in ops])
            t = starts[rows, None] + o[None, :]
            kept = keep[rows, :o.size] < chance[None, :]
            times.append(t[kept])
            works.append(np.broadcast_to(a, t.shape)[kept])
            ids.append(np.broadcast_to((rows + base)[:, None], t.shape)[kept])
            places.append(np.broadcast_to(np.arange(o.size), t.shape)[kept])
            writes.append(np.full(int(kept.sum()), c.kind == 1))
        base += n
    for r, work in singles:
        n = rng.poisson(r * horizon)
        times.append(rng.random(n) * horizon)
        works.append(np.full(n, work))
        ids.append(np.full(n, -1))
        places.append(np.full(n, -1))
        writes.append(np.zeros(n, dtype=bool))
    t = np.concatenate(times)
    order = np.argsort(t, kind="stable")
    ts, ws = t[order], np.concatenate(works)[order]
    total = np.cumsum(ws)
    low = np.minimum.accumulate(np.minimum(0.0, total - ws - ts))
    backlog = total - ws - ts - low  # V just before each arrival (Lindley, reflected at 0)
    wait = np.empty(t.size)
    wait[order] = np.maximum(0.0, backlog - tau)
    after = t >= PATH_WARM * horizon
    cid, place, write = np.concatenate(ids), np.concatenate(places), np.concatenate(writes)
    # In the order built each request's I/Os are together, by offset: the one before is its last.
    same = np.concatenate(([False], (cid[1:] == cid[:-1]) & (cid[1:] >= 0))) & after
    last = np.concatenate(([0.0], wait[:-1]))
    by_place = []
    for k in range(int(place[write].max()) + 1):
        m = write & after & (place == k)
        if m.sum() < 1000:
            break
        hit = wait[m] > 0
        by_place.append({"k": k + 1, "chance": round(float(hit.mean()), 4),
                         "mean_ms": round(float(wait[m][hit].mean() * 1000), 3)
                         if hit.any() else None})
    regression = []
    bins = [(None, same & (last <= 0))] + [
        ((lo, hi), same & (last * 1000 > lo) & (last * 1000 <= hi))
        for lo, hi in itertools.pairwise(BINS_MS)]
    for edges, m in bins:
        if not m.any():
            continue
        regression.append({"last_ms": None if edges is None else
                           [edges[0], None if np.isinf(edges[1]) else edges[1]],
                           "n": int(m.sum()),
                           "last_mean_ms": round(float(last[m].mean() * 1000), 3),
                           "next_waits": round(float((wait[m] > 0).mean()), 3),
                           "next_mean_ms": round(float(wait[m].mean() * 1000), 3)})
    return {"ios": int(t.size), "seconds": round(horizon, 1),
            "chance": round(float((wait[after] > 0).mean()), 4),
            "by_place": by_place, "regression": regression}


def table(out: dict[str, Any]) -> str:
    d, a = out["event_simulation"], out["analytic"]
    lines = [f"{out['layout']}, {out['data_gb']:g} GiB, {out['replicas']} replica(s), "
             f"{out['tps']:g} tps: {d['transactions']:,} write transactions", ""]
    lines += _chain_tables(d)
    o = d["others_in_flight"]
    lines += ["", f"Other transactions in flight at an I/O that waits: {o['waiting']}, at one "
              f"that does not: {o['not_waiting']}.",
              f"Analytic: an I/O waits {a['chance']:.2%}, {a['mean_ms']} ms on average; the "
              f"chain's carry {a['carry']}, step {a['step_ms']} ms.", "",
              "| summed waits, quantile | " + " | ".join(d["sum_ms"]) + " |",
              "|---|" + "---|" * len(d["sum_ms"]),
              "| event simulation ms | " + " | ".join(str(v) for v in d["sum_ms"].values()) + " |",
              "| analytic ms | " + " | ".join(str(v) for v in a["sum_ms"].values()) + " |"]
    o = out["open_loop"]
    lines += ["", f"The engine's input at that limit as an open-loop path ({o['ios']:,} I/Os over "
              f"{o['seconds']:g} s): an I/O waits {o['chance']:.2%}.", ""]
    return "\n".join(lines + _chain_tables(o))


def _chain_tables(d: dict[str, Any]) -> list[str]:
    """The chance by place and the regression, as Markdown lines."""
    lines = ["| k-th device I/O | waits | mean wait ms |", "|---|---|---|"]
    lines += [f"| {r['k']} | {r['chance']:.2%} | {r['mean_ms']} |" for r in d["by_place"]]
    lines += ["", "| last wait ms | I/Os | next waits | next mean ms |", "|---|---|---|---|"]
    for r in d["regression"]:
        last = "none" if r["last_ms"] is None else \
            f"{r['last_ms'][0]:g}-{r['last_ms'][1] or ''} (mean {r['last_mean_ms']})"
        lines.append(f"| {last} | {r['n']:,} | {r['next_waits']:.1%} | {r['next_mean_ms']} |")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layout", default="c5.large:gp3:70GiB")
    ap.add_argument("--data-gb", type=float, default=50.0)
    ap.add_argument("--tps", type=float, default=358.0)
    ap.add_argument("--replicas", type=int, default=1, choices=(0, 1))
    ap.add_argument("--seeds", type=int, default=3, choices=range(1, 11), metavar="1..10")
    ap.add_argument("--path-seed", type=int, default=1, metavar="1..100",
                    help="seed of the sampled open-loop path")
    ap.add_argument("--format", choices=("table", "json"), default="table")
    args = ap.parse_args(argv)
    if not 1 <= args.tps <= 100_000 or not 1 <= args.data_gb <= 100_000:
        ap.error("--tps and --data-gb: 1 to 100,000")
    if not 1 <= args.path_seed <= 100:
        ap.error("--path-seed: 1 to 100")
    out = {"layout": args.layout, "data_gb": args.data_gb, "replicas": args.replicas,
           "tps": args.tps,
           "event_simulation": event_simulation(args.layout, args.data_gb, args.tps,
                                                args.replicas, args.seeds),
           "analytic": analytic(args.layout, args.data_gb, args.tps, args.replicas),
           "open_loop": open_loop(args.layout, args.data_gb, args.tps, args.replicas,
                                  seed=args.path_seed)}
    print(json.dumps(out, indent=2) if args.format == "json" else table(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
