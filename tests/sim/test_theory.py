"""The discrete-event engine against queueing theory (STYLE.md "Tests": theory before a verdict).

Tolerances come from measuring the seeded runs: over ten seeds of 4,000 simulated seconds (100 s
warm-up excluded) the M/M/1 and M/D/1 mean sojourn stayed within 0.9 % of the formula and the
M/M/1 p99 within 1.5 %; the tests allow 3 % (means, Little's law) and 4 % (percentiles).
"""

import json
import math

import pytest

from advisor.layout import resolve
from advisor.serial import to_json
from advisor.sim.des import run_des
from advisor.sim.plan import synthetic_plan
from advisor.sim.result import des_level
from advisor.sim.results import Level, PatternResult
from advisor.sim.run import simulate_pattern
from advisor.sim.source import IoPattern
from advisor.userfiles import load_catalog

SERVICE_S = 0.001  # mean service time: mu = 1,000/s
RUN_S, WARMUP_S = 4000.0, 100.0
MEAN_TOL, PCT_TOL = 0.03, 0.04
GP2_BUCKET = 5.4e6
GP2_BURST_IOPS = 3000.0


def _open_loop(*, rho: float, exponential: bool, seed: int = 1) -> Level:
    plan = synthetic_plan(service_mean_s=SERVICE_S, exponential=exponential, serial=True)
    rate = rho / SERVICE_S
    source = IoPattern(name="poisson", read_fraction=1.0, random=True, block_bytes=4096,
                       concurrency=4096, span_bytes=2**30, open_rate=rate)
    raw = run_des(plan, source, duration_s=RUN_S, seed=seed, warmup_s=WARMUP_S)
    return des_level(plan, raw, load={"rate_iops": rate}, queue_depth=None)


def _pattern(*, concurrency: int, block_bytes: int = 4096, read_fraction: float = 0.75,
             open_rate: float | None = None) -> IoPattern:
    return IoPattern(name="fio randrw", read_fraction=read_fraction, random=True,
                     block_bytes=block_bytes, concurrency=concurrency, span_bytes=4 * 2**30,
                     open_rate=open_rate)


def _rel(value: float, expected: float) -> float:
    return abs(value / expected - 1)


@pytest.mark.parametrize("rho", [0.5, 0.8])
def test_mm1_sojourn_matches_theory(rho: float) -> None:
    """M/M/1: sojourn exponential with mean 1/(mu - lambda) (p50, p99 too); L = rho/(1 - rho)."""
    level = _open_loop(rho=rho, exponential=True)
    lat = level.latency_ms.transaction
    w_ms = 1000 * SERVICE_S / (1 - rho)
    assert _rel(lat.mean, w_ms) < MEAN_TOL
    assert _rel(lat.p50, w_ms * math.log(2)) < PCT_TOL
    assert _rel(lat.p99, w_ms * math.log(100)) < PCT_TOL
    assert _rel(level.mean_in_flight, rho / (1 - rho)) < MEAN_TOL
    assert _rel(level.iops.total, rho / SERVICE_S) < 0.01


@pytest.mark.parametrize("rho", [0.5, 0.8])
def test_md1_mean_sojourn_is_pollaczek_khinchine(rho: float) -> None:
    """M/D/1: mean sojourn S + rho S / (2 (1 - rho)); Little's law gives L = lambda W."""
    level = _open_loop(rho=rho, exponential=False)
    w_s = SERVICE_S + rho * SERVICE_S / (2 * (1 - rho))
    assert _rel(level.latency_ms.transaction.mean, 1000 * w_s) < MEAN_TOL
    assert _rel(level.mean_in_flight, rho / SERVICE_S * w_s) < MEAN_TOL
    # Constant service: nobody is faster than the service time.
    assert level.latency_ms.transaction.p50 >= 1000 * SERVICE_S * 0.995


@pytest.mark.parametrize("rate", [1000.0, 20000.0])
def test_pacer_caps_closed_loop_throughput_at_its_rate(rate: float) -> None:
    """64 clients behind a pacer at R get R I/Os per second (within 1 %), and it is named."""
    plan = synthetic_plan(service_mean_s=SERVICE_S, exponential=False, serial=False,
                          pacer_rate=rate)
    raw = run_des(plan, _pattern(concurrency=64), duration_s=50.0, seed=3)
    level = des_level(plan, raw, load={"iodepth": 64}, queue_depth=64)
    assert _rel(level.iops.total, rate) < 0.01
    assert level.bottleneck.startswith("pacer at")


