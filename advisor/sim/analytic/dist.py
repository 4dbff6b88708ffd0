"""Distributions as weighted points on deterministic probability bins, denser in the upper tail:
sums (convolution), mixtures, repeats and the percentile summary the engines report. Means are
carried exactly through every operation."""

import hashlib
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from advisor.memo import Memo
from advisor.percentiles import PERCENTILES

GRID = 400  # equally likely points of a distribution built on a plain grid

# Quantile levels at which a distribution is kept: equal steps through the body, then, since a
# sum's p99 is made of its operands' rarer tails (a transaction of 4 page reads and 2 commits
# reaches its p99 through one read or flush in a thousand that is slow, or one commit in three
# hundred that queues behind it), geometric steps through the upper tail down to 1 - 1e-6. Each
# point stands for a bin of probability and sits at the bin's conditional mean (`bin_sorted`), so
# means are kept and a tail under any one bin's share is not cut off. Equally likely points
# cannot do that: 200 of them kept nothing above an operand's 99.75th percentile, and a c5.large
# gp3 master's transaction p99 read 6.4 ms against the event simulation's 8.8-9.4.
TAIL_DECADES = 5  # the upper tail down to 1 - 0.1 x 10^-5


@dataclass(frozen=True, slots=True)
class Edges:
    """Probability bins: their lower edges' probabilities `below` and, exactly, the mass above
    each edge `above` (1 - below, kept apart so the tail's small bins lose no digits)."""

    below: NDArray[np.float64]
    above: NDArray[np.float64]

    @property
    def mass(self) -> NDArray[np.float64]:
        half = self.below[1:] <= 0.5
        out: NDArray[np.float64] = np.where(half, np.diff(self.below), -np.diff(self.above))
        return out

    @property
    def mid(self) -> NDArray[np.float64]:
        """Each bin's middle probability."""
        out: NDArray[np.float64] = (self.below[:-1] + self.below[1:]) / 2
        return out


def tail_edges(body: int, per_decade: int) -> Edges:
    """`body` equal bins up to 0.9, `per_decade` geometric ones per decade of 1 - q down to
    1 - 1e-6, and the last bin up to 1."""
    tail = 0.1 * np.logspace(0, -TAIL_DECADES, TAIL_DECADES * per_decade + 1)[1:]
    low = np.linspace(0.0, 0.9, body + 1)
    return Edges(below=np.concatenate((low, 1 - tail, [1.0])),
                 above=np.concatenate((1 - low, tail, [0.0])))


OPERAND_EDGES = tail_edges(100, 10)  # each operand of a sum: 151 bins
KEEP_EDGES = tail_edges(200, 20)  # a sum, and the distributions built here: 301 bins
KEEP_MASS = KEEP_EDGES.mass
KEEP_MID = KEEP_EDGES.mid


@dataclass(frozen=True, slots=True)
class Dist:
    """A distribution as weighted points sorted by value (each the mean of a bin of probability)."""

    values: NDArray[np.float64]
    weights: NDArray[np.float64]
    # The mean carried exactly through sums, mixtures and shifts (points built from a formula,
    # an exponential's or a log-normal's, need not average to it).
    exact_mean: float | None = None

    def quantile(self, q: float) -> float:
        """Interpolated between neighbouring points, so a small change in the weights moves a
        percentile a little instead of flipping it across a gap."""
        return float(self.quantiles(q))

    def quantiles(self, qs: "float | NDArray[np.float64]") -> NDArray[np.float64]:
        """`quantile` at each of `qs`."""
        cum = np.cumsum(self.weights)
        cum /= cum[-1]
        mid = cum - self.weights / self.weights.sum() / 2  # each point at its mass's centre
        out: NDArray[np.float64] = np.asarray(np.interp(qs, mid, self.values))
        return out

    @property
    def mean(self) -> float:
        if self.exact_mean is not None:
            return self.exact_mean
        return float(np.dot(self.values, self.weights) / self.weights.sum())

    def shifted(self, by: float) -> "Dist":
        return Dist(self.values + by, self.weights, self.mean + by)


def grid() -> NDArray[np.float64]:
    return (np.arange(GRID) + 0.5) / GRID


@lru_cache(maxsize=1)
def normal_mid() -> NDArray[np.float64]:
    """Standard normal quantiles at KEEP_EDGES' bins' middles."""
    from statistics import NormalDist

    return np.array([NormalDist().inv_cdf(x) for x in KEEP_MID])


def mixture(parts: list[tuple[float, Dist]]) -> Dist:
    values = np.concatenate([d.values for _, d in parts])
    weights = np.concatenate([p * d.weights / d.weights.sum() for p, d in parts])
    order = np.argsort(values, kind="stable")
    total = sum(p for p, _ in parts)
    mean = sum(p * d.mean for p, d in parts) / total if total > 0 else None
    return Dist(values[order], weights[order], mean)


ZERO = Dist(np.array([0.0]), np.array([1.0]))


