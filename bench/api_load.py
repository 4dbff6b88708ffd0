"""Load test: 50 concurrent clients on `POST /v1/size` against a real `advisor serve` on loopback.

    .venv/bin/python bench/api_load.py [--clients 50] [--same] [--retry] [--format table|json]

Without --url it starts `advisor serve` on a free 127.0.0.1 port with a scratch SQLite runs file
and stops it at the end. Every client (a thread with its own connection) sends one sizing request
at the same moment; by default each request is distinct (its own seed), so none is answered from
the sizing cache and every one is a full sizing search: the worst case. `--same` sends the
README request from every client instead (one search, the others wait for it or hit the cache).

Counted per request: latency, status (201, 409, 503 with or without Retry-After, other 5xx,
other), transport errors and timeouts. A probe sends `GET /healthz` every 0.25 s meanwhile: its
latency says whether one request can stall the rest. With `--retry` a client told 503 waits the
Retry-After it was given and tries again (until --deadline), as a well-behaved client would: the
figures then include the time to a final answer.

Bounded: every request times out after --timeout s, the whole run stops after --deadline s; only
loopback addresses are used. Exit status 1 if any request got a 5xx other than 503, a transport
error or a timeout, 0 otherwise.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
from live_server import start_server

from advisor.percentiles import nearest_rank

BODY = {"tps": 627, "reads": 3.25}


def percentile(values: list[float], pct: float) -> float | None:
    """Nearest-rank percentile (None for no values)."""
    return nearest_rank(sorted(values), pct) if values else None


def stats(ms: list[float]) -> dict[str, Any]:
    def r(v: float | None) -> float | None:
        return None if v is None else round(v, 1)

    return {"n": len(ms), "p50_ms": r(percentile(ms, 50)), "p99_ms": r(percentile(ms, 99)),
            "max_ms": r(max(ms) if ms else None)}


class Tally:
    """Outcomes of every attempt, thread-safe."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.outcomes: Counter[str] = Counter()
        self.final_ms: list[float] = []  # per client: first send to final answer
        self.answered_ms: list[float] = []  # per attempt that got a 201/409
        self.refused_ms: list[float] = []  # per attempt that got a 503
        self.retry_after: list[float] = []

    def add(self, outcome: str, ms: float, retry_after: float | None = None) -> None:
        with self.lock:
            self.outcomes[outcome] += 1
            if outcome in ("201", "409"):
                self.answered_ms.append(ms)
            elif outcome.startswith("503"):
                self.refused_ms.append(ms)
                if retry_after is not None:
                    self.retry_after.append(retry_after)


def client_run(url: str, body: dict[str, Any], gate: threading.Barrier, tally: Tally,
               args: argparse.Namespace, stop_at: float) -> None:
    with httpx.Client(base_url=url, timeout=args.timeout,
                      limits=httpx.Limits(max_connections=1)) as client:
        gate.wait()
        first = time.perf_counter()
        while True:
            start = time.perf_counter()
            retry_after: float | None = None
            try:
                r = client.post("/v1/size", json=body)
                outcome = str(r.status_code)
                if r.status_code == 503:
                    header = r.headers.get("retry-after")
                    retry_after = float(header) if header and header.isdigit() else None
                    outcome = "503 Retry-After" if retry_after is not None else "503 no Retry-After"
            except httpx.TimeoutException:
                outcome = "timeout"
            except httpx.TransportError as exc:
                outcome = f"transport error ({type(exc).__name__})"
            ms = (time.perf_counter() - start) * 1000
            tally.add(outcome, ms, retry_after)
            wait = retry_after if retry_after is not None else 1.0
            if (not args.retry or not outcome.startswith("503")
                    or time.monotonic() + wait > stop_at):
                break
            time.sleep(wait)
        with tally.lock:
            if outcome in ("201", "409"):
                tally.final_ms.append((time.perf_counter() - first) * 1000)


def probe(url: str, stop: threading.Event, ms: list[float], failures: list[str]) -> None:
    with httpx.Client(base_url=url, timeout=30) as client:
        while not stop.is_set():
            start = time.perf_counter()
            try:
                if client.get("/healthz").status_code == 200:
                    ms.append((time.perf_counter() - start) * 1000)
                else:
                    failures.append("non-200")
            except httpx.HTTPError as exc:
                failures.append(type(exc).__name__)
            stop.wait(0.25)