def test_pacer_passes_an_open_loop_below_its_rate() -> None:
    """Poisson arrivals at half the pacer's rate all get through."""
    plan = synthetic_plan(service_mean_s=SERVICE_S, exponential=False, serial=False,
                          pacer_rate=2000.0)
    raw = run_des(plan, _pattern(concurrency=4096, open_rate=1000.0), duration_s=200.0, seed=4)
    level = des_level(plan, raw, load={"rate_iops": 1000.0}, queue_depth=None)
    assert _rel(level.iops.total, 1000.0) < 0.01


@pytest.mark.parametrize("engine", ["des", "analytic"])
@pytest.mark.parametrize(("spec", "iodepth"), [
    ("m5d.large:gp2:385GiB", 1), ("m5d.large:gp2:385GiB", 64), ("m5d.large:store", 8),
    ("m5.8xlarge:raid10:4xgp3:500GiB:6000iops:250mbps", 64), ("m1.large:raid0:2xstore", 8),
])
def test_closed_loop_littles_law(spec: str, iodepth: int, engine: str) -> None:
    """Closed loop: iodepth == throughput x mean latency (Little's law, within 1 %)."""
    duration = 300.0 if spec.startswith("m1.") else 10.0
    result = simulate_pattern(resolve(spec, load_catalog()), load_catalog(),
                              _pattern(concurrency=iodepth, block_bytes=16384),
                              duration_s=duration, engine=engine, seed=2)
    x = result.iops.total
    r_s = result.latency_ms.transaction.mean / 1000
    assert _rel(x * r_s, iodepth) < 0.01
    assert _rel(result.levels[0].mean_in_flight, iodepth) < 0.01


def _des(seed: int) -> PatternResult:
    spec = "m5.8xlarge:raid10:4xgp3:500GiB:6000iops:250mbps"
    return simulate_pattern(resolve(spec, load_catalog()), load_catalog(),
                            _pattern(concurrency=32), duration_s=2.0, engine="des", seed=seed)


def test_same_seed_gives_identical_result_json() -> None:
    """Two runs with one seed print byte-identical JSON; the seed is echoed."""
    first, second = _des(7), _des(7)
    assert json.dumps(to_json(first)) == json.dumps(to_json(second))
    assert first.seed == 7


def test_different_seeds_give_different_samples() -> None:
    """Another seed draws other service times: latencies differ, the capacity does not."""
    a, b = _des(7), _des(8)
    assert a.latency_ms != b.latency_ms
    assert _rel(a.iops.total, b.iops.total) < 0.02


def _gp2_drain_s(size_gib: int) -> float:
    baseline = min(16000.0, max(100.0, 3.0 * size_gib))
    return GP2_BUCKET / (GP2_BURST_IOPS - baseline)


@pytest.mark.parametrize("size_gib", [20, 100, 200, 334, 500, 750])
def test_gp2_credit_drain_matches_closed_form_analytic(size_gib: int) -> None:
    """A full gp2 bucket lasts 5.4 M / (3,000 - baseline) s at 3,000 IOPS (analytic, 0.1 %)."""
    layout = resolve(f"m5.8xlarge:gp2:{size_gib}GiB", load_catalog())
    expected = _gp2_drain_s(size_gib)
    result = simulate_pattern(layout, load_catalog(), _pattern(concurrency=64, block_bytes=16384),
                              duration_s=expected * 1.5, engine="analytic")
    phases = result.levels[0].phases
    assert phases is not None
    assert [p.iops for p in phases] == [3000.0, min(3000.0, max(100.0, 3.0 * size_gib))]
    assert _rel(phases[0].end_s, expected) < 0.001


def test_gp2_credit_drain_matches_closed_form_des() -> None:
    """The event engine runs a 50 GiB gp2 bucket dry at 5.4 M / (3,000 - 150) = 1,894.7 s."""
    layout = resolve("m5.8xlarge:gp2:50GiB", load_catalog())
    result = simulate_pattern(layout, load_catalog(), _pattern(concurrency=64, block_bytes=16384),
                              duration_s=2000.0, engine="des", seed=5)
    detail = result.levels[0].bottleneck_detail
    assert detail is not None
    assert detail.kind == "burst_exhausted"
    assert _rel(detail.exhausted_at_s, _gp2_drain_s(50)) < 0.002
