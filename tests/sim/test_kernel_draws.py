"""The kernel's own random numbers (`advisor.sim.kernel._uniform` / `_normal`, drawn where a
service time reads them) and the sort-free Poisson window: right in distribution, independent
from position to position, and the same for the same key and position."""

import numpy as np
from numba import njit
from scipy import stats

from advisor.sim.kernel import DRAWS, _normal, _uniform
from advisor.sim.source import poisson_window

N = 200_000


@njit(cache=False)
def _draws(key, n):  # type: ignore[no-untyped-def]
    """As `_service` reads them: per I/O row, u at c, v at c + 1, a normal at c + 2 and c + 3."""
    u, v, z = np.empty(n), np.empty(n), np.empty(n)
    for i in range(n):
        c = i * 2 * DRAWS  # two members per row: member 0's positions
        u[i] = _uniform(key, c)
        v[i] = _uniform(key, c + 1)
        z[i] = _normal(key, c + 2)
    return u, v, z


def test_uniforms_and_normals_are_right_in_distribution() -> None:
    u, v, z = _draws(12345, N)
    assert stats.kstest(u, "uniform").pvalue > 1e-3
    assert stats.kstest(v, "uniform").pvalue > 1e-3
    assert stats.kstest(z, "norm").pvalue > 1e-3
    assert ((u >= 0) & (u < 1)).all()
    # the tail a log-normal service time lives on
    assert abs(np.quantile(z, 0.999) - stats.norm.ppf(0.999)) < 0.1


def test_positions_are_independent_and_repeatable() -> None:
    u, v, z = _draws(7, N)
    bound = 4 / np.sqrt(N)  # four standard errors of a correlation
    for a, b in ((u, v), (u, z), (v, z), (u[1:], u[:-1]), (z[1:], z[:-1])):
        assert abs(np.corrcoef(a, b)[0, 1]) < bound
    again, _, _ = _draws(7, 1000)
    assert np.array_equal(again, u[:1000])  # the same key and position: the same number
    other, _, _ = _draws(8, 1000)
    assert abs(np.corrcoef(other, u[:1000])[0, 1]) < 4 / np.sqrt(1000)


def test_a_poisson_window_is_sorted_uniform_times_inside_it() -> None:
    rng = np.random.default_rng(3)
    t = poisson_window(rng, 5000.0, 2.0, 12.0)
    assert abs(t.size - 50_000) < 5 * np.sqrt(50_000)
    assert (np.diff(t) >= 0).all()
    assert t[0] >= 2.0
    assert t[-1] < 12.0
    assert stats.kstest((t - 2.0) / 10.0, "uniform").pvalue > 1e-3
    assert poisson_window(rng, 0.0, 0.0, 1.0).size == 0
