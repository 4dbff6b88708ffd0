"""RAID 0 replicas near their knee: a member's waits by the logs it carries, in the event
simulation and in the model (issue 10's grid; the model in `advisor.sim.analytic.transient` and
`striping`).

    python bench/member_cycle.py [--seeds 4] [--format table|json]

For each replica (50 GiB of data on RAID 0 2xgp3 35 GiB; 500 GiB on 2xgp3 325 GiB; at 85 % of
its knee) the event simulation runs `--seeds` seeds of 120 s, and the I/Os it issued (every
foreground read's and background I/O's issue time, offset and size, taken from the kernel's own
arrays) are replayed through one GCRA per member with the kernel's rules: its IOPS rate and burst
tolerance, a piece continuing the member's last I/O charged its size over 256 KiB and any other
at least one I/O. The replay's waits plus a read's service are checked against the event
simulation's own read latencies (its quantiles are printed side by side), so the replay stands
for the event simulation; it then tells what the event simulation does not report: each read's
wait by how many of the replica's three logs (relay log, redo log, binlog) were on its member
when it was issued. The model's wait of a read at a member limit (each state of the streams'
cycle, `waits.array_states`, averaged over placements as the engine takes a p99) is printed
beside it.
"""

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from numba import njit  # noqa: E402

from advisor.layout import resolve  # noqa: E402
from advisor.sim.analytic import waits  # noqa: E402
from advisor.sim.analytic.commit import with_group_commit  # noqa: E402
from advisor.sim.analytic.engine import steady_phase  # noqa: E402
from advisor.sim.analytic.mix import build_mix  # noqa: E402
from advisor.sim.analytic.striping import vincentized  # noqa: E402
from advisor.sim.plan import compile_plan  # noqa: E402
from advisor.sim.source import OP_COMMIT, OP_FLUSH, OP_READ, OP_WRITE  # noqa: E402
from advisor.userfiles import load_catalog  # noqa: E402
from workloads.mysql import MysqlParams  # noqa: E402
from workloads.mysql_run import Deployment, build_servers  # noqa: E402
from workloads.mysql_shape import shape_of  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from kernel_spy import kernel_arrays, seeds_args  # noqa: E402

CASES = (("c5.large:raid0:2xgp3:35GiB", 50, 1013.2), ("r5.xlarge:raid0:2xgp3:35GiB", 50, 1870.0),
         ("c5.large:raid0:2xgp3:325GiB", 500, 860.2),
         ("r5.xlarge:raid0:2xgp3:325GiB", 500, 1023.4))
QUANTILES = (0.9, 0.95, 0.97, 0.99, 0.995)
OVER_MS = (0.0, 2.0, 5.0, 10.0)
LOG_BYTES = 4096


