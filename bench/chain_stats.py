"""How a master's write transactions wait at a volume's IOPS limit, I/O by I/O: the event
simulation against the analytic engine's chain (issue 10).

    .venv/bin/python bench/chain_stats.py [--layout c5.large:gp3:70GiB] [--data-gb 50]
        [--tps 358] [--replicas 1] [--preset point-rw] [--seeds 3] [--path-seed 1]
        [--windowed] [--format table|json]

The deployment runs in the event simulation twice per seed (120 s after 5 s): as sized, and with
the volume raised to 16,000 IOPS (an io1/io2 volume: 32,000), where its IOPS limit holds nothing
back. The kernel's service draws are keyed by the I/O, so an I/O's wait at the IOPS limit is its
latency less its latency in the second run. Over the write transactions (those that commit) this
gives

- the chance that the k-th device I/O waits, and its mean wait when it does;
- after an I/O that waited w, the chance the next one waits, its mean wait (the chain's
  regression), its standard deviation and p90, and after one that did not;
- how many other transactions are in flight when an I/O waits, and when it does not;
- the quantiles of a transaction's summed waits,

and beside them the analytic engine's figures at that limit: the chance an I/O waits and its mean
wait, the chain's carry and step, and the quantiles of a write transaction's summed waits there
(`waits.limit_wait_sum`, which `waits.class_latency` takes at every limit).

Beside the engine's chain (deterministic: w' = max(0, carry w + step)), an open-loop chain: two
of a request's I/Os are d + w apart (d the spacing, w the first one's wait); the others' work
reaching the limit in that window has mean rho (d + w) and variance Var A(d + w), so w' = max(0,
rho w + own - (1 - rho) d + sqrt(Var A(d + w)) Z), Z normal. Var A(t) is X t, X the requests'
second-moment rate with each request's I/Os taken whole (`waits._congested`), or with
`--windowed` the variance of the work that falls in the window itself (each request by how many
of its I/Os land in it, `waits._cluster_counts`). Its next wait's chance, mean, sd and p90 after
each bin of w, and a write transaction's summed waits and its k-th I/O's chance to wait by Monte
Carlo (400,000 transactions; the first wait the engine's, a chain that died restarted from the
engine's later wait).

Then the same I/Os as the engine's own input at that limit (`waits.limit_waits`: the background's
Poisson I/Os and each class's requests as clusters at their offsets, a service and a mean wait
apart), sampled as an open-loop path (no feedback: a request's next I/O comes at its offset
whatever the last one waited) and run through the limit's backlog by Lindley's recursion: the
chance the k-th I/O of a write transaction waits, the chance an I/O waits when its request's
last one did not, and the regression of the next wait on the last. What the open loop gets right
(the chances) and wrong (the congested waits' persistence, which feedback cuts) is what
docs/analytic-vs-des.md's sampled chance refers to. From the same path's backlog at random times,
the backlog chain (`_backlog_chain`: the transaction's I/Os observing the backlog itself, below
the tolerance too). Last, the limit alone in closed loop (`closed_loop`: the same input, each of a
request's I/Os issued after the one before passed, 360 s), which has the event simulation's
chance along a transaction on the loads of bench/README.md's 2026-12-01 section. About 30 s.
"""

import argparse
import heapq
import itertools
import json
import re
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
from workloads.mysql_shape import PRESETS, shape_of  # noqa: E402

QUANTILES = (90.0, 95.0, 97.0, 98.0, 99.0, 99.5, 99.9)
WAITED_S = 5e-6  # a wait under 5 us is none (the two runs' float round-off)
BINS_MS = (0.0, 0.2, 0.5, 1.0, 2.0, np.inf)  # of the last I/O's wait, for the regression


PRESET = ["point-rw"]  # the workload shape (`--preset`), for every run of this script


def _server(spec: str, data_gb: float, tps: float, replicas: int) -> Any:
    catalog = load_catalog()
    layout = resolve(spec, catalog)
    params = MysqlParams(tps=tps, data_gb=data_gb, replicas=replicas, shape=shape_of(PRESET[0]),
                         reads_per_write=PRESETS[PRESET[0]].reads)
    dep = Deployment(master=layout, replica=layout if replicas else None)
    return catalog, layout, build_servers(dep, params, None)[0]


