"""Durability: kill -9 a real `advisor serve` while it is storing runs; nothing acknowledged is
lost and nothing is half-written.

    .venv/bin/python bench/api_durability.py [--rounds 10] [--clients 6] [--format table|json]

Each round starts `advisor serve` on a free 127.0.0.1 port over one SQLite runs file (the same
file every round, so each round also starts from the previous crash), lets --clients threads
store runs as fast as they can (`POST /v1/simulate`, a short analytic simulation: every answer
is a write), and sends SIGKILL at a random moment between 0.5 and 3 s after the first run is
stored, i.e. in the middle of a stream of writes. Then, with the server dead:

- `PRAGMA integrity_check` must say ok;
- lost: a run the server acknowledged (201 with its run_id) that is not in the file, or whose
  stored result differs from the one the client got;
- half-written: a stored row whose request or result is not complete JSON;
- orphans: worker processes of the killed server still alive 10 s later (each should notice
  its parent is gone and exit).

The next round's server must serve a sample of the earlier acknowledged runs over HTTP.
Exit status 1 if anything was lost, half-written, corrupt or orphaned. Bounded: --rounds rounds,
each at most about 60 s; only loopback addresses.
"""

import argparse
import json
import os
import random
import signal
import sqlite3
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from live_server import start_server

BODY = {"spec": "m5d.large:gp2:385GiB", "rw": "randrw", "iodepth": 8, "duration": 5,
        "engine": "analytic"}


def children(pid: int) -> set[int]:
    """Processes whose parent is `pid` (Linux /proc)."""
    found = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.add(int(proc.name))
    return found


def writer(url: str, seed0: int, stop: threading.Event, acked: dict[str, Any],
           lock: threading.Lock, first: threading.Event) -> None:
    seed = seed0
    with httpx.Client(base_url=url, timeout=30) as client:
        while not stop.is_set():
            seed += 1
            try:
                r = client.post("/v1/simulate", json={**BODY, "seed": seed})
            except httpx.HTTPError:
                return  # the server is gone
            if r.status_code == 201:
                body = r.json()
                with lock:
                    acked[body.pop("run_id")] = body
                first.set()


def check_file(db: Path, acked: dict[str, Any]) -> dict[str, Any]:
    with sqlite3.connect(db) as conn:
        integrity = conn.execute("pragma integrity_check").fetchone()[0]
        rows = conn.execute("select id, request, result from runs").fetchall()
    stored: dict[str, Any] = {}
    half = 0
    for run_id, request, result in rows:
        try:
            json.loads(request)
            stored[run_id] = json.loads(result)
        except (TypeError, ValueError):
            half += 1
    lost = sum(1 for run_id, result in acked.items() if stored.get(run_id) != result)
    return {"integrity": integrity, "rows": len(rows), "lost": lost, "half_written": half}


def run(args: argparse.Namespace, db: Path) -> dict[str, Any]:
    rng = random.Random(args.seed)
    acked: dict[str, Any] = {}
    rounds: list[dict[str, Any]] = []
    for n in range(args.rounds):
        proc, url = start_server(db, log=db.with_suffix(".log").open("ab"))
        sample = rng.sample(sorted(acked), min(5, len(acked)))
        served = sum(httpx.get(f"{url}/v1/runs/{run_id}", timeout=30).status_code == 200
                     for run_id in sample)
        lock = threading.Lock()
        stop, first = threading.Event(), threading.Event()
        this_round: dict[str, Any] = {}
        threads = [threading.Thread(target=writer, args=(url, 1_000_000 * n + 1000 * c, stop,
                                                         this_round, lock, first))
                   for c in range(args.clients)]
        for t in threads:
            t.start()
        first.wait(timeout=60)
        time.sleep(rng.uniform(0.5, 3.0))
        workers = children(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        stop.set()
        for t in threads:
            t.join(timeout=35)
        acked.update(this_round)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(Path(f"/proc/{p}").exists() for p in workers):
            time.sleep(0.2)
        orphans = [p for p in workers if Path(f"/proc/{p}").exists()]
        for p in orphans:  # do not leave them behind either way
            os.kill(p, signal.SIGKILL)
        found = check_file(db, acked)
        rounds.append({"round": n + 1, "acknowledged": len(this_round), **found,
                       "earlier_runs_served": f"{served}/{len(sample)}",
                       "orphan_workers": len(orphans)})
    totals = {
        "rounds": len(rounds), "acknowledged": len(acked),
        "rows": rounds[-1]["rows"] if rounds else 0,
        "lost": rounds[-1]["lost"] if rounds else 0,
        "half_written": max((r["half_written"] for r in rounds), default=0),
        "integrity_failures": sum(r["integrity"] != "ok" for r in rounds),
        "orphan_workers": sum(r["orphan_workers"] for r in rounds),
        "earlier_runs_not_served": sum(int(r["earlier_runs_served"].split("/")[1])
                                       - int(r["earlier_runs_served"].split("/")[0])
                                       for r in rounds),
    }
    return {"totals": totals, "rounds": rounds}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1, help="of the kill moments")
    parser.add_argument("--format", choices=("table", "json"), default="table")
    args = parser.parse_args()
    if args.rounds < 1 or args.clients < 1:
        parser.error("--rounds and --clients must be 1 or more")
    with tempfile.TemporaryDirectory() as tmp:
        res = run(args, Path(tmp) / "runs.sqlite3")
    t = res["totals"]
    bad = t["lost"] + t["half_written"] + t["integrity_failures"] + t["orphan_workers"] \
        + t["earlier_runs_not_served"]
    if args.format == "json":
        print(json.dumps(res, indent=2))
    else:
        print(f"{'round':>5} {'acked':>6} {'rows':>6} {'lost':>5} {'half':>5} {'integrity':>9} "
              f"{'served':>7} {'orphans':>7}")
        for r in res["rounds"]:
            print(f"{r['round']:>5} {r['acknowledged']:>6} {r['rows']:>6} {r['lost']:>5} "
                  f"{r['half_written']:>5} {r['integrity']:>9} {r['earlier_runs_served']:>7} "
                  f"{r['orphan_workers']:>7}")
        print(f"kill -9 x{t['rounds']} mid-write: {t['acknowledged']} runs acknowledged, "
              f"{t['lost']} lost, {t['half_written']} half-written, {t['integrity_failures']} "
              f"integrity failures, {t['orphan_workers']} orphan workers, "
              f"{t['earlier_runs_not_served']} earlier runs not served after restart")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