@njit(cache=False)
def _replay(t, off, size, members, chunk, unit, rate, tau):  # type: ignore[no-untyped-def]
    """Each I/O's wait at its members' IOPS limits (GCRA, the kernel's charge) and its member
    (the first piece's)."""
    tat = np.zeros(members)
    last = np.full(members, -1)
    wait = np.zeros(t.size)
    first = np.zeros(t.size, dtype=np.int64)
    for i in range(t.size):
        pos = off[i]
        rem = size[i]
        w = 0.0
        piece = 0
        while rem > 0:
            c = pos // chunk
            within = pos - c * chunk
            take = min(chunk - within, rem)
            m = c % members
            moff = (c // members) * chunk + within
            seq = moff == last[m]
            last[m] = moff + take
            cost = take / unit if seq else max(1.0, np.ceil(take / unit))
            start = max(t[i], tat[m] - tau)
            tat[m] = max(tat[m], t[i]) + cost / rate
            w = max(w, start - t[i])
            if piece == 0:
                first[i] = m
            piece += 1
            pos += take
            rem -= take
        wait[i] = w
    return wait, first


def measure(spec: str, data_gb: float, tps: float, seeds: int) -> dict[str, Any]:
    catalog = load_catalog(use_env=False)
    layout = resolve(spec, catalog)
    params = MysqlParams(tps=tps, data_gb=data_gb, replicas=1, shape=shape_of("point-rw"),
                         reads_per_write=3.25)
    server = build_servers(Deployment(master=layout, replica=layout), params, None)[1]
    plan = compile_plan(layout, catalog)
    (l,) = [i for i, n in enumerate(plan.limit_names) if n == "gp3 volume IOPS"][:1]
    rate, tau = float(plan.lim_rate[l]), float(plan.tolerance_s[l])
    unit = float(plan.lim_unit_bytes[l])
    des_lat: list[np.ndarray] = []
    waits_by: list[np.ndarray] = []
    counts: list[np.ndarray] = []
    for seed in range(1, seeds + 1):
        for g in kernel_arrays(plan, server, layout, seed):
            n = g["ran"]
            k = int(g["first"][n])
            op = g["op"][:k]
            issued = g["bg_issue"] > 0
            bg_op = g["bg_op"][issued]
            keep = bg_op != OP_FLUSH
            reads = op == OP_READ
            t = np.concatenate([g["issue"][:k][reads], g["bg_issue"][issued][keep]])
            off = np.concatenate([g["off"][:k][reads], g["bg_off"][issued][keep]])
            size = np.concatenate([g["size"][:k][reads], g["bg_size"][issued][keep]])
            fg = np.concatenate([np.ones(int(reads.sum()), dtype=bool),
                                 np.zeros(int(keep.sum()), dtype=bool)])
            logs = np.concatenate([np.zeros(int(reads.sum()), dtype=bool),
                                   ((bg_op[keep] == OP_COMMIT) | (bg_op[keep] == OP_WRITE))
                                   & (g["bg_size"][issued][keep] == LOG_BYTES)])
            o = np.argsort(t, kind="stable")
            t, off, size, fg, logs = t[o], off[o], size[o], fg[o], logs[o]
            w, member = _replay(t, off.astype(np.int64), size.astype(np.int64), plan.members,
                                plan.chunk_bytes, unit, rate, tau)
            # The logs on the read's member when it was issued: each log's last write's member
            # (the three logs' writes told apart by their offsets' runs).
            on = np.zeros(t.size, dtype=np.int64)
            lt, lm, lo = t[logs], member[logs], off[logs]
            order = np.argsort(lo, kind="stable")
            breaks = np.flatnonzero(np.diff(lo[order]) != LOG_BYTES) + 1
            for run in np.split(order, breaks):
                if run.size < 100:
                    continue
                run = np.sort(run)
                at = np.searchsorted(lt[run], t, side="right") - 1
                on += (at >= 0) & (lm[run][np.maximum(at, 0)] == member)
            des_lat.append((g["done"][:k] - g["issue"][:k])[reads])
            waits_by.append(w[fg])
            counts.append(on[fg])
    lat, w, on = np.concatenate(des_lat), np.concatenate(waits_by), np.concatenate(counts)
    # The model: a read's wait at the member limit.
    mix = with_group_commit(build_mix(plan, server.request_classes(), server.background_specs()),
                            server.rate_tps)
    last = steady_phase(plan, mix, rate=server.rate_tps, duration_s=120)
    got, mean_wait = waits.spaced_waits(plan, mix, last.x, list(last.rates))
    placed = waits.array_states(plan, mix, last.x, list(last.rates), got, mean_wait)
    if placed is None:
        model = next(x for x in got if x.limit == l).wait_dist()
    else:
        model = vincentized(placed.shares, [next(x for x in s if x.limit == l).wait_dist()
                                            for s in placed.states])
    qs = np.array(QUANTILES)
    return {"layout": spec, "data_gb": data_gb, "tps": tps, "seeds": seeds,
            "des_read_latency_ms": np.round(np.quantile(lat, qs) * 1000, 3).tolist(),
            "replay_wait_ms": np.round(np.quantile(w, qs) * 1000, 3).tolist(),
            "model_wait_ms": np.round(model.quantiles(qs) * 1000, 3).tolist(),
            "by_logs": [{"logs": c, "share": round(float((on == c).mean()), 3),
                         "over": [round(float((w[on == c] > y / 1000).mean()), 5)
                                  for y in OVER_MS]}
                        for c in range(4) if (on == c).any()]}


def main(argv: list[str] | None = None) -> int:
    args = seeds_args(__doc__, argv, default=4, most=40)
    out = [measure(spec, data, tps, args.seeds) for spec, data, tps in CASES]
    if args.format == "json":
        print(json.dumps(out, indent=2))
        return 0
    q = " / ".join(f"q{x * 100:g}" for x in QUANTILES)
    for r in out:
        print(f"{r['layout']} ({r['data_gb']:g} GiB) replica at {r['tps']:g} tps, seeds "
              f"1-{r['seeds']}: {q} ms")
        print(f"  event simulation, read latency : {r['des_read_latency_ms']}")
        print(f"  replay, read wait              : {r['replay_wait_ms']}")
        print(f"  model, read wait               : {r['model_wait_ms']}")
        for b in r["by_logs"]:
            print(f"  replay, {b['logs']} logs on the member ({b['share']:.1%} of reads): "
                  f"P(wait > {'/'.join(f'{y:g}' for y in OVER_MS)} ms) {b['over']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