def unlimited(spec: str) -> str:
    """The layout with its volume's IOPS raised so far that its IOPS limit holds nothing back
    (an io1/io2 volume: to 32,000, within a 650 GiB volume's 50:1 ratio)."""
    base = re.sub(r":\d+iops$", "", spec)
    return base + (":32000iops" if re.search(r":io[12]:", spec) else ":16000iops")


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
        for now in (spec, unlimited(spec)):
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
    for held, free in zip(runs[spec], runs[unlimited(spec)], strict=True):
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
                           "next_mean_ms": round(float(nxt.mean()), 3),
                           "next_sd_ms": round(float(nxt.std()), 3),
                           "next_p90_ms": round(float(np.quantile(nxt, 0.9)), 3)})
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


def limit_input(plan: Any, mix: Any, x: float, l: int, rate: float,
                mean_wait: float) -> tuple[list[tuple[float, float]], list[Any]]:
    """The work reaching limit l as `waits.limit_waits` builds it: the background's Poisson
    singles (I/Os per s, work s) and each class's requests as clusters (cluster, chance an I/O
    reaches the limit, mean work s, mean squared work s^2)."""
    singles = [(x * io.rate * hit, work / rate) for io in mix.background
               for hit, work in [waits._hit(plan, l, io)] if io.rate > 0 and hit > 0]
    dev_classes = [c for c in mix.classes if waits._has_device(c)]
    clus = []
    for c, cl in zip(dev_classes, waits.class_clusters(mix, x, mean_wait), strict=True):
        dev = [io for io in c.ios if io.op in waits.DEVICE_OPS and io.rate > 0]
        n = sum(io.rate for io in dev)
        hw = [(waits._hit(plan, l, io), io.rate / n) for io in dev]
        h = sum(share * hit for (hit, _), share in hw)
        a = sum(share * hit * work for (hit, work), share in hw) / max(h, 1e-12) / rate
        a2 = sum(share * hit * work**2 for (hit, work), share in hw) / max(h, 1e-12) / rate**2
        if h > 0 and a > 0:
            clus.append((cl, h, a, a2))
    return singles, clus


def _variance_rate(plan: Any, mix: Any, x: float, l: int, rate: float,
                   mean_wait: float) -> Any:
    """X, the second-moment rate of the work reaching limit l with each request's I/Os taken
    whole (`waits._congested`, from the same input `waits.limit_waits` builds): the variance
    rate of the open-loop work arriving there, Var A(t) = X t. With `--windowed`, Var A(t)
    itself on waits.T_GRID (`windowed`)."""
    singles, clus = limit_input(plan, mix, x, l, rate, mean_wait)
    if WINDOWED[0]:
        return windowed(singles, clus)
    m, z = waits._congested(singles, clus, 0.0)
    return m * z


WINDOWED = [False]  # `--windowed`: the variance of the work in the window itself, not t X


def windowed(singles: list[tuple[float, float]], clus: list[Any]) -> Any:
    """Var A(t) on waits.T_GRID: the work arriving at the limit in a window of length t, the
    Poisson singles' r w^2 t and each class's requests by how many of their I/Os fall in the
    window (`waits._cluster_counts`, the large deviations' windows), each reaching the limit
    with chance h: E[(a Bin(n, h))^2] = a^2 (n h (1 - h) + n^2 h^2)."""
    var = sum(r * w * w for r, w in singles) * waits.T_GRID
    for cl, h, a, _ in clus:
        for p, offsets in cl.shapes:
            counts = waits._cluster_counts(tuple(offsets))
            n = np.arange(counts.shape[1])
            var = var + cl.rate * p * counts @ (a * a * (n * h * (1 - h) + n * n * h * h))
    return var


