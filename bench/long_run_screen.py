"""The MySQL screen's p99 over weeks against the event simulation's, on the servers `advisor
size` recommends.

    .venv/bin/python bench/long_run_screen.py [--format table|json]

A server whose volumes have slow episodes in the device model (EBS: 10-minute episodes, ~1 % of
the time per gp2/gp3 volume, 0.1 % on io1/io2) is, over weeks, in its usual state or with one
volume slowed; its p99 over weeks is the two states' request times mixed by their shares of time.
The screen takes both states on the analytic engine (`recommend.mysql_search.long_run`: the
episode state at 4 Gauss-Legendre nodes of the speed loss, each with one member slowed) and
refuses a server whose p99 over weeks misses the SLO. The result's variability estimate
(`recommend.variability`) takes both states in the event simulation: the verified headroom check
re-run without episodes, and 8 forced-episode runs (one member slowed, at the midpoints of the
speed loss). For each request below, each server of the recommendation: both estimates of the
episode state's p99 and of the p99 over weeks, and the error (screen / DES - 1). Nothing is
fitted; the DES's figures are one run of the check's seeds (its usual state's interval is in the
result)."""

import argparse
import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from advisor.layout.model import resolve  # noqa: E402
from advisor.userfiles import load_catalog  # noqa: E402
from recommend import mysql_search as ms  # noqa: E402
from recommend.request import MysqlSizeRequest  # noqa: E402
from recommend.size import size_mysql  # noqa: E402

REQUESTS = {
    "--tps 627 --reads 3.25": MysqlSizeRequest(tps=627, reads=3.25),
    "--tps 627 --reads 3.25 --data-gb 500 --p99-ms 5":
        MysqlSizeRequest(tps=627, reads=3.25, data_gb=500, p99_ms=5),
    "--tps 627 --reads 3.25 --data-gb 500 --p99-ms 4.5":
        MysqlSizeRequest(tps=627, reads=3.25, data_gb=500, p99_ms=4.5),
    "--tps 627 --preset sysbench-oltp-rw": MysqlSizeRequest(tps=627, preset="sysbench-oltp-rw"),
    "--tps 5000": MysqlSizeRequest(tps=5000),
    "--tps 627 --reads 3.25 --replicas 2": MysqlSizeRequest(tps=627, reads=3.25, replicas=2),
}


@dataclass(frozen=True, slots=True)
class Row:
    request: str
    seconds: float  # the sizing, in process
    role: str
    layout: str
    share: float  # of the time one of its volumes is in a slow episode
    slo_ms: float
    des_usual_ms: float
    screen_usual_ms: float
    des_episode_ms: float
    screen_episode_ms: float
    des_long_run_ms: float
    screen_long_run_ms: float


def rows() -> list[Row]:
    catalog = load_catalog()
    out: list[Row] = []
    for name, req in REQUESTS.items():
        t0 = time.perf_counter()
        res = size_mysql(req, catalog)
        seconds = time.perf_counter() - t0
        rec = res.recommendation
        if rec is None or rec.variability is None:
            continue
        for s in rec.variability.servers:
            if not s.variable or not s.p99_ms_episode or not s.p99_ms_long_run:
                continue
            spec = rec.master if s.role == "master" else rec.replicas[0]
            layout = resolve(spec, catalog)
            c = ms.Candidate(layout=layout, role=s.role, monthly_usd=0.0)
            server = ms.server_for(req, layout, s.role, len(rec.replicas), req.target_tps, None)
            weeks = ms.long_run(c.plan(catalog), server, req)
            if weeks is None:
                continue
            out.append(Row(request=name, seconds=round(seconds, 2), role=s.role, layout=spec,
                           share=round(weeks.share, 4), slo_ms=req.p99_ms,
                           des_usual_ms=s.p99_ms_steady,
                           screen_usual_ms=round(weeks.usual_p99_s * 1e3, 3),
                           des_episode_ms=s.p99_ms_episode,
                           screen_episode_ms=round(weeks.episode_p99_s * 1e3, 3),
                           des_long_run_ms=s.p99_ms_long_run,
                           screen_long_run_ms=round(weeks.p99_s * 1e3, 3)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--format", choices=("table", "json"), default="table")
    args = ap.parse_args()
    got = rows()
    if args.format == "json":
        print(json.dumps([asdict(r) for r in got], indent=1))
        return
    print("| request | role | layout | episode share | usual p99 ms: DES / screen | episode p99 "
          "ms: DES / screen (error) | p99 over weeks ms: DES / screen (error) | SLO ms |")
    print("|---|---|---|---:|---|---|---|---:|")
    for r in got:
        print(f"| `{r.request}` | {r.role} | {r.layout} | {r.share:.2%} "
              f"| {r.des_usual_ms:.2f} / {r.screen_usual_ms:.2f} "
              f"| {r.des_episode_ms:.2f} / {r.screen_episode_ms:.2f} "
              f"({r.screen_episode_ms / r.des_episode_ms - 1:+.1%}) "
              f"| {r.des_long_run_ms:.2f} / {r.screen_long_run_ms:.2f} "
              f"({r.screen_long_run_ms / r.des_long_run_ms - 1:+.1%}) | {r.slo_ms:g} |")
    errors = sorted(abs(r.screen_long_run_ms / r.des_long_run_ms - 1) for r in got)
    if errors:
        print(f"\np99 over weeks: |error| median {errors[len(errors) // 2]:.1%}, "
              f"max {errors[-1]:.1%} over {len(errors)} servers")


if __name__ == "__main__":
    main()