def run(url: str, args: argparse.Namespace) -> dict[str, Any]:
    load_before = os.getloadavg()[0]
    tally = Tally()
    gate = threading.Barrier(args.clients + 1)
    stop_at = time.monotonic() + args.deadline
    bodies = [BODY if args.same else {**BODY, "seed": args.seed0 + n}
              for n in range(args.clients)]
    threads = [threading.Thread(target=client_run, args=(url, b, gate, tally, args, stop_at),
                                daemon=True) for b in bodies]
    stop = threading.Event()
    probe_ms: list[float] = []
    probe_failures: list[str] = []
    prober = threading.Thread(target=probe, args=(url, stop, probe_ms, probe_failures),
                              daemon=True)
    for t in threads:
        t.start()
    prober.start()
    gate.wait()
    began = time.perf_counter()
    for t in threads:
        t.join(timeout=max(0.0, stop_at - time.monotonic()) + args.timeout)
    wall_s = time.perf_counter() - began
    stop.set()
    prober.join(timeout=35)
    unfinished = sum(t.is_alive() for t in threads)
    counts = dict(sorted(tally.outcomes.items()))
    bad = sum(v for k, v in counts.items() if k not in ("201", "409", "503 Retry-After"))
    return {
        "clients": args.clients, "requests": "same" if args.same else "distinct",
        "retry": args.retry, "attempts": sum(counts.values()), "outcomes": counts,
        "all attempts": stats(tally.answered_ms + tally.refused_ms),
        "answered (201/409)": stats(tally.answered_ms),
        "refused (503)": stats(tally.refused_ms),
        "time to final answer": stats(tally.final_ms),
        "retry_after_s": sorted(set(tally.retry_after)),
        "GET /healthz meanwhile": {**stats(probe_ms), "failures": len(probe_failures)},
        "unfinished_clients": unfinished, "wall_s": round(wall_s, 1), "findings": bad,
        "cpu_count": os.cpu_count(),
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }


def print_table(res: dict[str, Any]) -> None:
    print(f"{res['clients']} clients, {res['requests']} POST /v1/size requests"
          f"{', retrying on 503' if res['retry'] else ''}: {res['attempts']} attempts in "
          f"{res['wall_s']} s")
    print(f"{'':24} {'n':>5} {'p50 ms':>9} {'p99 ms':>9} {'max ms':>9}")
    for name in ("all attempts", "answered (201/409)", "refused (503)", "time to final answer",
                 "GET /healthz meanwhile"):
        s = res[name]
        print(f"{name:24} {s['n']:>5} {s['p50_ms']!s:>9} {s['p99_ms']!s:>9} {s['max_ms']!s:>9}")
    print("outcomes: " + ", ".join(f"{k} x{v}" for k, v in res["outcomes"].items()))
    print(f"Retry-After values: {res['retry_after_s']}; healthz failures: "
          f"{res['GET /healthz meanwhile']['failures']}; unfinished clients: "
          f"{res['unfinished_clients']}; findings (5xx other than 503, errors, timeouts): "
          f"{res['findings']}")
    print(f"machine: {res['cpu_count']} CPUs, load average {res['load_average'][0]} -> "
          f"{res['load_average'][1]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="an already running advisor serve (default: start one)")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--same", action="store_true",
                        help="every client sends the same request (default: distinct ones)")
    parser.add_argument("--retry", action="store_true",
                        help="on 503, wait Retry-After and try again until --deadline")
    parser.add_argument("--seed0", type=int, default=int(time.time()) % 1_000_000,
                        help="first seed of the distinct requests (default: from the clock, "
                        "so a rerun against one server is not answered from its cache)")
    parser.add_argument("--timeout", type=float, default=300.0, help="per request, s")
    parser.add_argument("--deadline", type=float, default=600.0, help="whole run, s")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="environment for the server this script starts")
    parser.add_argument("--format", choices=("table", "json"), default="table")
    args = parser.parse_args()
    if args.clients < 1:
        parser.error("--clients must be 1 or more")
    env_extra = dict(item.split("=", 1) for item in args.env)
    if args.url:
        res = run(args.url, args)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            db = Path(tmp) / "runs.sqlite3"
            proc, url = start_server(db, env_extra, log=db.with_suffix(".log").open("wb"))
            try:
                res = run(url, args)
            finally:
                proc.terminate()
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
                    res["server_stop"] = "did not stop within 30 s of SIGTERM (killed)"
    if args.format == "json":
        print(json.dumps(res, indent=2))
    else:
        print_table(res)
    return 1 if res["findings"] else 0


if __name__ == "__main__":
    sys.exit(main())
