"""Two numerical defects of the analytic engine found on 2026-11-30 (eighteenth session) and fixed
in the nineteenth, with a RAID 0 member's backlog through its streams' cycle (striping,
transient), which the grid's RAID 0 replicas had leaned on the defects for (bench/README.md):
the M/G/1 lattice put each residual's mass at its cell's lower edge (P(V > 2 ms) ~10 % low at
85 % busy), and a member state's damped fixed-point iteration stopped short near saturation."""

import math

import pytest

from advisor.sim.analytic import striping, waits

# An M/D/1 queue as busy as a replica's io1 volume at 85 % of its 3,500 IOPS (r5.xlarge, 1,091
# tps), asked at that volume's burst tolerance.
WORK = 1 / 3500
RHO = 0.85
TAU = 2e-3


def _md1_backlog_over(x: float) -> float:
    """P(V > x) of the M/D/1 workload, exactly: P(V <= x) = (1 - rho) sum_{k <= x / d}
    (lambda (k d - x))^k / k! e^{-lambda (k d - x)} (Erlang)."""
    lam = RHO / WORK
    below = sum((lam * (k * WORK - x)) ** k / math.factorial(k) * math.exp(-lam * (k * WORK - x))
                for k in range(int(x / WORK) + 1))
    return 1 - (1 - RHO) * below


def test_the_mg1_lattice_is_exact_over_the_wait_grid() -> None:
    """Each residual's mass at its cell's nearest point: Erlang's exact M/D/1 tail (it was 10 %
    low with the mass at the lower edge)."""
    got = float(waits.mg1_survival([(RHO / WORK, WORK)], TAU + waits.Y_GRID)[0])
    assert got == pytest.approx(_md1_backlog_over(TAU), rel=0.02)


def _target(rho: float, loads: list[float], dwells: list[float], tau_s: float, members: int,
            on: tuple[int, ...], u: float) -> float:
    """The utilisation the swings load at u (`striping.followed_shares`' docstring)."""
    v = tau_s * (1 - rho) ** 2
    tau = v / (1 - u) ** 2
    return rho + sum(r * striping.swing(t, tau, members) * (members * o - 1)
                     for r, t, o in zip(loads, dwells, on, strict=True))


# The same replica on RAID 0 2xgp3 35 GiB at 1,870 tps: a member's IOPS limit and its three logs.
MEMBER = (0.8503, [0.067] * 3, [0.291] * 3, 0.012, 2)


def test_a_member_state_away_from_saturation_is_a_fixed_point() -> None:
    u, _ = striping.followed_shares(*MEMBER, (0, 1, 1))
    assert _target(*MEMBER, (0, 1, 1), u) == pytest.approx(u, abs=1e-4)


def test_a_member_state_near_saturation_is_a_fixed_point() -> None:
    """By bisection on the decreasing map: the root (0.965), where the damped iteration stopped
    at 0.988 after 60 steps."""
    u, _ = striping.followed_shares(*MEMBER, (1, 1, 1))
    assert _target(*MEMBER, (1, 1, 1), u) == pytest.approx(u, abs=1e-4)
