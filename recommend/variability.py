"""What the volumes' slow episodes do to a deployment's p99 over weeks (issue 11, item 5).

A server is in one of two states: usual (every volume at its usual speed) or one of its volumes
in a slow episode, for the share of time the device model gives, 1 - (1 - share) ^ volumes
(volumes independent; two at once, a share of order share^2, counts as one). Requests arrive at
the same rate in both, so the long-run latency distribution is the two states' distributions
mixed by their shares of time, per request, and its p99 is read from that mixture. The usual
state is the headroom check re-run without episodes (`des_steady`); the episode state is the
forced-episode run (`des_episode`). Both are event simulations at the headroom load. The search's
screen makes the same mixture on the analytic engine (`mysql_search.long_run`) and refuses a
candidate whose long-run p99 misses the SLO."""

import math
from collections.abc import Sequence

import numpy as np

from advisor.catalog.model import Catalog
from advisor.sim.plan import episode_share
from advisor.sim.stats import EDGES, LatencyStats
from recommend.mysql_search import (
    BACKGROUND_LAG_LIMIT_S,
    EPISODE_STRATA,
    Candidate,
    des_episode,
    des_seconds,
    des_steady,
    server_for,
)
from recommend.request import MysqlSizeRequest
from recommend.result import SteadyCheck, Variability
from workloads.mysql import TxnIo


def mixture_quantile_s(parts: Sequence[tuple[float, LatencyStats]], q: float) -> float:
    """The q-th percentile (0-100) of a mixture of latency distributions, each part weighted per
    request by its share (shares sum to 1; a part's own request count does not weigh), read as
    `LatencyStats.quantile_s` reads one: geometric interpolation inside the bin, at most the
    largest latency of a part that weighs."""
    used = [(w, st) for w, st in parts if w > 0 and st.n]
    if not used:
        return float("nan")
    mass = np.zeros(used[0][1].counts.size)
    for w, st in used:
        mass += w / st.n * st.counts
    cum = np.cumsum(mass)
    rank = q / 100.0 * float(cum[-1])
    i = min(int(np.searchsorted(cum, rank, side="left")), mass.size - 1)
    lo = EDGES[i - 1] if i >= 1 else EDGES[0]
    hi = EDGES[i] if i < EDGES.size else EDGES[-1]
    before = float(cum[i - 1]) if i >= 1 else 0.0
    inside = float(mass[i])
    frac = (rank - before) / inside if inside > 0 else 1.0
    value = float(lo * (hi / lo) ** min(max(frac, 0.0), 1.0))
    return min(value, max(st.max_s for _, st in used))