def repeat(d: Dist, count: float) -> Dist:
    """Sum of `count` independent copies (a fractional part is present with that chance)."""
    whole, frac = int(count), count - int(count)
    out, power, n = ZERO, d, whole
    while n:  # binary powers: log2(count) convolutions
        if n & 1:
            out = convolve(out, power)
        n >>= 1
        if n:
            power = convolve(power, power)
    if frac > 1e-9:
        out = mixture([(1 - frac, out), (frac, convolve(out, d))])
    return out


def gamma(mean: float, var: float) -> Dist:
    """Gamma distribution with this mean and variance on the quantile grid (Wilson-Hilferty)."""
    if mean < 1e-9 or var < 1e-18:
        return Dist(np.array([mean]), np.array([1.0]))
    k = min(mean * mean / var, 1e6)
    scale = var / mean
    z = normal_mid()
    c = 1 - 1 / (9 * k) + z * math.sqrt(1 / (9 * k))
    values = np.maximum(0.0, k * scale * c**3)
    return Dist(values, KEEP_MASS.copy(), mean)


def bin_sorted(values: NDArray[np.float64], weights: NDArray[np.float64],
               edges: Edges) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(values, masses) of points sorted by value, merged into the probability bins `edges`:
    each bin's value is the mean of the quantile function over it (the integral of the
    quantile function is piecewise linear between the points' cumulative weights), so the mean
    is kept exactly. The bins below the median are integrated from the bottom, the others from
    the top, so a tail bin of 1e-7 is the difference of two small integrals, not of two large
    ones (which left its mean 1e-9 off, enough for tied points in another order to move it)."""
    keep = weights > 0
    v, w = values[keep], weights[keep]
    total = float(w.sum())
    wv = w * v
    up_w = np.concatenate(([0.0], np.cumsum(w))) / total
    up_v = np.concatenate(([0.0], np.cumsum(wv))) / total
    down_w = np.concatenate(([0.0], np.cumsum(w[::-1]))) / total
    down_v = np.concatenate(([0.0], np.cumsum(wv[::-1]))) / total
    from_bottom = np.interp(edges.below, up_w, up_v)
    from_top = np.interp(edges.above, down_w, down_v)
    half = edges.below[1:] <= 0.5
    mass = edges.mass
    inside = np.where(half, np.diff(from_bottom), -np.diff(from_top))
    return np.maximum.accumulate(inside / mass), mass


def bin_rows(values: NDArray[np.float64], weights: NDArray[np.float64],
             edges: Edges) -> NDArray[np.float64]:
    """`bin_sorted`'s values for each row of `weights` (rows x points, over the same sorted
    `values`), at once: the rows' running sums are laid end to end, each row 2 further on, so
    one interpolation reads them all."""
    rows = weights.shape[0]
    w = weights / weights.sum(axis=1, keepdims=True)
    wv = w * values[None, :]
    shift = 2.0 * np.arange(rows)[:, None]
    zero = np.zeros((rows, 1))

    def integral(ws: NDArray[np.float64], wvs: NDArray[np.float64],
                 at: NDArray[np.float64]) -> NDArray[np.float64]:
        cw = np.concatenate((zero, np.cumsum(ws, axis=1)), axis=1) + shift
        cv = np.concatenate((zero, np.cumsum(wvs, axis=1)), axis=1)
        out: NDArray[np.float64] = np.interp((at[None, :] + shift).ravel(), cw.ravel(),
                                             cv.ravel()).reshape(rows, -1)
        return out

    from_bottom = integral(w, wv, edges.below)
    from_top = integral(w[:, ::-1], wv[:, ::-1], edges.above)
    half = edges.below[1:] <= 0.5
    inside = np.where(half, np.diff(from_bottom, axis=1), -np.diff(from_top, axis=1))
    out: NDArray[np.float64] = np.maximum.accumulate(inside / edges.mass, axis=1)
    return out


def binned(d: Dist) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(values, masses) of d on OPERAND_EDGES' bins (`bin_sorted`)."""
    v, w = d.values, d.weights
    if v.size > 1 and bool(np.any(v[1:] < v[:-1])):
        order = np.argsort(v, kind="stable")
        v, w = v[order], w[order]
    return bin_sorted(v, w, OPERAND_EDGES)


# Sums already taken, by their operands' points: a sizing takes the same sum many times over (the
# same device's service times summed for candidates that differ only in their instance, a knee's
# probes that leave a class's I/Os as they were): 2,465 sums of 369 distinct operand pairs in
# `size --data-gb 500 --p99-ms 5`, 319 of 91 in the main job. Bounded: cleared when full.
_SUMS: Memo[bytes, tuple[NDArray[np.float64], NDArray[np.float64]]] = Memo(4096)  # ~5 KB each


