"""Group commit's log writes per commit: the event simulation against the analytic models.

    .venv/bin/python bench/group_share.py [--duration 40] [--seeds 3] [--format table|json]

A master's redo log and binlog each flush one group at a time (`advisor.sim.kernel._group_commit`;
a redo group reaches the binlog whole), so fewer log writes than commits reach the limits. How
many is what the analytic engine's capacity, utilisation and knee rest on. For a few grid cells
(docs/analytic-vs-des.md) over a sweep of loads up to past the analytic knee, this counts the
event simulation's device log writes per commit on each log (40 s, 5 s warm-up, seeds 1-3,
their p99s averaged) and sets beside it:

- landed: the engine's share (`advisor.sim.analytic.commit.with_group_commit`): the logs keyed
  by write size, so the two 4 KiB logs are one log at twice the commit rate (the known bug of
  `tests/sim/test_group_commit_share.py`'s strict xfail);
- per log: each log's own share at its own commit rate with a flush taking its service time
  (`flushes_per_commit`), the binlog once per redo group;
- fluid: the same, except where the logs' demand at that share would take more than a limit
  leaves them (the others' utilisation rho_o there, the logs' work at one member of it: a log
  stream holds a RAID 0 member for a chunk). Each flush then waits at the limit until the two
  logs, flushing one after the other, take exactly its leftover capacity: the flush time F is
  the service shifted by the wait w that solves rho_o + (log writes/s)(F) x c / R = 1 (c the
  logs' work per cycle at that limit, R its rate), the share from `flushes_per_commit` with that
  F. In that regime F -> n c / ((1 - rho_o) R): the logs are elastic, their groups growing as the
  limit's leftover shrinks, and the limit stays short of saturation until the other I/Os alone
  saturate it. On RAID 0 the binlog shares the redo log's member with chance 1 / members: the
  share is the mix of the two cases.

Where the logs are elastic the limit sits just short of saturation, and the other I/Os' wait is
not an M/G/1 wait (that diverges there): the logs' waits pull the limit's backlog V back to a
level. As a diffusion, V drifts at mu(v) = rho_o + (log writes/s with a flush of service + (v -
tau)^+) x c / R - 1 with variance rate Y (the other I/Os' second-moment rate of work), reflected
at 0: its stationary density is proportional to exp(2 / Y' int_0^v mu), and every I/O arriving
at random waits (V - tau)^+. The logs respond to V only at their next flush, a flush time F
later: the variance of an Ornstein-Uhlenbeck process whose pull kappa = (1 - rho_o) / F acts
with that delay is (1 + sin(kappa F)) / cos(kappa F) times the undelayed one (Kuechler and
Mensch 1992; an Euler simulation of that equation gave 1.775 against the formula's 1.771 at
kappa F = 0.45, 1.556 against 1.541 at 0.8), so Y' = Y (1 + sin(1 - rho_o)) / cos(1 -
rho_o). For the transactions whose time is their commits (sysbench-oltp-wo: a CPU step, then
the redo log's group, then the binlog's), the transaction p99 follows with one backlog level
per transaction: its CPU, the residual of the redo flush in progress, its own redo flush and
its binlog flush, each a flush's service plus that level's wait. Without the delay factor it
came out 12-17 % low from 1,856 to 3,200 tps (2026-11-29).

Nothing here is fitted: both models use the plan's rates and the mix's costs alone.
"""

import argparse
import itertools
import json
import os
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rich.progress import Progress  # noqa: E402
from scipy.optimize import brentq  # noqa: E402

import advisor.sim.des as des  # noqa: E402
from advisor.layout import resolve  # noqa: E402
from advisor.sim.analytic import build_mix  # noqa: E402
from advisor.sim.analytic.commit import COMMIT, flushes_per_commit, with_group_commit  # noqa: E402
from advisor.sim.analytic.dist import Dist, convolve, mixture  # noqa: E402
from advisor.sim.analytic.engine import limit_name  # noqa: E402
from advisor.sim.analytic.mix import IoPart, Mix  # noqa: E402
from advisor.sim.analytic.waits import _hit, equilibrium  # noqa: E402
from advisor.sim.plan import SimPlan, compile_plan  # noqa: E402
from advisor.sim.source import OP_CPU  # noqa: E402
from advisor.userfiles import load_catalog  # noqa: E402
from workloads.mysql import MysqlParams  # noqa: E402
from workloads.mysql_run import Deployment, build_servers, flush_throttle_lag_s  # noqa: E402
from workloads.mysql_shape import PRESETS, shape_of  # noqa: E402