def analytic(spec: str, data_gb: float, tps: float, replicas: int) -> dict[str, Any]:
    """The analytic engine's figures at the volume's IOPS limit (the module's docstring), and
    the open-loop chain beside its own: between two of a request's I/Os, d + w apart (d the
    spacing, w the wait), the others' work arriving at the limit has mean rho (d + w) and
    variance Var A(d + w) (`_variance_rate`), so w' = max(0, rho w + own - (1 - rho) d +
    sqrt(Var A(d + w)) Z); its summed waits by Monte Carlo (the first wait the engine's, a chain
    that died restarted from the engine's later wait)."""
    plan, mix, rates, x = _engine_input(spec, data_gb, tps, replicas)
    limits, mean_wait = waits.spaced_waits(plan, mix, x, rates)  # as request_latency's
    wait = waits.io_wait(limits)
    lw = next(w for w in limits if plan.limit_names[w.limit].endswith("volume IOPS"))
    cls = next(c for c in mix.classes if c.kind == 1)
    total = waits.limit_wait_sum(cls, lw, wait)
    chain = waits.limit_chain(cls, lw, wait)
    spacing = _spacing(cls)
    open_chain = {"carry": lw.rho, "step_s": lw.own_s - (1 - lw.rho) * spacing,
                  "spread_s": np.asarray(_variance_rate(plan, mix, x, lw.limit, rates[lw.limit],
                                                        mean_wait)).tolist(),
                  "spacing_s": spacing}
    return {"chance": round(lw.p, 4), "mean_ms": round(lw.theta_s * 1000, 3),
            "carry": round(chain.carry, 3), "step_ms": round(chain.step_s * 1000, 3),
            "engine_chain": {"carry": chain.carry, "step_s": chain.step_s},
            "open_chain": open_chain,
            "sum_ms": {str(q): round(total.quantile(q / 100) * 1000, 2) for q in QUANTILES},
            "open_sum_ms": _open_sums(cls, lw, chain, open_chain)}


def _spacing(cls: Any) -> float:
    """The mean time between a request's device I/Os, waits apart (as `waits.limit_chain`)."""
    return float(cls.service.mean / sum(io.rate for io in cls.ios if io.op in waits.DEVICE_OPS))


def _open_next(chain: dict[str, float], w: float, n: int = 200_000) -> np.ndarray:
    """Draws of the open-loop chain's next wait (ms) after a wait of w seconds."""
    z = np.random.default_rng(0).standard_normal(n)
    t = chain["spacing_s"] + w
    out: np.ndarray = np.maximum(0.0, chain["carry"] * w + chain["step_s"]
                                 + np.sqrt(_var(chain, t)) * z) * 1000
    return out


def _var(chain: dict[str, Any], t: Any) -> Any:
    """The variance of the others' work arriving in t: spread_s t, or windowed on T_GRID."""
    v = np.asarray(chain["spread_s"])
    if v.ndim == 0:
        return float(v) * t
    return np.exp(np.interp(np.log(t), np.log(waits.T_GRID), np.log(np.maximum(v, 1e-30))))


def _open_sums(cls: Any, lw: Any, chain: Any, open_chain: dict[str, float],
               n: int = 400_000) -> dict[str, Any]:
    """Quantiles of a write transaction's summed waits (ms) with the open-loop chain, by Monte
    Carlo over the class's device I/O counts, and the chance its k-th I/O waits."""
    rng = np.random.default_rng(0)
    reads, writes = waits._device_pmfs(cls)
    counts = waits._add_pmf(reads, writes)
    k = rng.choice([c for c, _ in counts], size=n, p=[p for _, p in counts])

    def draw(d: Any) -> np.ndarray:
        return rng.choice(d.values, size=n, p=d.weights / d.weights.sum())

    one = lw.wait_dist()
    later = chain.later if chain.later is not None else one
    w = draw(one)
    total = w.copy()
    chance = [float((w > 0).mean())]
    for i in range(1, int(k.max())):
        t = open_chain["spacing_s"] + w
        nxt = np.maximum(0.0, open_chain["carry"] * w + open_chain["step_s"]
                         + np.sqrt(_var(open_chain, t)) * rng.standard_normal(n))
        w = np.where(w > 0, nxt, draw(later))
        total += np.where(k > i, w, 0.0)
        chance.append(float((w[k > i] > 0).mean()))
    return {"by_place": [round(c, 4) for c in chance],
            "sum_ms": {str(q): round(float(np.quantile(total, q / 100)) * 1000, 2)
                       for q in QUANTILES}}


PATH_IOS = 200_000  # I/Os of the sampled open-loop path
PATH_WARM = 0.05  # its share at the start, left out (the path starts empty)


def open_loop(spec: str, data_gb: float, tps: float, replicas: int,
              seed: int = 1) -> dict[str, Any]:
    """The engine's input at the volume's IOPS limit as a sampled open-loop path (the module's
    docstring)."""
    plan, mix, rates, x = _engine_input(spec, data_gb, tps, replicas)
    limits, mean_wait = waits.spaced_waits(plan, mix, x, rates)
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
        per_op = waits.op_reach(plan, l, rate, c)
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
    # The backlog at random times after the warm-up: V just after the last arrival, drained since.
    u = np.random.default_rng(seed).uniform(PATH_WARM * horizon, horizon, CHAIN_DRAWS)
    prior = np.searchsorted(ts, u, "right") - 1
    v = np.maximum(0.0, total[prior] - ts[prior] - low[prior] - (u - ts[prior]))
    return {"ios": int(t.size), "seconds": round(horizon, 1),
            "chance": round(float((wait[after] > 0).mean()), 4),
            "time_chance": round(float((v > tau).mean()), 4),
            "by_place": by_place, "regression": regression,
            "backlog_chain": {
                feedback: _backlog_chain(plan, mix, x, rates, mean_wait,
                                         next(w for w in limits if w.limit == l), v, feedback)
                for feedback in ("open", "fed back")}}


