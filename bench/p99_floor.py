"""How tight and how safe the p99 floor is (issue 14 item 6): over every candidate that ten
sizings screen, the floor (`recommend.mysql_search.p99_floor_s`: the screen's request time with
no wait at any limit) against the screen's p99 at the target load, and what the floor refused.

The floor refuses a candidate when it exceeds the SLO by P99_FLOOR_MARGIN; that is safe when the
floor is never more than that above the screen's p99 (both are read from discretised
distributions). The script screens every candidate the searches reach with the floor switched
off (so each gets the screen's p99), and reports the ratio screen / floor: its minimum must stay
above 1 / P99_FLOOR_MARGIN. It also times each sizing with the floor on, for the search's cost.

    python bench/p99_floor.py [--format json]
"""

import argparse
import contextlib
import json
import os
import statistics
import time
from typing import Any

import numpy as np

import recommend.mysql_search as ms
from advisor.catalog import builtin_catalog
from advisor.errors import AdvisorError
from recommend.request import size_request
from recommend.run import run_size

REQUESTS: list[dict[str, Any]] = [
    {"tps": 627, "reads": 3.25},
    {"data_gb": 500, "p99_ms": 5},
    {"preset": "sysbench-oltp-rw", "tps": 627},
    {"tps": 300, "p99_ms": 3},
    {"preset": "tpcc-like", "tps": 200, "p99_ms": 30},
    {"tps": 2000, "p99_ms": 4, "data_gb": 50},
    {"preset": "sysbench-oltp-ro", "tps": 500, "p99_ms": 20},
    {"preset": "sysbench-oltp-wo", "tps": 500, "p99_ms": 8},
    {"tps": 1500, "reads": 10, "p99_ms": 6, "replicas": 3},
    {"tps": 400, "p99_ms": 4, "allow_ephemeral": True},
]


def _label(fields: dict[str, Any]) -> str:
    return " ".join(f"--{k.replace('_', '-')}" + ("" if v is True else f" {v}")
                    for k, v in fields.items())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--format", choices=("text", "json"), default="text")
    args = ap.parse_args()
    catalog = builtin_catalog()
    rows: list[tuple[str, str, float, float, float]] = []  # role, spec, floor, screen, slo
    screen = ms._screen
    margin = ms.P99_FLOOR_MARGIN

    def unfloored(c: ms.Candidate, plan: ms.SimPlan, req: ms.MysqlSizeRequest, replicas: int,
                  measured: Any) -> str | None:
        out = screen(c, plan, req, replicas, measured)
        if c.at_target is not None:
            server = ms.server_for(req, c.layout, c.role, replicas, req.tps, measured)
            floor = ms.p99_floor_s(plan, server)
            if floor > 0:
                rows.append((c.role, c.spec, floor * 1000, c.at_target.p99_s * 1000, req.p99_ms))
        return out

    timings = []
    for fields in REQUESTS:
        req = size_request({"workload": "mysql", **fields})
        ms.P99_FLOOR_MARGIN = margin
        ms._screen = screen
        started = time.process_time()
        try:
            run_size(req, catalog)
            answer = "found"
        except AdvisorError as e:
            answer = type(e).__name__
        cpu = time.process_time() - started
        ms.P99_FLOOR_MARGIN = float("inf")  # the floor refuses nothing: every p99 is computed
        ms._screen = unfloored
        before = len(rows)
        with contextlib.suppress(AdvisorError):
            run_size(req, catalog)
        timings.append({"request": _label(fields), "answer": answer, "cpu_s": round(cpu, 3),
                        "screened_unfloored": len(rows) - before})
    ms.P99_FLOOR_MARGIN, ms._screen = margin, screen
    ratio = np.array([r[3] / r[2] for r in rows])
    refused = [r for r in rows if r[2] > r[4] * margin]
    out = {
        "load_average": os.getloadavg(),
        "margin": margin,
        "candidates": len(rows),
        "screen_over_floor": {"min": float(ratio.min()),
                              "p1": float(np.percentile(ratio, 1)),
                              "median": float(statistics.median(ratio)),
                              "max": float(ratio.max())},
        "floor_above_screen_max_pct": round((1 / float(ratio.min()) - 1) * 100, 2),
        "refusable": len(refused),
        "refused_but_screen_passes": sum(1 for r in refused if r[3] <= r[4]),
        "sizings": timings,
    }
    if args.format == "json":
        print(json.dumps(out, indent=2))
        return
    for t in timings:
        print(f"{t['request']:<45} {t['answer']:<13} cpu {t['cpu_s']:7.3f} s   "
              f"{t['screened_unfloored']:5d} screened with the floor off")
    s = out["screen_over_floor"]
    print(f"{len(rows)} candidates: screen p99 / floor min {s['min']:.4f}, 1st pct "
          f"{s['p1']:.4f}, median {s['median']:.4f}, max {s['max']:.1f}; the floor is at most "
          f"{out['floor_above_screen_max_pct']:.2f} % above the screen (margin "
          f"{(margin - 1) * 100:.0f} %)")
    print(f"the floor would refuse {len(refused)} of them, of which the screen passes "
          f"{out['refused_but_screen_passes']} (must be 0); load average "
          f"{', '.join(f'{x:.2f}' for x in out['load_average'])}")


if __name__ == "__main__":
    main()