# (layout, data GiB, preset, offered tps): the grid's cells without a replica, from ~30 % of the
# analytic knee to past it (the knees of docs/analytic-vs-des.md: ~2,180, ~2,460 and ~622 tps).
SWEEPS = (
    ("r5.xlarge:io1:70GiB:3500iops", 50.0, "sysbench-oltp-wo",
     (655, 1310, 1600, 1856, 2180, 2500, 2900, 3200)),
    ("r5.xlarge:raid0:2xgp3:35GiB", 50.0, "point-rw", (739, 1478, 2094, 2400)),
    ("c5.large:gp3:70GiB", 50.0, "point-rw", (187, 373, 529, 600)),
)


@dataclass(frozen=True, slots=True)
class Fluid:
    share: float  # log writes per commit
    per_log: float  # the same with a flush at its service time (no limit in the way)
    wait_ms: float  # each flush's wait at the binding limit
    limit: int | None  # where the logs are elastic (None: nowhere)
    rho_others: float | None  # the other I/Os' utilisation there


def _commits(mix: Mix) -> list[tuple[float, IoPart]]:
    return [(c.probability, io) for c in mix.classes for io in c.ios
            if io.op == COMMIT and io.rate > 0]


def _at_limit(plan: SimPlan, mix: Mix, x: float, l: int) -> tuple[float, float, float]:
    """(limit l's rate in force, the logs' cost per request there were every commit its own
    write, the other I/Os' utilisation of it) at `x` requests/s."""
    log_cost = sum(p * io.rate * float(io.cost[l]) for p, io in _commits(mix))
    rate = plan.rate_in_force(l, set())
    return rate, log_cost, x * (float(mix.cost[l]) - log_cost) / rate if rate > 0 else 0.0


def fluid_share(plan: SimPlan, mix: Mix, x: float) -> Fluid:
    """Log writes per commit of the redo log (the binlog writes once per redo group) at `x`
    requests/s, with the logs elastic wherever their demand exceeds a limit's leftover."""
    commits = _commits(mix)
    prob, first = commits[0]
    lam = x * prob * first.rate  # each log's commits per second
    svc = first.service
    per_log = flushes_per_commit(svc, lam)
    same = 1.0 / plan.members  # chance the binlog's chunk is on the redo log's member
    best = Fluid(per_log, per_log, 0.0, None, None)
    for l in range(plan.n_limits):
        rate, _, rho_o = _at_limit(plan, mix, x, l)
        if rate <= 0:
            continue
        works = [_hit(plan, l, io)[1] for _, io in commits]
        if rho_o >= 1 or not any(w > 0 for w in works):
            continue
        own = prob * first.rate * works[0]
        cases = [(1.0, own + prob * sum(io.rate * w for (_, io), w in zip(commits[1:], works[1:],
                                                                        strict=True)))]
        if plan.members > 1 and plan.limit_scope[l] != "instance" and len(commits) > 1:
            cases = [(same, cases[0][1]), (1 - same, own)]  # the binlog on it, or elsewhere
        share, wait = 0.0, 0.0
        for weight, work in cases:
            w = _elastic_wait(svc, lam, rho_o, x * work / rate)
            share += weight * (per_log if w is None else flushes_per_commit(svc.shifted(w), lam))
            wait += weight * (w or 0.0)
        if share < best.share:
            best = Fluid(share, per_log, wait * 1000, l, round(rho_o, 3))
    return best


def _elastic_wait(service: Dist, lam: float, rho_o: float, load: float) -> float | None:
    """The flush wait w at which the logs take exactly the limit's leftover, rho_o + load x
    (log writes per commit with a flush of service + w) = 1; None where they fit unwaited
    (`load`: the logs' utilisation of the limit were every commit its own write)."""
    def rho(w: float) -> float:
        return rho_o + load * flushes_per_commit(service.shifted(w), lam)

    if rho(0.0) < 1:
        return None
    hi = 1e-3
    while rho(hi) > 1 and hi < 1e3:
        hi *= 2
    return float(brentq(lambda w: rho(w) - 1, 0.0, hi, xtol=1e-9))