def variability(servers: Sequence[Candidate], req: MysqlSizeRequest, catalog: Catalog,
                replicas: int, measured: TxnIo | None) -> Variability | None:
    """Each server's verified headroom check (slow episodes on, the default, placed by the seed)
    beside the same check without them (same seeds and replications), and its p99 over weeks:
    the check without episodes mixed with the forced-episode run (two extra event simulations
    per server whose device model has episodes, each as long as the check). None when no server
    was checked in the event simulation."""
    rows: list[SteadyCheck] = []
    words: list[str] = []
    lag_words: list[str] = []
    for c in servers:
        with_ = next((x for x in c.details.get("des_loads", ()) if x.load == "headroom"), None)
        usual: list[LatencyStats] = []
        without = des_steady(c, catalog, req, replicas, measured, keep=usual)
        if with_ is None or without is None:
            continue
        if not with_.requests:  # a replica of a write-only shape: no transaction to time
            words.append(f"{c.role} serves no transactions (no latency to report)")
            continue
        plan = c.plan(catalog)
        seconds = des_seconds(server_for(req, c.layout, c.role, replicas, req.target_tps,
                                         measured))
        prof = plan.profile
        if not plan.variable:
            rows.append(SteadyCheck(
                role=c.role, p99_ms=with_.p99_ms, p99_ci95_ms=with_.p99_ci95_ms,
                p99_ms_steady=without.p99_ms, p99_ci95_ms_steady=without.p99_ci95_ms,
                replications=with_.replications, seconds=round(seconds, 1), variable=False,
                episode_chance=0.0, passed_steady=without.passed, episode_share=0.0,
                p99_ms_long_run=with_.p99_ms))
            words.append(f"{c.role} {with_.p99_ms:,.2f} ms (no slow episodes in its device "
                         f"model, {prof.name})")
            continue
        chance = 1 - (1 - prof.slow_share) ** (plan.members * with_.replications
                                               * (1 + seconds / prof.slow_episode_s))
        share = episode_share(prof.slow_share, plan.members)
        runs = des_episode(c, catalog, req, replicas, measured)
        base = LatencyStats()
        for st in usual:
            base.merge(st)
        episode = [(1 / len(runs), r.latency) for r in runs]
        p99_ep = mixture_quantile_s(episode, 99) * 1000
        p99_long = mixture_quantile_s([(1 - share, base)]
                                      + [(share * w, st) for w, st in episode], 99) * 1000
        rows.append(SteadyCheck(
            role=c.role, p99_ms=with_.p99_ms, p99_ci95_ms=with_.p99_ci95_ms,
            p99_ms_steady=without.p99_ms, p99_ci95_ms_steady=without.p99_ci95_ms,
            replications=with_.replications, seconds=round(seconds, 1), variable=True,
            episode_chance=round(chance, 4), passed_steady=without.passed,
            episode_share=round(share, 6), p99_ms_episode=round(p99_ep, 3),
            p99_ms_long_run=round(p99_long, 3)))
        n = plan.members
        volumes = f"one of its {n} volumes is" if n > 1 else "its volume is"
        each = (f"each volume {prof.slow_share:.2%} of the time, independently"
                if n > 1 else f"{prof.slow_share:.2%}")
        words.append(f"{c.role} {without.p99_ms:,.2f} ms usually, {p99_ep:,.2f} ms while "
                     f"{volumes} in a slow episode ({share:.2%} of the time: {each}, profile "
                     f"{prof.name}), {p99_long:,.2f} ms long-run")
        worst = max(runs, key=lambda r: r.background_lag_s)
        if worst.background_lag_s > BACKGROUND_LAG_LIMIT_S:
            lag_words.append(f"{c.role}'s background work (page flushing, replication apply) "
                             f"falls {worst.background_lag_s:,.1f} s behind in an episode "
                             f"losing {worst.loss:.0%} of a volume's speed")
    if not rows:
        return None
    on = max(r.p99_ms for r in rows)
    off = max(r.p99_ms_steady for r in rows)
    cost = on - off
    long_run = max(r.p99_ms_long_run or 0.0 for r in rows)
    meets = long_run <= req.p99_ms
    if not any(r.variable for r in rows):
        text = ("no server's volumes have slow episodes in the device model (none on instance "
                "store, nor on volume types without data for them): the p99 at the headroom "
                f"load {req.target_tps:,.0f} tps, {on:,.2f} ms, is the same without variability "
                "and over weeks")
    else:
        largest = max(1 - 1 / c.plan(catalog).profile.slow_factor for c in servers
                      if c.plan(catalog).variable)
        episode_s = max(c.plan(catalog).profile.slow_episode_s for c in servers
                        if c.plan(catalog).variable)
        chance = 1 - math.prod(1 - r.episode_chance for r in rows)
        stratum_s = max(r.replications * r.seconds / EPISODE_STRATA for r in rows if r.variable)
        text = (f"over weeks, with the volumes' slow episodes (on by default), the slowest "
                f"server's p99 at the headroom load {req.target_tps:,.0f} tps is "
                f"~{long_run:,.2f} ms, {'within' if meets else 'over'} the {req.p99_ms:g} ms "
                f"SLO: " + "; ".join(words)
                + ". Long-run is the usual and the episode state's latencies mixed by their "
                "shares of time (a point estimate, no interval); the episode state is an "
                "event simulation with one volume slowed for the whole run, at "
                f"{EPISODE_STRATA} speed losses spread evenly over the model's uniform "
                f"0-{largest:.0%}, each run ~{stratum_s:,.1f} s after its warm-up: it shows the "
                "transactions' latency in an episode, not a backlog of page flushing that would "
                f"build over a whole {episode_s / 60:g}-min episode. "
                + "".join(f"{w[0].upper()}{w[1:]}. " for w in lag_words)
                + f"The verified check, with episodes placed by the seed, gave {on:,.2f} ms "
                f"and {off:,.2f} ms without them ({cost:+,.2f} ms): its runs (" + ", ".join(
                    f"{r.role} {r.replications} x {r.seconds:g} s" for r in rows if r.variable)
                + f") are short beside {episode_s / 60:g}-min episodes, so one falls within "
                f"them with probability ~{chance:.0%}")
    return Variability(tps=round(req.target_tps, 2), p99_ms=on, p99_ms_steady=off,
                       cost_ms=round(cost, 3), servers=tuple(rows), text=text,
                       p99_ms_long_run=round(long_run, 3), meets_slo_long_run=meets)
