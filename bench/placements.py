"""A RAID 0 master's p99 against where its two logs sit on the members, seed by seed: the event
simulation against the analytic engine's time states (issue 10).

    .venv/bin/python bench/placements.py [--layout c5.large:raid0:2xgp3:35GiB] [--data-gb 50]
        [--tps 1013] [--seeds 16] [--format table|json]

The master of a master-and-replica deployment on a RAID 0 array runs the write transactions
alone; each commits to the redo log and then the binlog, two sequential streams that stay on one
member for a chunk each. In one event simulation (120 s after 5 s) the streams start at places
drawn from its seed and keep their phases: the share of transactions whose two log writes land
on one member is that run's placement. For each seed this prints that share and the master's
p99; then their correlation, and the analytic engine's p99 with the logs always together, always
apart, and averaged over placements (`waits.array_states`, `striping.vincentized`).
"""

import argparse
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

WARMUP_S = 5.0


def _master(spec: str, data_gb: float, tps: float) -> Any:
    catalog = load_catalog()
    layout = resolve(spec, catalog)
    params = MysqlParams(tps=tps, data_gb=data_gb, replicas=1)
    return catalog, layout, build_servers(Deployment(master=layout, replica=layout), params,
                                          None)[0]


def event_simulation(spec: str, data_gb: float, tps: float, seeds: int) -> list[dict[str, Any]]:
    """Per seed: the share of transactions with both log writes on one member, and the p99."""
    catalog, layout, server = _master(spec, data_gb, tps)
    plan = compile_plan(layout, catalog)
    runs: list[dict[str, Any]] = []
    events = kernel.run_events

    def spy(*args: Any) -> int:  # the arrays of run_des's batches
        ran = int(events(*args))
        runs.append({"first": args[1].copy(), "op": args[2].copy(), "offset": args[4].copy(),
                     "log": args[5].copy(), "start": args[30].copy(), "end": args[31].copy(),
                     "ran": ran})
        return ran

    out = []
    kernel.run_events = spy
    try:
        for seed in range(1, seeds + 1):
            runs.clear()
            des.run_des(plan, server, duration_s=WARMUP_S + 120.0, warmup_s=WARMUP_S, seed=seed,
                        couple_background=True, throttle_lag_s=flush_throttle_lag_s(server, layout))
            lat, redo, binlog = [], [], []
            for r in runs:
                n = r["ran"]
                kept = r["start"][:n] >= WARMUP_S
                lat.append((r["end"][:n] - r["start"][:n])[kept])
                k = int(r["first"][n])
                c = np.flatnonzero(r["op"][:k] == COMMIT)
                member = (r["offset"][c] // plan.chunk_bytes) % plan.members
                redo.append(member[r["log"][c] == 0])
                binlog.append(member[r["log"][c] == 1])
            a, b = np.concatenate(redo), np.concatenate(binlog)
            m = min(a.size, b.size)  # each transaction writes one of each, in order
            out.append({"seed": seed, "together": round(float((a[:m] == b[:m]).mean()), 3),
                        "p99_ms": round(float(np.percentile(np.concatenate(lat), 99)) * 1e3, 2)})
    finally:
        kernel.run_events = events
    return out


def analytic(spec: str, data_gb: float, tps: float) -> dict[str, float]:
    """The master's p99 in each time state of its two logs, and averaged over placements."""
    catalog, layout, server = _master(spec, data_gb, tps)
    plan = compile_plan(layout, catalog)
    mix = with_group_commit(build_mix(plan, server.request_classes(),
                                      server.background_specs()), server.rate_tps)
    x = server.rate_tps
    rates = [plan.rate_in_force(l, set()) for l in range(plan.n_limits)]
    limits, mean_wait = waits.spaced_waits(plan, mix, x, rates)
    placed = waits.array_states(plan, mix, x, rates, limits, mean_wait)
    if placed is None or len(placed.states) != 2:
        raise SystemExit(f"{spec}: not two logs on a RAID 0 array's members")
    averaged = waits.request_latency(plan, mix, x, rates)[0]
    state = [waits.latencies(mix, x, s)[0] for s in placed.states]
    # The logs together load one member more than apart: that state's tail is the longer.
    hot = max(range(2), key=lambda i: state[i].quantile(0.99))
    return {"placements_p99_ms": round(averaged.quantile(0.99) * 1e3, 2),
            "together_p99_ms": round(state[hot].quantile(0.99) * 1e3, 2),
            "apart_p99_ms": round(state[1 - hot].quantile(0.99) * 1e3, 2)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layout", default="c5.large:raid0:2xgp3:35GiB")
    ap.add_argument("--data-gb", type=float, default=50.0)
    ap.add_argument("--tps", type=float, default=1013.0)
    ap.add_argument("--seeds", type=int, default=16)
    ap.add_argument("--format", choices=("table", "json"), default="table")
    args = ap.parse_args(argv)
    rows = event_simulation(args.layout, args.data_gb, args.tps, args.seeds)
    share = np.array([r["together"] for r in rows])
    p99 = np.array([r["p99_ms"] for r in rows])
    fit = np.polyfit(share, p99, 1) if len(rows) > 1 else np.array([0.0, float(p99.mean())])
    out = {"layout": args.layout, "tps": args.tps, "seeds": rows,
           "event_simulation": {"mean_p99_ms": round(float(p99.mean()), 2),
                                "correlation": round(float(np.corrcoef(share, p99)[0, 1]), 3)
                                if len(rows) > 1 else None,
                                "apart_p99_ms": round(float(fit[1]), 2),
                                "together_p99_ms": round(float(fit[0] + fit[1]), 2)},
           "analytic": analytic(args.layout, args.data_gb, args.tps)}
    if args.format == "json":
        print(json.dumps(out, indent=2))
        return 0
    print(f"{args.layout} master behind a replica at {args.tps:g} tps, seeds 1-{args.seeds}:\n")
    print("| seed | both logs on one member | master p99 ms |\n|---|---|---|")
    for r in rows:
        print(f"| {r['seed']} | {r['together']:.0%} | {r['p99_ms']:.2f} |")
    e, a = out["event_simulation"], out["analytic"]
    print(f"\nEvent simulation: mean p99 {e['mean_p99_ms']} ms, correlation with the share "
          f"together {e['correlation']}; a line through the seeds gives {e['apart_p99_ms']} ms "
          f"apart and {e['together_p99_ms']} ms together.")
    print(f"Analytic: {a['apart_p99_ms']} ms apart, {a['together_p99_ms']} ms together, "
          f"{a['placements_p99_ms']} ms averaged over placements.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
