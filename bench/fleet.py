"""Fleet benchmark: N generated workloads sized in process, then on a local Dask cluster.

    .venv/bin/python bench/fleet.py --rows 1000 --workers 2 --out /tmp/fleet-bench

Generates a seeded fleet (mostly Aerospike rows, whose search takes ~0.2-1 s; a small share of
MySQL rows, ~2-9 s each on a shared 2-core host), writes it as CSV, sizes it in this process and
on `--workers` local Dask worker processes (one thread each), and prints: wall time and rows/s
of each, the speed-up, the cluster's start-up time, each worker's peak resident memory, whether
the two runs' results are identical, the fleet report's totals, and `--check` rows re-run with
`advisor size` (a subprocess) compared with the fleet's answer. One run of each mode: the
figures are one sample on whatever else the host was doing, not a statistic.
"""

import argparse
import csv
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from advisor.fleet_run import Where, dask_client, peak_rss_mib, run_fleet, run_on  # noqa: E402
from advisor.serial import to_json  # noqa: E402
from advisor.userfiles import load_catalog  # noqa: E402
from recommend.fleet import RowResult, parse_rows, summarise  # noqa: E402

COLUMNS = ("id", "workload", "tps", "reads", "data_gb", "replicas", "reads_per_sec",
           "writes_per_sec", "record_bytes", "replication_factor", "current_deployment",
           "current_monthly_usd")


def generate(n: int, *, seed: int, mysql_share: float) -> list[dict[str, Any]]:
    """A seeded fleet: loads and sizes spread over two orders of magnitude, a current cost for
    four rows in five (drawn around a plausible price; the savings are what the sizing says)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        row: dict[str, Any] = dict.fromkeys(COLUMNS, "")
        row["id"] = f"db-{i:05d}"
        if rng.random() < mysql_share:
            row.update(workload="mysql", tps=int(rng.integers(50, 400)),
                       reads=round(float(rng.choice([0, 1, 3.25])), 2),
                       data_gb=int(rng.integers(5, 200)), replicas=int(rng.integers(0, 2)))
        else:
            row.update(workload="aerospike", reads_per_sec=int(rng.integers(500, 20_000)),
                       writes_per_sec=int(rng.integers(100, 5_000)),
                       data_gb=int(rng.integers(10, 400)),
                       record_bytes=int(rng.choice([512, 1536, 4096])),
                       replication_factor=int(rng.choice([1, 2, 2, 3])))
        if rng.random() < 0.8:
            row["current_monthly_usd"] = round(float(rng.uniform(80, 900)), 2)
            row["current_deployment"] = str(rng.choice(["m5.xlarge:gp2:500GiB",
                                                        "r5.large:io1:300GiB",
                                                        "i3.xlarge:store"]))
        rows.append(row)
    return rows


def _ticker(label: str, total: int, start: float) -> Any:
    """A line every 100 rows: how far a long run got, should it be stopped."""
    done = [0]

    def tick(_r: RowResult) -> None:
        done[0] += 1
        if done[0] % 100 == 0 or done[0] == total:
            print(f"  {label}: {done[0]}/{total} rows, {time.perf_counter() - start:,.0f} s",
                  flush=True)

    return tick


def _first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """Where two JSON values first differ (a dotted path and both values), None if equal."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            found = _first_difference(a.get(k), b.get(k), f"{path}.{k}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = _first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if a == b else f"{path}: {str(a)[:160]} vs {str(b)[:160]}"


def _same(a: list[RowResult], b: list[RowResult]) -> bool:
    return sorted(a, key=lambda r: r.id) == sorted(b, key=lambda r: r.id)


