"""BRIEF §8 item 3 as whole curves: four layouts x four sysbench fileio modes x threads 1..128.

The published sweep (m5.8xlarge with gp2 1 TB or io1 50,000 IOPS; m5d.8xlarge with one local
NVMe disk or RAID 1 of its two) is known through its claims in the BRIEF; each curve is simulated
whole and checked against the claim made about it, where there is one. Used by
`bench/validation_table.py` (docs/validation.md, Table 1b) and tests/validation/test_sweep.py.
"""

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from tests.validation.test_published import Outcome, simulate_json

THREADS = (1, 2, 4, 8, 16, 32, 64, 128)
MODES = ("rndrd", "rndwr", "seqrd", "seqwr")
LAYOUTS = {"gp2": "m5.8xlarge:gp2:1000GiB", "io1": "m5.8xlarge:io1:1000GiB:50000iops",
           "local": "m5d.8xlarge:store", "raid1": "m5d.8xlarge:raid1:2xstore"}
CURVES = [(layout, mode) for layout in LAYOUTS for mode in MODES]
DURATION_S = 3.0  # the first second (the page cache filling with dirty pages) is warm-up


@cache
def sweep_iops(layout_id: str, mode: str) -> tuple[float, ...]:
    """IOPS (DES) at each of THREADS: sysbench fileio 16 KiB over 500 GB of files, buffered
    (sysbench's default) through the page cache of the instance's RAM, fsync every 100 writes."""
    args = ("--file-test-mode", mode, "--file-block-size", "16k", "--size", "500g",
            "--warmup", "1",
            "--ramp", "threads=" + ",".join(str(t) for t in THREADS))
    result = simulate_json(LAYOUTS[layout_id], args, "des", DURATION_S)
    return tuple(float(level["iops"]["total"]) for level in result["levels"])


@dataclass(frozen=True, slots=True)
class Claim:
    what: str
    fitted: bool
    value: Callable[[], float]
    expected: float | None = None
    at_least: float | None = None

    def evaluate(self) -> Outcome:
        value = self.value()
        if self.expected is not None:
            err = value / self.expected - 1
            return Outcome(value, abs(err) <= 0.15, 100 * err, f"{self.expected:,g} ±15%")
        assert self.at_least is not None
        return Outcome(value, value >= self.at_least, None, f">= {self.at_least:g}")


def _at(layout_id: str, mode: str, threads: int) -> float:
    return sweep_iops(layout_id, mode)[THREADS.index(threads)]


def curve_claims(layout_id: str, mode: str) -> list[Claim]:
    """What the published run says about this curve (BRIEF §8 item 3); [] where it says nothing."""
    claims: list[Claim] = []
    if (layout_id, mode) == ("gp2", "rndwr"):
        claims += [Claim("flat at ~3,000 from 2 threads: lowest at 2-128", True,
                         lambda: min(sweep_iops("gp2", "rndwr")[1:]), expected=3000),
                   Claim("flat at ~3,000 from 2 threads: highest at 2-128", True,
                         lambda: max(sweep_iops("gp2", "rndwr")[1:]), expected=3000)]
    if (layout_id, mode) == ("io1", "rndwr"):
        claims.append(Claim("~23,000 at 32 threads", False, lambda: _at("io1", "rndwr", 32),
                            expected=23000))
    if layout_id == "local":
        claims.append(Claim("saturates from 4 threads: IOPS(4) / IOPS(128)", False,
                            lambda: _at("local", mode, 4) / _at("local", mode, 128),
                            at_least=0.85))
    if layout_id == "raid1" and mode in ("rndrd", "seqrd"):
        claims.append(Claim("reads up to 2x one disk: highest RAID 1 / one disk", False,
                            lambda: max(r / o for r, o in zip(sweep_iops("raid1", mode),
                                                              sweep_iops("local", mode),
                                                              strict=True)),
                            expected=2.0))
    if layout_id == "raid1" and mode in ("rndwr", "seqwr"):
        claims.append(Claim("writes the same as one disk: RAID 1 / one disk at 128 threads",
                            False, lambda: _at("raid1", mode, 128) / _at("local", mode, 128),
                            expected=1.0))
    return claims
