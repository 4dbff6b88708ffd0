"""The event simulation's own arrays of one run, for benches that replay what it issued.

`kernel_arrays` runs one `run_des` of a MySQL server as the search's replications do and returns,
for each batch the compiled kernel ran, a copy of what it was handed and filled in: each request's
first I/O index, each I/O's op, size, offset and aux (a commit's log), issue and completion time,
and the background I/Os' ops, sizes, offsets and issue times (those not issued yet are 0). The
kernel's argument order is its own (`advisor.sim.kernel.run_events`); a change there fails here
loudly (a wrong array has the wrong length or dtype)."""

import argparse
from typing import Any

from advisor.sim import des, kernel
from workloads.mysql_run import flush_throttle_lag_s

WARMUP_S = 5.0  # kernel_arrays' default warm-up: a bench's statistics start after it


def kernel_arrays(plan: Any, server: Any, layout: Any, seed: int, *, duration_s: float = 125.0,
                  warmup_s: float = WARMUP_S) -> list[dict[str, Any]]:
    events = kernel.run_events
    got: list[dict[str, Any]] = []

    def spy(*a: Any) -> int:
        ran = int(events(*a))
        got.append({"first": a[1].copy(), "op": a[2].copy(), "size": a[3].copy(),
                    "off": a[4].copy(), "aux": a[5].copy(), "bg_op": a[8].copy(),
                    "bg_size": a[9].copy(), "bg_off": a[10].copy(), "issue": a[32].copy(),
                    "done": a[33].copy(), "bg_issue": a[34].copy(), "ran": ran})
        return ran

    kernel.run_events = spy
    try:
        des.run_des(plan, server, duration_s=duration_s, warmup_s=warmup_s, seed=seed,
                    couple_background=True, throttle_lag_s=flush_throttle_lag_s(server, layout))
    finally:
        kernel.run_events = events
    return got


def seeds_args(doc: str, argv: list[str] | None, *, default: int,
               most: int) -> argparse.Namespace:
    """`--seeds` (1..most) and `--format` (table or json) of a bench replaying the kernel's
    arrays; `doc`'s first line describes it."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=default)
    ap.add_argument("--format", choices=("table", "json"), default="table")
    args = ap.parse_args(argv)
    if not 1 <= args.seeds <= most:
        ap.error(f"--seeds must be 1..{most}")
    return args
