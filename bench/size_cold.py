"""Wall time of `advisor size --tps 627 --reads 3.25` as a cold process (BRIEF section 7: < 2 s).

Each repeat starts a fresh Python process, as a user's shell would. The first run after
installing compiles the simulator kernel with numba and caches it; that run is measured apart
(with an empty cache directory) and reported as such.

    python bench/size_cold.py [--repeats 7] [--format json]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMAND = ["size", "--tps", "627", "--reads", "3.25", "--format", "json"]


def advisor_cmd() -> list[str]:
    exe = shutil.which("advisor", path=str(Path(sys.executable).parent)) or shutil.which("advisor")
    return [exe] if exe else [sys.executable, "-m", "advisor.cli.main"]


def run_once(env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run([*advisor_cmd(), *COMMAND], capture_output=True, text=True, env=env,
                          check=False)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"advisor size failed ({proc.returncode}): {proc.stderr.strip()}")
    json.loads(proc.stdout)  # a whole answer, not a partial one
    return wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--format", choices=("table", "json"), default="table")
    args = ap.parse_args()
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as cache:
        first = run_once({**env, "NUMBA_CACHE_DIR": cache})
    run_once(env)  # make sure the normal cache is warm
    walls = [run_once(env) for _ in range(args.repeats)]
    out = {"command": "advisor " + " ".join(COMMAND), "repeats": args.repeats,
           "cold_process_s": {"min": round(min(walls), 3),
                              "median": round(statistics.median(walls), 3),
                              "max": round(max(walls), 3)},
           "first_run_with_empty_jit_cache_s": round(first, 3), "target_s": 2.0,
           "cpus": os.cpu_count()}
    if args.format == "json":
        print(json.dumps(out, indent=2))
        return
    c = out["cold_process_s"]
    print(f"{out['command']}: cold process min {c['min']:.2f} s, median {c['median']:.2f} s, "
          f"max {c['max']:.2f} s over {args.repeats} runs (target < 2 s); first run with an "
          f"empty JIT cache {first:.2f} s")


if __name__ == "__main__":
    main()
