"""The floor under issue 13's two speed targets: what the main job must spend before it sizes
anything, and where the sizing's own time goes, cold and in a warm process.

    python bench/size_floor.py [--repeats 3] [--format json]

Each repeat runs three fresh processes, one after another, so all see the same machine load:

1. the baseline of both targets' scripts: `python -c "import numpy, numba"`;
2. the fixed part: the CLI's imports (`advisor.cli.main`) and numba's first compiled call, a
   level-crossing survival of two tiny streams (`advisor.sim.analytic.level_crossing`) loaded
   from numba's cache, then the exit as the console script makes it (the collector frozen:
   `advisor.cli.main.run`). Every `advisor size` pays all three: the analytic engine's level
   crossing and closed loop and the event simulation's kernel are compiled functions, and the
   first call of any of them initialises numba's CPU target;
3. the main job in process (`advisor size --tps 627 --reads 3.25 --format json`, its kept
   replications off as in bench/size_cold.py), after the fixed part, with its phases timed:
   the analytic screen of the candidates (`recommend.mysql_search._screen`), the event
   simulation's wall time (every `side_by_side` call: replications on up to two threads), the
   CPU time inside the compiled kernel (each call's thread time, summed over threads), and the
   rest (the precheck, the knees' analytic probes, the alternatives, the answer). Then the same
   request with another seed in the same process: the case of the service's uncached
   `POST /v1/size` in bench/api_size.py (seeds 1000 + i), where every seed-independent result is
   already kept in process and the event simulation runs anew.

From those: the fixed part as a multiple of the baseline, the time the 3x target leaves for the
sizing (3 x baseline - fixed part) against the sizing's measured time, and the event
simulation's time in a warm process against the API's 150 ms.
"""

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from typing import Any

COMMAND = ["size", "--tps", "627", "--reads", "3.25", "--format", "json"]
BASELINE = "import numpy, numba"
FIRST_CALL = (
    "import numpy as np\n"
    "from advisor.sim.analytic.level_crossing import level_survival\n"
    "level_survival(np.array([1e-3, 2e-3]), lambda v: np.ones((2, v.size)),"
    " np.linspace(0.0, 1e-2, 5), 1e-2)\n")
# ... and the interpreter's exit as the console script makes it (`advisor.cli.main.run`).
FIXED = "import advisor.cli.main\n" + FIRST_CALL + "import gc\ngc.freeze()\n"
TARGET_RATIO = 3.0
API_TARGET_MS = 150.0


def _child() -> None:
    """Run in a fresh process: the fixed part, then the main job, then the same request with a
    new seed, phases timed."""
    start = time.perf_counter()
    import advisor.cli.main as cli

    imported = time.perf_counter()
    exec(FIRST_CALL, {})
    first_call = time.perf_counter()

    import advisor.sim.kernel as kernel
    import recommend.mysql_search as search

    lock = threading.Lock()
    acc = {"screen": 0.0, "des_wall": 0.0, "kernel_cpu": 0.0}

    def timed(name: str, fn: Any, clock: Any = time.perf_counter) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                with lock:
                    acc[name] += clock() - t
        return wrapper

    search._screen = timed("screen", search._screen)
    search.side_by_side = timed("des_wall", search.side_by_side)
    # The kernel runs on helper threads: each call's CPU time on its own thread.
    kernel.run_events = timed("kernel_cpu", kernel.run_events, time.thread_time)
    kernel.run_chunk = timed("kernel_cpu", kernel.run_chunk, time.thread_time)

    def run(extra: list[str]) -> dict[str, float]:
        for k in acc:
            acc[k] = 0.0
        t = time.perf_counter()
        try:
            cli.app([*COMMAND, *extra], standalone_mode=False)
        except SystemExit as e:
            if e.code:
                raise
        total = time.perf_counter() - t
        return {"sizing_s": total, **acc,
                "rest_s": total - acc["screen"] - acc["des_wall"]}

    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):  # answers unread
        cold = run([])
        warm = run(["--seed", "1001"])
    print(json.dumps({"imports_s": imported - start, "first_compiled_call_s": first_call - imported,
                      "cold": cold, "warm_new_seed": warm}))


