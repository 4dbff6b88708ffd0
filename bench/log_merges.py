"""A master's log writes merged on the device: the event simulation against a model (issue 10).

    python bench/log_merges.py [--seeds 2] [--format table|json]

A log's writes are physically sequential, and the event simulation's kernel charges a write that
continues its member's last I/O as part of one I/O (its size over the IOPS unit; EBS merges
physically sequential small I/Os, aws-storage-facts.md [S5]). It charges a group's log write
when the group's first commit arrives: at once if the log is idle, else during the flush before
it (`kernel._group_commit`), and the binlog's commits arrive as the redo groups' flushes end
(MySQL's ordered commit). So two writes of one log are adjacent on a member when nothing else
was charged there between them. The analytic engine charges every foreground commit's write
whole; this bench measures how often the event simulation merges them and what a model of the
kernel's rules gives:

- the redo log (its commits Poisson at rate r, F its flush, q = 1 - E[exp(-r F)] the chance a
  commit arrives during one, A the other device I/Os reaching its member, Poisson): a write
  follows its predecessor only when that one was charged at its flush's start (chance 1 - q)
  and this group's first commit came during the flush, U ~ Exp(r) < F, before any other I/O:
  (1 - q) E[r / (r + A) (1 - exp(-(r + A) F))], less the commits whose own request's last I/O
  (on that member) came after the flush started;
- the binlog (its groups arriving as the redo flushes end): two of its writes are adjacent when
  the redo log charged its next write during the flush before (chance q) and neither a commit
  nor another I/O came during the flush between them: q E[exp(-(r + A) F)].

Both are exact for the kernel's rules with a fixed flush and Poisson others (printed: a direct
run of those rules, 200,000 commits). Printed per case: the event simulation's merged share of
each log's writes on its member (every device I/O of the first batch in the order charged), the
model's with the flush's service time as F, and the model's log charge per commit against the
event simulation's.
"""

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from advisor.layout import resolve  # noqa: E402
from advisor.layout.raid import RAID0  # noqa: E402
from advisor.sim import des  # noqa: E402
from advisor.sim.analytic.commit import (  # noqa: E402
    COMMIT,
    commit_rates,
    flushes_per_commit,
    log_busy,
)
from advisor.sim.analytic.dist import Dist  # noqa: E402
from advisor.sim.analytic.mix import build_mix, io_charge  # noqa: E402
from advisor.sim.plan import compile_plan  # noqa: E402
from advisor.sim.source import OP_FLUSH, OP_READ  # noqa: E402
from advisor.userfiles import load_catalog  # noqa: E402
from workloads.mysql import MysqlParams  # noqa: E402
from workloads.mysql_run import Deployment, build_servers  # noqa: E402
from workloads.mysql_shape import PRESETS, shape_of  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from kernel_spy import kernel_arrays, seeds_args  # noqa: E402

# (layout, data GiB, replicas, preset, tps): sysbench-oltp-wo on io1 at 30 / 60 / 85 % of its
# knee, and point-rw masters behind a replica at 85 % (analytic_grid.py's loads).
CASES = (("r5.xlarge:io1:70GiB:3500iops", 50.0, 0, "sysbench-oltp-wo", 443.0),
         ("r5.xlarge:io1:70GiB:3500iops", 50.0, 0, "sysbench-oltp-wo", 886.0),
         ("r5.xlarge:io1:70GiB:3500iops", 50.0, 0, "sysbench-oltp-wo", 1255.0),
         ("r5.xlarge:gp3:650GiB", 500.0, 1, "point-rw", 512.0),
         ("r5.xlarge:raid0:2xgp3:35GiB", 50.0, 1, "point-rw", 1904.0),
         ("c5.large:gp3:650GiB", 500.0, 0, "point-rw", 314.0))


def merged_first(flush: Dist, rate: float, others: float,
                 lead: tuple[float, Dist] | None = None) -> float:
    """The redo log's merged share (module docstring); `lead`: the chance c that the
    committing request's last device I/O reached the log's member, and S, the time from its
    issue to the commit (a commit whose own I/O came after the flush started, S < U, does not
    merge)."""
    if rate <= 0 or flush.mean <= 0:
        return 0.0
    w = flush.weights / flush.weights.sum()
    q, _ = log_busy(flush, rate)
    both = rate + others
    free = float(np.dot(w, -np.expm1(-both * flush.values)))
    if lead is not None and lead[0] > 0:
        chance, s = lead
        v = s.weights / s.weights.sum()
        gap = np.exp(-both * s.values)[None, :] - np.exp(-both * flush.values)[:, None]
        free -= chance * float(w @ np.maximum(gap, 0.0) @ v)
    return float((1 - q) * rate / both * max(free, 0.0))