def backlog_wait(plan: SimPlan, mix: Mix, x: float, l: int) -> Dist:
    """The wait (V - tau)^+ at limit `l` of an I/O arriving at random, V the backlog held by
    the elastic logs (the stationary law of the diffusion in the module's docstring)."""
    commits = _commits(mix)
    prob, first = commits[0]
    lam = x * prob * first.rate
    rate, log_cost, rho_o = _at_limit(plan, mix, x, l)
    tau = float(plan.tolerance_s[l])
    cycle = log_cost / prob / rate  # seconds of work one group adds on both logs
    # the other I/Os' second-moment rate of work (background streams and the requests' own)
    y = sum(x * io.rate * (io.cost[l] / rate) ** 2 for io in mix.background if io.rate > 0)
    y += sum(c.probability * x * io.rate * (io.cost[l] / rate) ** 2 for c in mix.classes
             for io in c.ios if io.op in (0, 1) and io.rate > 0)
    delayed = y * (1 + np.sin(1 - rho_o)) / np.cos(1 - rho_o)
    w_fluid = _elastic_wait(first.service, lam, rho_o, x * log_cost / rate) or 0.0
    v = np.linspace(0.0, tau + 40 * max(w_fluid, 1e-3), 40_001)
    w = np.maximum(0.0, v - tau)
    at = np.linspace(0.0, float(w[-1]), 400)
    share = np.interp(w, at, [flushes_per_commit(first.service.shifted(float(a)), lam)
                              for a in at])
    drift = rho_o + lam * share * cycle - 1
    log_p = np.concatenate(([0.0], np.cumsum(2 * drift[:-1] / delayed * np.diff(v))))
    p = np.exp(log_p - log_p.max())
    return Dist(w, p / p.sum())


def commit_bound_p99(plan: SimPlan, mix: Mix, x: float, l: int) -> float:
    """The p99 (s) of a transaction whose time is its CPU and its commits (one redo group, then
    the binlog's flush of it), with one backlog level (`backlog_wait`) for all of them."""
    wait = backlog_wait(plan, mix, x, l)
    first = _commits(mix)[0][1]
    cpu = sum(c.probability * io.rate * io.service.mean for c in mix.classes for io in c.ios
              if io.op == OP_CPU)
    keep = wait.weights > 1e-12
    w, p = wait.values[keep], wait.weights[keep]
    edges = np.linspace(0, w.size, 401).astype(int)  # 400 levels, each at its mean wait
    parts = []
    for a, b in itertools.pairwise(edges):
        mass = float(p[a:b].sum())
        if b <= a or mass <= 0:
            continue
        flush = first.service.shifted(float(np.dot(w[a:b], p[a:b]) / mass))
        parts.append((mass, convolve(convolve(equilibrium(flush), flush), flush)))
    return mixture(parts).shifted(cpu).quantile(0.99)


@dataclass(frozen=True, slots=True)
class Row:
    layout: str
    preset: str
    tps: float
    achieved_tps: float
    des_p99_ms: float
    des_redo: float
    des_binlog: float
    landed: float
    per_log: float
    fluid: float
    fluid_wait_ms: float
    elastic_at: str | None
    rho_others: float | None
    diffusion_p99_ms: float | None  # the backlog diffusion's transaction p99 (oltp-wo alone)