def _wall(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    t = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    seconds = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:3])} failed ({proc.returncode}): "
                         f"{proc.stderr.strip()[-400:]}")
    return seconds, proc.stdout


def _median(rows: list[dict[str, Any]], *path: str) -> float:
    values = []
    for row in rows:
        v: Any = row
        for p in path:
            v = v[p]
        values.append(float(v))
    return round(statistics.median(values), 3)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--format", choices=("table", "json"), default="table")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child()
        return
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["ADVISOR_CACHE_DIR"] = ""  # a new request: no replications kept from an earlier run
    py = sys.executable
    _wall([py, __file__, "--child"], env)  # warm the bytecode and numba caches
    load_before = os.getloadavg()[0]
    base, fixed, phases = [], [], []
    for _ in range(args.repeats):
        base.append(_wall([py, "-c", BASELINE], env)[0])
        fixed.append(_wall([py, "-c", FIXED], env)[0])
        phases.append(json.loads(_wall([py, __file__, "--child"], env)[1]))
    b, f = statistics.median(base), statistics.median(fixed)
    out: dict[str, Any] = {
        "command": "advisor " + " ".join(COMMAND), "repeats": args.repeats,
        "bare_import_numpy_numba_s": round(b, 3),
        "fixed_part_s": round(f, 3), "fixed_part_ratio": round(f / b, 2),
        "in_process": {
            "imports_s": _median(phases, "imports_s"),
            "first_compiled_call_s": _median(phases, "first_compiled_call_s"),
            "cold": {k: _median(phases, "cold", k) for k in phases[0]["cold"]},
            "warm_new_seed": {k: _median(phases, "warm_new_seed", k)
                              for k in phases[0]["warm_new_seed"]}},
        "target_ratio": TARGET_RATIO,
        "left_for_the_sizing_s": round(TARGET_RATIO * b - f, 3),
        "sizing_s": _median(phases, "cold", "sizing_s"),
        "api_target_ms": API_TARGET_MS,
        "cpus": os.cpu_count(),
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)]}
    if args.format == "json":
        print(json.dumps(out, indent=2))
        return
    ip = out["in_process"]
    cold, warm = ip["cold"], ip["warm_new_seed"]
    print(f"{out['command']}, medians of {args.repeats} fresh processes:")
    print(f"  import numpy, numba (the baseline)          {b:.3f} s")
    print(f"  the fixed part (CLI imports, numba's first compiled call, exit)  {f:.3f} s "
          f"= {f / b:.2f}x the baseline (in process: imports {ip['imports_s']:.3f} s, "
          f"first compiled call {ip['first_compiled_call_s']:.3f} s)")
    print(f"  left for the sizing at {TARGET_RATIO:g}x: {out['left_for_the_sizing_s']:.3f} s; "
          f"the sizing takes {cold['sizing_s']:.3f} s")
    for name, p in (("cold", cold), ("warm process, new seed", warm)):
        print(f"  {name:24s} sizing {p['sizing_s']:.3f} s: screen {p['screen']:.3f} s, event "
              f"simulation {p['des_wall']:.3f} s wall ({p['kernel_cpu']:.3f} s CPU in the "
              f"kernel), rest {p['rest_s']:.3f} s")
    print(f"  the API's uncached case: the event simulation alone {warm['des_wall'] * 1000:.0f} ms "
          f"wall against the {API_TARGET_MS:.0f} ms target for the whole request")
    print(f"  load average {out['load_average'][0]} -> {out['load_average'][1]} on "
          f"{out['cpus']} CPUs")


if __name__ == "__main__":
    main()
