"""Time of the README's Aerospike sizing (issue 12 target: well under 1 s after the first run),
with its instance-store and EBS-only variants.

Each repeat starts a fresh `advisor size --workload aerospike ... --format json` process, as a
user's shell would, beside a bare `python -c "import numpy, numba"`; it records the process's wall
time and the sizing's own time (`search.seconds`, measured inside the process around the core
call: screening every node count, the event-simulation checks, the device ratings). The first
run after installing compiles the simulator kernel; it is warmed once before timing and not
counted.

    python bench/aerospike_size.py [--repeats 5] [--format json]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

README = ["size", "--workload", "aerospike", "--reads-per-sec", "100000", "--writes-per-sec",
          "50000", "--data-gb", "2000", "--replication-factor", "2"]
VARIANTS = {"readme": README, "readme --allow-ephemeral": [*README, "--allow-ephemeral"],
            "readme --storage ebs": [*README, "--storage", "ebs"]}
BASELINE = [sys.executable, "-c", "import numpy, numba"]


def advisor_cmd() -> list[str]:
    exe = shutil.which("advisor", path=str(Path(sys.executable).parent)) or shutil.which("advisor")
    return [exe] if exe else [sys.executable, "-m", "advisor.cli.main"]


def run(argv: list[str], env: dict[str, str]) -> tuple[float, dict[str, Any] | None]:
    start = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return seconds, json.loads(proc.stdout) if proc.stdout.startswith("{") else None


def spread(values: list[float]) -> dict[str, float]:
    return {"min": round(min(values), 3), "median": round(statistics.median(values), 3),
            "max": round(max(values), 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--format", choices=("table", "json"), default="table")
    args = ap.parse_args()
    env = dict(os.environ)
    out: dict[str, Any] = {"repeats": args.repeats, "variants": {}}
    bare: list[float] = []
    for name, argv in VARIANTS.items():
        cmd = [*advisor_cmd(), *argv, "--format", "json"]
        run(cmd, env)  # warm: the kernel cache and the OS's file cache
        walls, inside = [], []
        answer = ""
        for k in range(args.repeats):
            print(f"{name}: run {k + 1}/{args.repeats}", file=sys.stderr)
            bare.append(run(BASELINE, env)[0])
            seconds, result = run(cmd, env)
            walls.append(seconds)
            assert result is not None
            inside.append(result["search"]["seconds"])
            answer = result["recommendation"]["deployment"]
        out["variants"][name] = {"command": "advisor " + " ".join(argv), "answer": answer,
                                 "sizing_s": spread(inside), "process_s": spread(walls)}
    out["bare_import_s"] = spread(bare)
    if args.format == "json":
        print(json.dumps(out, indent=2))
        return
    print(f"bare `import numpy, numba`: median {out['bare_import_s']['median']:.2f} s")
    for name, v in out["variants"].items():
        print(f"{name}: {v['answer']}\n  sizing (in process) median {v['sizing_s']['median']:.2f}"
              f" s (min {v['sizing_s']['min']:.2f}, max {v['sizing_s']['max']:.2f}); whole "
              f"process median {v['process_s']['median']:.2f} s")


if __name__ == "__main__":
    main()