def convolve(a: Dist, b: Dist) -> Dist:
    """Distribution of the sum of independent draws from a and b (each on OPERAND_EDGES' bins,
    the sum kept on KEEP_EDGES')."""
    if a.values.size == 1:
        return b.shifted(float(a.values[0]))
    if b.values.size == 1:
        return a.shifted(float(b.values[0]))
    h = hashlib.blake2b(digest_size=20)
    for arr in (a.values, a.weights, b.values, b.weights):
        h.update(np.ascontiguousarray(arr, dtype=np.float64).tobytes())
        h.update(b"|")
    values, mass = _SUMS.kept(h.digest(), lambda: _summed(a, b))
    return Dist(values, mass, a.mean + b.mean)


def _summed(a: Dist, b: Dist) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(values, masses) of the sum of a and b on KEEP_EDGES' bins, read-only: shared by every
    sum of the same operands."""
    va, wa = binned(a)
    vb, wb = binned(b)
    sums = (va[:, None] + vb[None, :]).ravel()
    order = np.argsort(sums)  # ties: the bins' values do not depend on their order
    values, mass = bin_sorted(sums[order], (wa[:, None] * wb[None, :]).ravel()[order], KEEP_EDGES)
    values.setflags(write=False)
    mass.setflags(write=False)
    return values, mass


def summary_ms(d: Dist) -> dict[str, float | None]:
    out: dict[str, float | None] = {k: round(d.quantile(q / 100) * 1000, 4)
                                    for k, q in PERCENTILES.items()}
    out["max"] = round(float(d.values[-1]) * 1000, 4)
    out["mean"] = round(d.mean * 1000, 4)
    return out


def empty_summary() -> dict[str, float | None]:
    return {**dict.fromkeys(PERCENTILES), "max": None, "mean": None}


Pmf = tuple[tuple[int, float], ...]  # (count, probability), counts increasing
MAX_PMF_POINTS = 48  # distinct counts kept of a count distribution (sums are convolutions)


def count_pmf(count: float, trials: int | None) -> Pmf:
    """The distribution of an I/O count: Binomial(trials, count / trials), or, without trials,
    `count` itself (a fractional part present with that chance, as `repeat` takes it)."""
    if count <= 0:
        return ((0, 1.0),)
    if trials is None or trials < count:
        whole, frac = int(count), count - int(count)
        return ((whole, 1.0),) if frac <= 1e-9 else ((whole, 1 - frac), (whole + 1, frac))
    p = min(1.0, count / trials)
    k = np.arange(trials + 1)
    # log pmf (lgamma keeps large trial counts finite)
    logc = np.array([math.lgamma(trials + 1) - math.lgamma(i + 1) - math.lgamma(trials - i + 1)
                     for i in k])
    with np.errstate(divide="ignore", invalid="ignore"):
        logp = logc + k * np.log(p) + (trials - k) * np.log1p(-p)
    pmf = np.exp(logp)
    pmf[~np.isfinite(pmf)] = 0.0
    if p >= 1.0:
        pmf = (k == trials).astype(np.float64)
    keep = pmf > 1e-9
    ks, ps = k[keep], pmf[keep] / pmf[keep].sum()
    if ks.size > MAX_PMF_POINTS:  # equal-mass groups, each at its own mean count
        edges = np.searchsorted(np.cumsum(ps), np.linspace(0, 1, MAX_PMF_POINTS + 1)[1:-1])
        out = []
        for part_k, part_p in zip(np.split(ks, edges), np.split(ps, edges), strict=True):
            if part_p.sum() > 0:
                out.append((round(float(np.dot(part_k, part_p) / part_p.sum())),
                            float(part_p.sum())))
        return tuple(out)
    return tuple((int(a), float(b)) for a, b in zip(ks, ps, strict=True))


def pmf_mean(pmf: Pmf) -> float:
    return sum(k * p for k, p in pmf)


def repeat_pmf(d: Dist, pmf: Pmf) -> Dist:
    """Sum of a random number (distributed as `pmf`) of independent copies of d."""
    if len(pmf) == 1:
        return repeat(d, pmf[0][0])
    parts: list[tuple[float, Dist]] = []
    k0 = pmf[0][0]
    acc, at = repeat(d, k0), k0
    for k, p in pmf:
        if k - at > 4:  # a gap (grouped counts): jump by binary powers
            acc, at = convolve(acc, repeat(d, k - at)), k
        while at < k:
            acc, at = convolve(acc, d), at + 1
        parts.append((p, acc))
    return mixture(parts)


def exponential(mean: float) -> Dist:
    """Exponential distribution with this mean on KEEP_EDGES' bins, each at its conditional
    mean: the integral of -log(1 - u) over a bin is F(1 - a) - F(1 - b), F(s) = s - s log s."""
    s = KEEP_EDGES.above
    f = s - s * np.log(np.where(s > 0, s, 1.0))
    return Dist(mean * -np.diff(f) / KEEP_MASS, KEEP_MASS.copy(), mean)


def atom_or(p: float, d: Dist) -> Dist:
    """0 with probability 1 - p, else a draw from d."""
    if p <= 0:
        return ZERO
    return mixture([(1 - p, ZERO), (p, d)]) if p < 1 else d