CHAIN_DRAWS = 400_000  # transactions of the chains' Monte Carlo


def _backlog_chain(plan: Any, mix: Any, x: float, rates: list[float], mean_wait: float,
                   lw: Any, v0: np.ndarray, feedback: str) -> dict[str, Any]:
    """A write transaction's I/Os observing the limit's backlog V itself, below the tolerance
    too: the first at V's law at random times (`v0`, the sampled path's), each next one d + w
    later (d the spacing, w = (V - tau)^+ the last one's wait) at V' = max(0, V + own - (d + w) +
    A), A the others' work in that window (mean r (d + w), variance Var A(d + w) r / rho; r =
    rho open, or fed back: the background's and the requests' first I/Os' share at its rate, the
    rest of the requests' I/Os coming (d + w) apart instead of d while they wait). By Monte
    Carlo: the chance its k-th I/O waits and its summed waits' quantiles."""
    l = lw.limit
    rate, tau = rates[l], float(plan.tolerance_s[l])
    cls = next(c for c in mix.classes if c.kind == 1)
    spacing = _spacing(cls)
    chain = {"spread_s": np.asarray(_variance_rate(plan, mix, x, l, rate, mean_wait)).tolist()}
    singles, clus = limit_input(plan, mix, x, l, rate, mean_wait)
    # the background's work, and each request's first I/O there (its chance x its work)
    first = sum(r * w for r, w in singles) + sum(cl.rate * h * a for cl, h, a, _ in clus)
    rho = lw.rho
    rng = np.random.default_rng(0)
    counts = waits._add_pmf(*waits._device_pmfs(cls))
    k = rng.choice([c for c, _ in counts], size=v0.size, p=[p for _, p in counts])
    v = v0.copy()
    w = np.maximum(0.0, v - tau)
    total, chance = w.copy(), [float((w > 0).mean())]
    for step in range(1, int(k.max())):
        t = spacing + w
        r = rho if feedback == "open" else first + (rho - first) * spacing / t
        others = r * t + np.sqrt(_var(chain, t) * r / rho) * rng.standard_normal(v.size)
        v = np.maximum(0.0, v + lw.own_s - t + others)
        w = np.maximum(0.0, v - tau)
        total += np.where(k > step, w, 0.0)
        chance.append(float((w[k > step] > 0).mean()))
    return {"by_place": [round(c, 4) for c in chance],
            "sum_ms": {str(q): round(float(np.quantile(total, q / 100)) * 1000, 2)
                       for q in QUANTILES}}


CLOSED_S = 360.0  # seconds of the closed loop (as the event simulation's 3 seeds x 120 s)


Request = tuple[list[float], list[bool], list[float], bool, list[float]]


def run_closed(events: list[tuple[float, int, int, int]], requests: list[Request],
               background: list[float], tau: float) -> None:
    """One GCRA limit with tolerance tau in closed loop: `events` (time, order, request or -1,
    place: the request's I/O or the background job's index) are the first arrivals; a request
    (works, hits, gaps, is a write, waits) issues its next I/O its gap after this one passed,
    an I/O that does not reach the limit (hit False) passing at once. Fills each request's
    waits."""
    heapq.heapify(events)
    order, tat = len(events), 0.0
    while events:
        t, _, rid, place = heapq.heappop(events)
        if rid < 0:
            tat = max(tat, t) + background[place]
            continue
        works, hits, gaps, _, waited = requests[rid]
        passed = t
        if hits[place]:
            passed = max(t, tat - tau)
            tat = max(tat, t) + works[place]
            waited[place] = passed - t
        if place + 1 < len(works):
            heapq.heappush(events, (passed + gaps[place], order, rid, place + 1))
            order += 1


