"""The InnoDB buffer pool as an LRU cache of 16 KiB pages: which page accesses miss.

Che's approximation (Che, Tung and Wang, IEEE JSAC 2002; Fricker, Robert and Roberts, ITC 2012):
under independent accesses an LRU cache of C pages behaves as if each page stays for a
characteristic time T after its last access, with T solving  sum_i (1 - exp(-rate_i T)) = C;
page i then hits with probability 1 - exp(-rate_i T). Pages come in groups of equal rate: the
B-tree levels of each index (an internal node is touched by every lookup below it, so the top
levels stay cached first and a level is missed only when the index does not fit) and, for the
leaves, the bands of the access skew. InnoDB's midpoint insertion (old sublist, 37 %) protects the
pool from scans; it is not modelled (range scans here are short).
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

PAGE = 16384
FANOUT_ENTRY_BYTES = 28  # node-pointer record: key + child page number + header + slot (estimate)
FANOUT = PAGE * 15 / 16 / FANOUT_ENTRY_BYTES


@dataclass(frozen=True, slots=True)
class PageGroup:
    """`pages` pages, each accessed `rate` times per second; `key` names the group."""

    key: tuple[str, int, int]  # (index, level (0 = leaf), band)
    pages: float
    rate: float


def characteristic_time(groups: Sequence[PageGroup], cache_pages: float) -> float:
    """T of Che's approximation (inf when everything fits)."""
    total = sum(g.pages for g in groups if g.rate > 0)
    if total <= cache_pages:
        return math.inf

    def filled(t: float) -> float:
        return sum(g.pages * -math.expm1(-g.rate * t) for g in groups if g.rate > 0)

    lo, hi = 0.0, 1.0
    while filled(hi) < cache_pages:
        lo, hi = hi, hi * 4
        if hi > 1e30:
            return math.inf
    for _ in range(200):  # bisection in log space: the rates span many decades
        mid = math.sqrt(lo * hi) if lo > 0 else hi / 1e6
        if filled(mid) < cache_pages:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-9 * hi:
            break
    return (lo + hi) / 2


def hit_ratio(group: PageGroup, t: float) -> float:
    if math.isinf(t):
        return 1.0
    return -math.expm1(-group.rate * t)


def tree_groups(name: str, leaf_pages: float, lookups_per_s: float, leaf_accesses_per_s: float,
                bands: Sequence[tuple[float, float]]) -> list[PageGroup]:
    """The pages of one B-tree: each lookup touches one node per internal level (root included);
    leaves take the lookups plus any extra leaves of range scans; every level inherits the
    leaves' skew bands."""
    out = []
    level, pages = 0, max(leaf_pages, 1.0)
    while True:
        accesses = leaf_accesses_per_s if level == 0 else lookups_per_s
        for b, (rows_share, access_share) in enumerate(bands):
            n = pages * rows_share
            if n <= 0:
                continue
            out.append(PageGroup((name, level, b), n, accesses * access_share / max(n, 1e-12)))
        if pages <= 1.0:
            break
        pages = max(1.0, pages / FANOUT)
        level += 1
    return out


def tree_levels(leaf_pages: float) -> int:
    """Levels of a B-tree with this many leaves, the leaf level included."""
    return 1 + max(0, math.ceil(math.log(max(leaf_pages, 1.0)) / math.log(FANOUT)))
