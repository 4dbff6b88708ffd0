"""CPU seconds of `advisor size` in one process on the built-in catalog against the 43-type
catalog it replaced (issue 14: a larger catalog must not slow `size`).

The small catalog is the built-in one restricted to the 43 instance type names of the catalog it
replaced, read from the repository's history (`git show 0f53d49:...`, the last commit before
the catalog grew) or from `--old-catalog FILE`: the same figures, prices and device models, so
the two runs differ only in how many types the search has to go through. (Taking the old file's
own entries compared two models: its volume types had no slow-episode profile, so the answer
on it skipped the long-run p99's event simulations, ~0.4 s of the difference.) `--old-entries`
keeps the old file's own entries instead. Each request is sized on both catalogs in turn,
alternating, after one warm-up run of each, so both see the same host load; the figure is the
median process CPU time (user + system) of the core call, which moves far less than wall time
on a shared host. Each run starts with the process's memos emptied (`advisor.memo.clear_all`:
sums, costs, floors, steady states kept by what they are computed from), as a new request in a
fresh process would (imports and the compiled kernel stay); `--keep-memos` keeps them, as a
long-running API process would for its next request. The answers' JSON (without the search's
timing) is printed as a digest so two code trees can be compared, and beside the CPU time the
model work of a run, which does not move with the host's load: the steady states and p99 floors
computed (values their memos made; with `--keep-memos`, those the earlier runs left out), of those
states the ones that took another instance type's request times (`mysql_search._steady`), and
the event simulations run.

    python bench/size_catalogs.py [--repeats 5] [--old-catalog FILE] [--old-entries]
                                  [--keep-memos] [--format json]
"""

import argparse
import hashlib
import json
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import advisor.sim.des
from advisor.catalog import builtin_catalog
from advisor.catalog.load import extend_catalog
from advisor.catalog.model import Catalog
from advisor.memo import clear_all
from advisor.serial import to_json
from recommend import mysql_search
from recommend.request import size_request
from recommend.run import run_size

OLD_COMMIT = "0f53d49"
OLD_PATH = "advisor/catalog/data/us-east-1.json"
REQUESTS: dict[str, dict[str, Any]] = {
    "--tps 627 --reads 3.25": {"workload": "mysql", "tps": 627, "reads": 3.25},
    "--data-gb 500 --p99-ms 5": {"workload": "mysql", "data_gb": 500, "p99_ms": 5},
    "--preset sysbench-oltp-rw --tps 627": {"workload": "mysql", "preset": "sysbench-oltp-rw",
                                            "tps": 627},
}


def old_catalog(path: str | None, own_entries: bool = False) -> Catalog:
    """The 43-type catalog: the built-in entries of its instance type names (with
    `own_entries`, its own entries over the built-in ones), restricted to its names."""
    if path:
        text = Path(path).read_text("utf-8")
    else:
        root = Path(__file__).resolve().parent.parent
        text = subprocess.run(["git", "-C", str(root), "show", f"{OLD_COMMIT}:{OLD_PATH}"],
                              capture_output=True, text=True, check=True).stdout
    names = json.loads(text)
    base = builtin_catalog()
    merged = extend_catalog(base, f"{OLD_COMMIT} {OLD_PATH}", text) if own_entries else base
    inst = {i["name"] for i in names["instance_types"]}
    missing = inst - set(merged.instance_types)
    if missing:
        raise SystemExit(f"the built-in catalog lacks {', '.join(sorted(missing))}: "
                         "use --old-entries")
    vols = {v["name"] for v in names["volume_types"]}
    return replace(merged,
                   instance_types={k: v for k, v in merged.instance_types.items() if k in inst},
                   volume_types={k: v for k, v in merged.volume_types.items() if k in vols})


def answer(result: Any) -> tuple[str, dict[str, Any]]:
    """(digest of the answer without the search's counts and timing, the search's counts)."""
    data = json.loads(json.dumps(to_json(result)))
    search = data.pop("search", {})
    search.pop("seconds", None)
    blob = json.dumps(data, sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()[:16], search


class Work:
    """The model work of the runs in between two `take`s: steady states and p99 floors
    computed (`mysql_search`'s memos) and event simulations run (`advisor.sim.des.run_des`
    calls, on any thread)."""

    def __init__(self) -> None:
        self.des = 0
        lock = threading.Lock()
        run_des = advisor.sim.des.run_des

        def counted(*args: Any, **kwargs: Any) -> Any:
            with lock:  # replications run side by side on helper threads
                self.des += 1
            return run_des(*args, **kwargs)

        advisor.sim.des.run_des = counted
        self._base = self._now()

    def _now(self) -> tuple[int, int, int, int]:
        return (mysql_search._STATES.made, mysql_search.TIMES_SHARED.made,
                mysql_search._FLOORS.made, self.des)

    def mark(self) -> None:
        self._base = self._now()

    def take(self) -> dict[str, int]:
        now = self._now()
        states, shared, floors, des = (a - b for a, b in zip(now, self._base, strict=True))
        return {"steady_states": states, "times_shared": shared, "p99_floors": floors,
                "event_simulations": des}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--old-catalog", default=None, help="the 43-type catalog JSON")
    ap.add_argument("--request", choices=tuple(REQUESTS), action="append",
                    help="size only this request (repeatable; default: all)")
    ap.add_argument("--old-entries", action="store_true",
                    help="the old catalog's own figures and device models, not today's")
    ap.add_argument("--keep-memos", action="store_true",
                    help="keep the process's memos between runs (a long-running API process)")
    ap.add_argument("--format", choices=("text", "json"), default="text")
    args = ap.parse_args()
    if args.repeats < 1:
        raise SystemExit("--repeats: must be at least 1")
    catalogs = {"43 types": old_catalog(args.old_catalog, args.old_entries),
                "215 types": builtin_catalog()}
    rows: list[dict[str, Any]] = []
    counter = Work()
    for label, fields in REQUESTS.items():
        if args.request and label not in args.request:
            continue
        req = size_request(fields)
        cpu: dict[str, list[float]] = {k: [] for k in catalogs}
        work: dict[str, dict[str, int]] = {}
        seen: dict[str, tuple[str, dict[str, Any]]] = {}
        for k, cat in catalogs.items():  # warm-up: imports, compiled kernel
            seen[k] = answer(run_size(req, cat))
        for _ in range(args.repeats):
            for k, cat in catalogs.items():
                if not args.keep_memos:
                    clear_all()
                counter.mark()
                start = time.process_time()
                run_size(req, cat)
                cpu[k].append(time.process_time() - start)
                work[k] = counter.take()
        for k in catalogs:
            rows.append({"request": label, "catalog": k, "answer": seen[k][0],
                         "search": seen[k][1],
                         "cpu_s_median": round(statistics.median(cpu[k]), 3),
                         "cpu_s_min": round(min(cpu[k]), 3), "work": work[k]})
    if args.format == "json":
        json.dump(rows, sys.stdout, indent=2)
        print()
        return
    for r in rows:
        s = r["search"]
        print(f"{r['request']:38} {r['catalog']:9} cpu median {r['cpu_s_median']:6.3f} s "
              f"(min {r['cpu_s_min']:.3f})  answer {r['answer']}  considered "
              f"{s.get('considered')} pruned {s.get('pruned')} screened {s.get('screened')} "
              f"verified {s.get('verified')}")
        w = r["work"]
        print(f"{'':38} {'':9} model work: {w['steady_states']} steady states "
              f"({w['times_shared']} with another instance type's request times), "
              f"{w['p99_floors']} p99 floors, {w['event_simulations']} event simulations")


if __name__ == "__main__":
    main()