def closed_loop(spec: str, data_gb: float, tps: float, replicas: int,
                seed: int = 1) -> dict[str, Any]:
    """The volume's IOPS limit alone, in closed loop: the engine's input there (Poisson
    background; each class's requests at Poisson times, their I/Os reaching the limit with its
    chance, with its work), but each I/O of a request issued its gap after the one before passed
    the limit (the offsets' gap less the mean wait they were built with), the limit a GCRA pacer
    with its tolerance (an I/O passes at max(t, TAT - tau); TAT = max(TAT, t) + work), nothing
    else in the way. Over the write requests after the first 5 %: the chance the k-th I/O waits
    and the summed waits' quantiles."""
    plan, mix, rates, x = _engine_input(spec, data_gb, tps, replicas)
    _, mean_wait = waits.spaced_waits(plan, mix, x, rates)
    l = next(i for i, name in enumerate(plan.limit_names) if name.endswith("volume IOPS"))
    rate, tau = rates[l], float(plan.tolerance_s[l])
    rng = np.random.default_rng(seed)
    events: list[tuple[float, int, int, int]] = []  # (time, order, request or -1, place)
    requests: list[Request] = []
    background: list[float] = []
    dev_classes = [c for c in mix.classes if waits._has_device(c)]
    for c, cl in zip(dev_classes, waits.class_clusters(mix, x, mean_wait), strict=True):
        per_op = waits.op_reach(plan, l, rate, c)
        probs = np.array([p for p, _ in cl.shapes] + [0.0])
        probs[-1] = max(0.0, 1 - probs.sum())
        for start in rng.random(rng.poisson(cl.rate * CLOSED_S)) * CLOSED_S:
            pick = int(rng.choice(probs.size, p=probs / probs.sum()))
            if pick == len(cl.shapes):
                continue
            offsets, ops = cl.shapes[pick][1], cl.ops[pick]
            gaps = [max(0.0, b - a - mean_wait) for a, b in itertools.pairwise(offsets)]
            hits = [bool(rng.random() < per_op[op][0]) for op in ops]
            requests.append(([per_op[op][1] for op in ops], hits, gaps, c.kind == 1,
                             [0.0] * len(ops)))
            events.append((float(start), len(events), len(requests) - 1, 0))
    for r, work in [(x * io.rate * hit, work / rate) for io in mix.background
                    for hit, work in [waits._hit(plan, l, io)] if io.rate > 0 and hit > 0]:
        for start in rng.random(rng.poisson(r * CLOSED_S)) * CLOSED_S:
            background.append(work)
            events.append((float(start), len(events), -1, len(background) - 1))
    run_closed(events, requests, background, tau)
    writes = [r[4] for r in requests if r[3]]
    writes = writes[len(writes) // 20:]
    most = max(len(w) for w in writes)
    chance = [float(np.mean([w[k] > WAITED_S for w in writes if len(w) > k]))
              for k in range(most)]
    sums = np.array([sum(w) for w in writes]) * 1000
    return {"requests": len(writes), "by_place": [round(c, 4) for c in chance],
            "sum_ms": {str(q): round(float(np.percentile(sums, q)), 2) for q in QUANTILES}}


def table(out: dict[str, Any]) -> str:
    d, a = out["event_simulation"], out["analytic"]
    lines = [f"{out['layout']}, {out['data_gb']:g} GiB, {out['replicas']} replica(s), "
             f"{out['tps']:g} tps: {d['transactions']:,} write transactions", ""]
    lines += _chain_tables(d, a)
    o = d["others_in_flight"]
    lines += ["", f"Other transactions in flight at an I/O that waits: {o['waiting']}, at one "
              f"that does not: {o['not_waiting']}.",
              f"Analytic: an I/O waits {a['chance']:.2%}, {a['mean_ms']} ms on average; the "
              f"chain's carry {a['carry']}, step {a['step_ms']} ms; the open-loop chain's carry "
              f"{a['open_chain']['carry']:.3f}, step {a['open_chain']['step_s'] * 1000:.3f} ms, "
              f"variance of the others' work in 1 ms "
              f"{_var(a['open_chain'], 1e-3) * 1e6:.4f} ms^2, spacing "
              f"{a['open_chain']['spacing_s'] * 1000:.3f} ms.", "",
              "| summed waits, quantile | " + " | ".join(d["sum_ms"]) + " |",
              "|---|" + "---|" * len(d["sum_ms"]),
              "| event simulation ms | " + " | ".join(str(v) for v in d["sum_ms"].values()) + " |",
              "| analytic ms | " + " | ".join(str(v) for v in a["sum_ms"].values()) + " |",
              "| open-loop chain (Monte Carlo) ms | "
              + " | ".join(str(v) for v in a["open_sum_ms"]["sum_ms"].values()) + " |", "",
              "The open-loop chain's k-th I/O waits: "
              + " / ".join(f"{c:.1%}" for c in a["open_sum_ms"]["by_place"]) + "."]
    o = out["open_loop"]
    lines += ["", f"The engine's input at that limit as an open-loop path ({o['ios']:,} I/Os over "
              f"{o['seconds']:g} s): an I/O waits {o['chance']:.2%}, the backlog is over the "
              f"tolerance {o['time_chance']:.2%} of the time.", ""]
    lines += _chain_tables(o)
    lines += ["", "The backlog chain from that path's backlog at random times (the k-th I/O's "
              "chance to wait; the summed waits, ms):", "",
              "| backlog chain | k-th I/O waits | " + " | ".join(d["sum_ms"]) + " |",
              "|---|---|" + "---|" * len(d["sum_ms"])]
    for name, b in o["backlog_chain"].items():
        lines.append(f"| {name} | " + " / ".join(f"{c:.1%}" for c in b["by_place"]) + " | "
                     + " | ".join(str(v) for v in b["sum_ms"].values()) + " |")
    c = out["closed_loop"]
    lines.append(f"| the limit alone, closed loop ({c['requests']:,} write requests) | "
                 + " / ".join(f"{p:.1%}" for p in c["by_place"]) + " | "
                 + " | ".join(str(v) for v in c["sum_ms"].values()) + " |")
    return "\n".join(lines)


def _chain_tables(d: dict[str, Any], chains: dict[str, Any] | None = None) -> list[str]:
    """The chance by place and the regression, as Markdown lines."""
    lines = ["| k-th device I/O | waits | mean wait ms |", "|---|---|---|"]
    lines += [f"| {r['k']} | {r['chance']:.2%} | {r['mean_ms']} |" for r in d["by_place"]]
    lines += ["", "| last wait ms | I/Os | next waits | next mean ms | next sd ms | next p90 ms |"
              " engine's chain: next ms | open-loop chain: waits / mean / sd / p90 ms |",
              "|---|---|---|---|---|---|---|---|"]
    for r in d["regression"]:
        last = "none" if r["last_ms"] is None else \
            f"{r['last_ms'][0]:g}-{r['last_ms'][1] or ''} (mean {r['last_mean_ms']})"
        model = ""
        if chains is not None and r["last_ms"] is not None:
            w = r["last_mean_ms"] / 1000
            eng = chains["engine_chain"]
            nxt = _open_next(chains["open_chain"], w)
            model = (f"{max(0.0, eng['carry'] * w + eng['step_s']) * 1000:.3f} | "
                     f"{(nxt > 0).mean():.1%} / {nxt.mean():.3f} / {nxt.std():.3f} / "
                     f"{np.quantile(nxt, 0.9):.3f}")
        lines.append(f"| {last} | {r['n']:,} | {r['next_waits']:.1%} | {r['next_mean_ms']} |"
                     f" {r.get('next_sd_ms', '')} | {r.get('next_p90_ms', '')} | {model} |")
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
    ap.add_argument("--preset", choices=sorted(PRESETS), default="point-rw")
    ap.add_argument("--windowed", action="store_true",
                    help="the open-loop chain's noise from the work in the window itself")
    ap.add_argument("--format", choices=("table", "json"), default="table")
    args = ap.parse_args(argv)
    PRESET[0] = args.preset
    WINDOWED[0] = args.windowed
    if not 1 <= args.tps <= 100_000 or not 1 <= args.data_gb <= 100_000:
        ap.error("--tps and --data-gb: 1 to 100,000")
    if not 1 <= args.path_seed <= 100:
        ap.error("--path-seed: 1 to 100")
    out = {"layout": args.layout, "data_gb": args.data_gb, "replicas": args.replicas,
           "tps": args.tps,
           "event_simulation": event_simulation(args.layout, args.data_gb, args.tps,
                                                args.replicas, args.seeds),
           "analytic": analytic(args.layout, args.data_gb, args.tps, args.replicas),
           "closed_loop": closed_loop(args.layout, args.data_gb, args.tps, args.replicas),
           "open_loop": open_loop(args.layout, args.data_gb, args.tps, args.replicas,
                                  seed=args.path_seed)}
    print(json.dumps(out, indent=2) if args.format == "json" else table(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