def _size_cli(row: dict[str, Any]) -> dict[str, Any]:
    args = [str(REPO / ".venv" / "bin" / "advisor"), "size", "--format", "json"]
    for k, v in row.items():
        if k in ("id", "current_deployment", "current_monthly_usd") or v == "":
            continue
        args += [f"--{k.replace('_', '-')}", str(v)]
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return {"exit": done.returncode, "line": done.stderr.strip()}
    data = json.loads(done.stdout)
    return {"deployment": data["recommendation"]["deployment"],
            "monthly_usd": data["recommendation"]["monthly_usd"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--mysql-share", type=float, default=0.01)
    ap.add_argument("--check", type=int, default=3, help="rows re-run with `advisor size`")
    ap.add_argument("--in-process-rows", type=int, default=None,
                    help="size only the first N rows in process (a shared host's time limit); "
                    "the Dask run sizes them all and both are compared on those N")
    ap.add_argument("--out", type=Path, default=Path("fleet-bench"))
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    fleet = generate(args.rows, seed=args.seed, mysql_share=args.mysql_share)
    with (args.out / "fleet.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(fleet)
    rows = parse_rows(fleet)
    catalog = load_catalog(use_env=False)
    mysql = sum(r.workload == "mysql" for r in rows)
    print(f"{len(rows)} rows ({mysql} mysql, {len(rows) - mysql} aerospike), seed {args.seed}, "
          f"catalog {catalog.catalog_version}", flush=True)

    first = rows[:args.in_process_rows] if args.in_process_rows else rows
    t = time.perf_counter()
    local = run_fleet(first, catalog, Where(), _ticker("in process", len(first), t))
    local_s = time.perf_counter() - t
    print(f"in process: {len(first)} rows in {local_s:,.1f} s, {len(first) / local_s:,.3f} "
          f"rows/s, peak RSS {peak_rss_mib():,.0f} MiB", flush=True)

    t = time.perf_counter()
    with dask_client(Where(workers=args.workers)) as client:
        client.wait_for_workers(args.workers)
        up_s = time.perf_counter() - t
        t = time.perf_counter()
        remote = run_on(client, rows, catalog, _ticker("dask", len(rows), t))
        dask_s = time.perf_counter() - t
        memory = client.run(peak_rss_mib)
    local_rate, dask_rate = len(first) / local_s, len(rows) / dask_s
    print(f"{args.workers} Dask workers: {len(rows)} rows in {dask_s:,.1f} s ({dask_rate:,.3f} "
          f"rows/s) after {up_s:,.1f} s cluster start; speed-up in rows/s "
          f"{dask_rate / local_rate:,.2f}x ({len(rows) / (dask_s + up_s) / local_rate:,.2f}x "
          "counting the start); peak RSS per worker "
          + ", ".join(f"{v:,.0f} MiB" for v in memory.values()), flush=True)
    ids = {r.id for r in local}
    same = _same(local, [r for r in remote if r.id in ids])
    print(f"results identical on the {len(local)} rows both sized (every field, the full size "
          f"result included): {same}")
    if not same:
        theirs = {r.id: r for r in remote}
        for r in local:
            if r != theirs[r.id]:
                print(f"  {r.id} differs: {_first_difference(to_json(r), to_json(theirs[r.id]))}")

    summary = summarise(remote, catalog_version=catalog.catalog_version)
    s = to_json(summary)
    print("report totals:", json.dumps({k: s[k] for k in ("rows", "by_status",
                                                           "recommended_monthly_usd",
                                                           "compared")}))
    (args.out / "report.json").write_text(json.dumps(s, indent=2))
    by_id = {r.id: r for r in remote}
    checked = [row for row in fleet if by_id[row["id"]].status == "ok"][:args.check]
    mysql_row = next((row for row in fleet if row["workload"] == "mysql"
                      and by_id[row["id"]].status == "ok"), None)
    if mysql_row is not None and args.check > 1:
        checked = [*checked[:args.check - 1], mysql_row]
    for row in checked:
        got = _size_cli(row)
        mine = by_id[row["id"]]
        match = got.get("deployment") == mine.deployment \
            and got.get("monthly_usd") == mine.monthly_usd
        print(f"advisor size {row['id']} ({row['workload']}): {got} vs fleet "
              f"{mine.deployment} ${mine.monthly_usd}: {'same' if match else 'DIFFERENT'}")


if __name__ == "__main__":
    main()