def merged_after(flush: Dist, rate: float, others: float) -> float:
    """The binlog's merged share, `flush` and `rate` the redo log's (module docstring)."""
    if rate <= 0 or flush.mean <= 0:
        return 0.0
    w = flush.weights / flush.weights.sum()
    q, _ = log_busy(flush, rate)
    return float(q * np.dot(w, np.exp(-(rate + others) * flush.values)))


def kernel_log(arrivals: np.ndarray, flush_s: float) -> tuple[np.ndarray, np.ndarray]:
    """One log under `kernel._group_commit`'s rules: (the times its writes are charged, each
    arrival's completion)."""
    done, forming_start, forming_done, current_start = -1.0, -1.0, -1.0, -1.0
    charged: list[float] = []
    complete = np.empty(arrivals.size)
    for i, t in enumerate(arrivals):
        if forming_done >= 0 and t > forming_start:
            done, current_start, forming_done = forming_done, forming_start, -1.0
        if t == current_start and t < done:
            complete[i] = done
            continue
        if forming_done >= 0:
            complete[i] = forming_done
            continue
        charged.append(t)
        if t >= done:
            done, current_start = t + flush_s, t
            complete[i] = done
        else:
            forming_start, forming_done = done, done + flush_s
            complete[i] = forming_done
    return np.array(charged), complete


def simulated_merges(rate: float, flush_s: float, others: float,
                     n: int = 200_000) -> tuple[float, float]:
    """(redo, binlog) merged shares of the kernel's rules run directly: Poisson commits, a fixed
    flush, Poisson other I/Os."""
    rng = np.random.default_rng(11)
    arrivals = np.cumsum(rng.exponential(1 / rate, n))
    redo, redo_done = kernel_log(arrivals, flush_s)
    binlog, _ = kernel_log(redo_done, flush_s)
    other = np.cumsum(rng.exponential(1 / others, int(others * arrivals[-1] * 1.2) + 10))
    kind = np.concatenate([np.zeros(redo.size), np.ones(binlog.size), np.full(other.size, 2)])
    kind = kind[np.argsort(np.concatenate([redo, binlog, other]), kind="stable")]
    after_own = np.zeros(kind.size, dtype=bool)
    after_own[1:] = kind[1:] == kind[:-1]
    return float(after_own[kind == 0].mean()), float(after_own[kind == 1].mean())


def _server(spec: str, data: float, replicas: int, preset: str, tps: float) -> tuple[Any, ...]:
    catalog = load_catalog(use_env=False)
    layout = resolve(spec, catalog)
    params = MysqlParams(tps=tps, data_gb=data, replicas=replicas, shape=shape_of(preset),
                         reads_per_write=PRESETS[preset].reads)
    dep = Deployment(master=layout, replica=layout if replicas else None)
    return layout, compile_plan(layout, catalog), build_servers(dep, params, None)[0]


