"""BRIEF §7 API benchmark: `POST /v1/size` latency on loopback, cold and warm, and 50 clients.

    .venv/bin/python bench/api_size.py [--url http://127.0.0.1:8000] [--format table|json]

Without --url it starts `advisor serve` on a free 127.0.0.1 port with a scratch SQLite runs
file (stopped at the end). Every request is a real HTTP round trip that also stores its run.

0. floor: `GET /healthz` round trips, the HTTP cost every request pays (the baseline).
1. uncached: distinct requests (627 tps, seeds 1000+i), so each one runs the sizing search;
   one client, one at a time. This is the core's own cost plus HTTP, JSON and the run write.
   Issue 13 target: p50 < 150 ms.
2. warm: the README request `{"tps": 627, "reads": 3.25}` after warm-up requests; answered
   from the API's LRU cache (keyed by the frozen SizeRequest + catalog version), one client.
3. concurrent: 50 clients (threads, one httpx.Client each) sending the warm request at once;
   latency per request, throughput, and every non-201 answer or transport error counted.
4. (--cold-clients N) N clients at once, each with its own uncached request: the worst case,
   every request a full sizing search competing for the CPUs. Beyond the server's workers and
   queue (ADVISOR_API_WORKERS, ADVISOR_API_QUEUE) they get 503 + Retry-After, counted here as
   errors; bench/api_load.py counts them apart, with latency, and can retry as told.

Figures are percentiles of the measured requests (nearest rank); run it twice to see the noise.
"""

import argparse
import json
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from live_server import start_server

from advisor.percentiles import nearest_rank

BODY = {"tps": 627, "reads": 3.25}
UNCACHED_P50_TARGET_MS = 150.0


def percentile(values: list[float], pct: float) -> float:
    return nearest_rank(sorted(values), pct)


def summary(ms: list[float], errors: int, wall_s: float | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"requests": len(ms) + errors, "errors": errors,
                           "p50_ms": round(percentile(ms, 50), 1) if ms else None,
                           "p99_ms": round(percentile(ms, 99), 1) if ms else None,
                           "max_ms": round(max(ms), 1) if ms else None}
    if wall_s:
        out["requests_per_s"] = round((len(ms) + errors) / wall_s, 1)
    return out


def timed(client: httpx.Client, body: dict[str, Any]) -> tuple[float, bool]:
    start = time.perf_counter()
    try:
        ok = client.post("/v1/size", json=body).status_code == 201
    except httpx.HTTPError:
        ok = False
    return (time.perf_counter() - start) * 1000, ok


def sequential(url: str, bodies: list[dict[str, Any]]) -> dict[str, Any]:
    ms, errors = [], 0
    with httpx.Client(base_url=url, timeout=120) as client:
        for body in bodies:
            t, ok = timed(client, body)
            if ok:
                ms.append(t)
            else:
                errors += 1
    return summary(ms, errors)


def concurrent(url: str, clients: int, per_client: int, *, cold: bool = False) -> dict[str, Any]:
    ms: list[float] = []
    errors = 0
    lock = threading.Lock()
    start_gate = threading.Barrier(clients + 1)

    def worker(n: int) -> None:
        nonlocal errors
        local: list[float] = []
        bad = 0
        with httpx.Client(base_url=url, timeout=120,
                          limits=httpx.Limits(max_connections=1)) as client:
            start_gate.wait()
            for i in range(per_client):
                body = {**BODY, "seed": 5000 + n * per_client + i} if cold else BODY
                t, ok = timed(client, body)
                if ok:
                    local.append(t)
                else:
                    bad += 1
        with lock:
            ms.extend(local)
            errors += bad

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(clients)]
    for t in threads:
        t.start()
    start_gate.wait()
    began = time.perf_counter()
    for t in threads:
        t.join()
    return summary(ms, errors, time.perf_counter() - began)


def healthz(url: str, n: int) -> dict[str, Any]:
    ms = []
    with httpx.Client(base_url=url, timeout=30) as client:
        for _ in range(n):
            start = time.perf_counter()
            client.get("/healthz").raise_for_status()
            ms.append((time.perf_counter() - start) * 1000)
    return summary(ms, 0)


def run(url: str, args: argparse.Namespace) -> dict[str, Any]:
    load_before = os.getloadavg()[0]
    floor = healthz(url, 50)
    cold = sequential(url, [{**BODY, "seed": 1000 + i} for i in range(args.uncached)])
    sequential(url, [BODY] * args.warmup)
    warm = sequential(url, [BODY] * args.warm)
    many = concurrent(url, args.clients, args.per_client)
    out: dict[str, Any] = {"GET /healthz (1 client)": floor, "uncached (1 client)": cold,
                           "warm (1 client)": warm,
                           f"warm ({args.clients} concurrent clients)": many}
    if args.cold_clients:
        out[f"uncached ({args.cold_clients} concurrent)"] = concurrent(
            url, args.cold_clients, 1, cold=True)
    out["target"] = (f"uncached p50 < {UNCACHED_P50_TARGET_MS:g} ms; p50 < 300 ms warm; 50 "
                     "concurrent clients without errors")
    out["uncached_p50_meets_target"] = bool(cold["p50_ms"] is not None
                                            and cold["p50_ms"] < UNCACHED_P50_TARGET_MS)
    out["cpu_count"] = os.cpu_count()
    out["load_average"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    return out


def print_table(results: dict[str, Any]) -> None:
    print(f"{'POST /v1/size':34} {'requests':>8} {'errors':>6} {'p50 ms':>8} {'p99 ms':>8} "
          f"{'max ms':>8} {'req/s':>7}")
    for name, r in results.items():
        if not isinstance(r, dict):
            continue
        print(f"{name:34} {r['requests']:>8} {r['errors']:>6} {r['p50_ms']!s:>8} "
              f"{r['p99_ms']!s:>8} {r['max_ms']!s:>8} {r.get('requests_per_s', '-')!s:>7}")
    verdict = "meets" if results["uncached_p50_meets_target"] else "misses"
    print(f"target: {results['target']}; uncached p50 {verdict} it (machine: "
          f"{results['cpu_count']} CPUs, load average {results['load_average'][0]} -> "
          f"{results['load_average'][1]})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="an already running advisor serve (default: start one)")
    parser.add_argument("--uncached", type=int, default=20, help="distinct sizing requests")
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--warm", type=int, default=200)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--per-client", type=int, default=10)
    parser.add_argument("--cold-clients", type=int, default=0,
                        help="also N concurrent clients with one uncached request each")
    parser.add_argument("--format", choices=("table", "json"), default="table")
    args = parser.parse_args()
    if args.url:
        results = run(args.url, args)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            proc, url = start_server(Path(tmp) / "runs.sqlite3")
            try:
                results = run(url, args)
            finally:
                proc.terminate()
                proc.wait(timeout=30)
    if args.format == "json":
        print(json.dumps(results, indent=2))
    else:
        print_table(results)


if __name__ == "__main__":
    main()