def measure(spec: str, data_gb: float, preset: str, tps: float, duration_s: float,
            seeds: int) -> Row:
    catalog = load_catalog()
    layout = resolve(spec, catalog)
    plan = compile_plan(layout, catalog)
    params = MysqlParams(tps=tps, data_gb=data_gb, replicas=0, shape=shape_of(preset),
                         reads_per_write=PRESETS[preset].reads)
    server = build_servers(Deployment(master=layout, replica=None), params, None)[0]
    seen: list[tuple[np.ndarray, ...]] = []
    count = des._device_ios

    def spy(op: np.ndarray, aux: np.ndarray, done: np.ndarray) -> np.ndarray:
        seen.append((op.copy(), aux.copy(), done.copy()))
        return count(op, aux, done)

    des._device_ios = spy
    try:  # seeds 1..seeds: their log writes pooled, their p99s averaged (as the grid does)
        raws = [des.run_des(plan, server, duration_s=duration_s, warmup_s=5.0, seed=seed,
                            couple_background=True,
                            throttle_lag_s=flush_throttle_lag_s(server, layout))
                for seed in range(1, seeds + 1)]
    finally:
        des._device_ios = count
    op, aux, done = (np.concatenate([s[i] for s in seen]) for i in range(3))
    written = count(op, aux, done)
    des_share = [float(written[(op == COMMIT) & (aux == log)].mean()) for log in (0, 1)]
    mix = build_mix(plan, server.request_classes(), server.background_specs())
    grouped = with_group_commit(mix, server.rate_tps)
    landed = next(float(b.cost.max() / a.cost.max())
                  for c, c2 in zip(mix.classes, grouped.classes, strict=True)
                  for a, b in zip(c.ios, c2.ios, strict=True) if a.op == COMMIT)
    fluid = fluid_share(plan, mix, server.rate_tps)
    # the diffusion: on one volume (not a RAID's member limits), for commit-bound transactions
    at = fluid.limit if preset == "sysbench-oltp-wo" and plan.members == 1 else None
    p99 = None if at is None else round(commit_bound_p99(plan, mix, server.rate_tps, at) * 1000,
                                        2)
    return Row(layout=spec, preset=preset, tps=tps,
               achieved_tps=round(float(np.mean([r.finished_in_window for r in raws]))
                                  / (duration_s - 5.0), 1),
               des_p99_ms=round(float(np.mean([r.request_latency["all"].quantile_s(99)
                                               for r in raws])) * 1000, 2),
               des_redo=round(des_share[0], 3), des_binlog=round(des_share[1], 3),
               landed=round(landed, 3),
               per_log=round(fluid.per_log, 3),
               fluid=round(fluid.share, 3), fluid_wait_ms=round(fluid.wait_ms, 3),
               elastic_at=None if fluid.limit is None else limit_name(plan, fluid.limit),
               rho_others=fluid.rho_others, diffusion_p99_ms=p99)


def table(rows: list[Row]) -> str:
    out = ["| layout | preset | tps | DES achieved | DES p99 ms | DES redo / binlog | landed | "
           "per log | fluid | fluid wait ms (limit, rho others) | diffusion p99 ms |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        where = f" ({r.elastic_at}, {r.rho_others:.2f})" if r.elastic_at else ""
        out.append(f"| {r.layout} | {r.preset} | {r.tps:,.0f} | {r.achieved_tps:,.1f} | "
                   f"{r.des_p99_ms:.2f} | {r.des_redo:.3f} / {r.des_binlog:.3f} | "
                   f"{r.landed:.3f} | {r.per_log:.3f} | {r.fluid:.3f} | "
                   f"{r.fluid_wait_ms:.3f}{where} | "
                   f"{'-' if r.diffusion_p99_ms is None else f'{r.diffusion_p99_ms:.2f}'} |")
    errs = {k: [abs(getattr(r, k) / r.des_redo - 1) for r in rows] for k in
            ("landed", "per_log", "fluid")}
    out.append("")
    out.append("Share against the DES's redo log, |error| median / max: " + "; ".join(
        f"{k} {np.median(v):.1%} / {max(v):.1%}" for k, v in errs.items()))
    p99 = [r.diffusion_p99_ms / r.des_p99_ms - 1 for r in rows if r.diffusion_p99_ms]
    if p99:
        out.append(f"Diffusion p99 against the DES's (elastic oltp-wo loads): "
                   f"{', '.join(f'{e:+.1%}' for e in p99)}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=40.0,
                    help="simulated seconds per load (5 s of them warm-up); 10 to 600")
    ap.add_argument("--seeds", type=int, default=3,
                    help="event simulations per load, seeds 1 to N (1 to 40)")
    ap.add_argument("--format", choices=("table", "json"), default="table")
    args = ap.parse_args(argv)
    if not 10.0 <= args.duration <= 600.0:
        ap.error(f"--duration must be within 10 to 600 s, got {args.duration:g}")
    if not 1 <= args.seeds <= 40:
        ap.error(f"--seeds must be within 1 to 40, got {args.seeds}")
    start, load0 = time.perf_counter(), os.getloadavg()[0]
    rows = []
    with Progress(disable=args.format == "json") as progress:
        task = progress.add_task("loads", total=sum(len(t) for *_, t in SWEEPS))
        for spec, data_gb, preset, tpss in SWEEPS:
            for tps in tpss:
                rows.append(measure(spec, data_gb, preset, float(tps), args.duration,
                                    args.seeds))
                progress.advance(task)
    if args.format == "json":
        print(json.dumps([asdict(r) for r in rows], indent=2))
    else:
        print(table(rows))
        print(f"\n{time.perf_counter() - start:.0f} s; load average {load0:.2f} -> "
              f"{os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