def des_merges(layout: Any, plan: Any, server: Any, seeds: int) -> dict[str, float]:
    """The event simulation's merged share of each log's writes and its log charge per commit at
    the volume's IOPS limit, summed over a RAID 0 array's members (every device I/O of each
    seed's first batch, in the order charged, per member)."""
    limit = next(i for i, n in enumerate(plan.limit_names) if n.endswith("volume IOPS"))
    unit = plan.lim_unit_bytes[limit]
    members = plan.members if plan.raid == RAID0 else 1
    counts = {0: [0, 0], 1: [0, 0]}
    charge = commits = 0.0
    for seed in range(1, seeds + 1):
        g = kernel_arrays(plan, server, layout, seed)[0]
        k = int(g["first"][g["ran"]])
        op = g["op"][:k]
        dev = des._device_ios(op, g["aux"][:k], g["done"][:k])
        t = g["issue"][:k][dev]
        bg = (g["bg_issue"] > 0) & (g["bg_issue"] >= t.min()) & (g["bg_issue"] <= t.max())
        bg &= g["bg_op"] != OP_FLUSH
        order = np.argsort(np.concatenate([t, g["bg_issue"][bg]]), kind="stable")
        off = np.concatenate([g["off"][:k][dev], g["bg_off"][bg]])[order]
        size = np.concatenate([g["size"][:k][dev], g["bg_size"][bg]])[order]
        log = np.concatenate([np.where(op[dev] == COMMIT, g["aux"][:k][dev], -1),
                              np.full(int(bg.sum()), -1)])[order]
        chunk = plan.chunk_bytes
        member = (off // chunk) % members if members > 1 else np.zeros(off.size, dtype=np.int64)
        moff = (off // chunk // members) * chunk + off % chunk if members > 1 else off
        follows = np.zeros(off.size, dtype=bool)
        for m in range(members):
            ix = np.flatnonzero(member == m)
            follows[ix[1:]] = moff[ix[1:]] == moff[ix[:-1]] + size[ix[:-1]]
        for lg in (0, 1):
            on = log == lg
            counts[lg][0] += int(on.sum())
            counts[lg][1] += int((follows & on).sum())
        charge += float(np.where(follows, size / unit, 1.0)[log >= 0].sum())
        commits += float((op == COMMIT).sum()) / 2
    out = {f"log{lg}": c[1] / max(c[0], 1) for lg, c in counts.items()}
    out["charge_per_commit"] = charge / max(commits, 1.0)
    return out


def model_merges(plan: Any, server: Any) -> dict[str, float]:
    """The model's merged shares (the flush's service time as F) and log charge per commit at
    the volume's IOPS limit, and what taking every write whole charges."""
    limit = next(i for i, n in enumerate(plan.limit_names) if n.endswith("volume IOPS"))
    mix = build_mix(plan, server.request_classes(), server.background_specs())
    x = server.rate_tps
    rates = commit_rates(mix, x)
    members = plan.members if plan.raid == RAID0 else 1
    commits = sum(c.probability * io.rate for c in mix.classes for io in c.ios if io.op == COMMIT)
    others = x * (mix.read_ios_per_request + mix.write_ios_per_request - commits) / members
    write = next(c for c in mix.classes if any(io.op == COMMIT for io in c.ios))
    redo = next(io for io in write.ios if io.op == COMMIT and io.log == 0)
    k = write.ios.index(redo)
    cpu = sum(io.size_bytes * 1e-6 for io in write.ios[:k] if io.op == 4)
    reads = next((io for io in write.ios[:k] if io.op == OP_READ), None)
    lead = None
    if reads is not None:
        some = 1.0 - sum(p for n, p in reads.pmf if n == 0)
        lead = (some / members, Dist(reads.service.values + cpu, reads.service.weights))
    m0 = merged_first(redo.service, rates[0], others, lead)
    m1 = merged_after(redo.service, rates[0], others) if 1 in rates else 0.0
    charge = whole = 0.0
    for io in write.ios:
        if io.op != COMMIT:
            continue
        g = flushes_per_commit(io.service, rates[io.log])
        m = m0 if io.log == 0 else m1
        seq = io_charge(plan, io.op, io.size_bytes, False)[limit]
        charge += g * ((1 - m) * io.cost[limit] + m * seq)
        whole += g * io.cost[limit]
    # On RAID 0 a member's limit is charged the members' average: the array's is `members` x.
    return {"log0": m0, "log1": m1, "charge_per_commit": charge * members,
            "whole_per_commit": whole * members,
            "others_per_s": others, "flush_ms": redo.service.mean * 1e3}


def main(argv: list[str] | None = None) -> int:
    args = seeds_args(__doc__, argv, default=2, most=20)
    direct = []
    for rate, others in ((300.0, 1200.0), (1255.0, 1256.0), (2000.0, 500.0)):
        flush = Dist(np.array([8e-4]), np.array([1.0]))
        sim = simulated_merges(rate, 8e-4, others)
        direct.append({"rate": rate, "others": others, "direct": sim,
                       "model": (merged_first(flush, rate, others),
                                 merged_after(flush, rate, others))})
    rows = []
    for spec, data, replicas, preset, tps in CASES:
        layout, plan, server = _server(spec, data, replicas, preset, tps)
        rows.append({"layout": spec, "replicas": replicas, "preset": preset, "tps": tps,
                     "des": des_merges(layout, plan, server, args.seeds),
                     "model": model_merges(plan, server)})
    if args.format == "json":
        print(json.dumps({"direct": direct, "cases": rows}, indent=2))
        return 0
    print("The kernel's rules run directly (0.8 ms flush): merged share redo / binlog")
    for d in direct:
        print(f"  {d['rate']:6.0f} commits/s, {d['others']:6.0f} others/s: direct "
              f"{d['direct'][0]:.4f} / {d['direct'][1]:.4f}, model {d['model'][0]:.4f} / "
              f"{d['model'][1]:.4f}")
    print(f"Event simulation (seeds 1-{args.seeds}) against the model: merged share redo / "
          "binlog; log charge per commit at the volume's IOPS limit (I/Os)")
    for r in rows:
        d, m = r["des"], r["model"]
        print(f"  {r['layout']} {r['preset']} r{r['replicas']} at {r['tps']:g} tps: merged "
              f"{d['log0']:.3f} / {d['log1']:.3f} against {m['log0']:.3f} / {m['log1']:.3f}; "
              f"charge {d['charge_per_commit']:.3f} against {m['charge_per_commit']:.3f} "
              f"(every write whole {m['whole_per_commit']:.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
