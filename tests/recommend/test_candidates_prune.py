"""The search prunes by hard limits before any model runs: an instance type whose EBS layouts
another type matches or beats in every limit at no higher price is skipped (issue 14)."""

from dataclasses import replace

import pytest

from advisor.catalog import builtin_catalog
from advisor.catalog.model import Catalog, EbsLimits
from recommend import candidates
from recommend.candidates import Demand, _at_least, candidate_specs, ebs_dominated
from recommend.request import size_request
from recommend.run import run_size

CATALOG = builtin_catalog()
DEMAND = Demand(iops=3000, mibps=50, capacity_gib=120)


def test_every_dominated_type_has_an_undominated_type_at_least_as_good() -> None:
    """Skipping is safe: each skipped type has a kept one no dearer with every limit >= its."""
    dominated = ebs_dominated(CATALOG)
    kept = [i for i in CATALOG.instance_types.values() if i.ebs and i.name not in dominated]
    assert 0 < len(dominated) < len(CATALOG.instance_types)
    for name in dominated:
        x = CATALOG.instance_types[name]
        assert any(_at_least(y, x) for y in kept), name


def test_m5_large_gives_way_to_m6i_large_at_the_same_price() -> None:
    """m5.large and m6i.large cost $0.096/h alike; m6i.large's EBS maximum is 10,000 Mbps to
    m5.large's 4,750, the rest equal: m5.large is skipped, m6i.large kept. c5.large (the highest
    baseline IOPS at its price) is kept."""
    dominated = ebs_dominated(CATALOG)
    assert "m5.large" in dominated
    assert {"m6i.large", "c5.large"}.isdisjoint(dominated)


def test_a_lower_price_or_a_higher_limit_keeps_a_type() -> None:
    """One cent less, or one more IOPS of EBS baseline, and the type is no longer dominated."""
    m5 = CATALOG.instance_types["m5.large"]
    assert m5.ebs is not None
    for variant in (replace(m5, hourly_usd=m5.hourly_usd - 0.01),
                    replace(m5, ebs=replace(m5.ebs, baseline_iops=m5.ebs.baseline_iops + 1))):
        cat = replace(CATALOG, instance_types={**CATALOG.instance_types, "m5.large": variant})
        assert "m5.large" not in ebs_dominated(cat)


def test_equal_types_keep_the_first_by_name() -> None:
    """Two types equal in every figure: one is kept (the first by name), the other skipped."""
    twin = replace(CATALOG.instance_types["m6i.large"], name="m6z.large")
    cat = replace(CATALOG, instance_types={**CATALOG.instance_types, "m6z.large": twin})
    dominated = ebs_dominated(cat)
    assert "m6z.large" in dominated
    assert "m6i.large" not in dominated


def test_dominated_types_keep_their_instance_store_layouts() -> None:
    """i3.large's EBS layouts are dominated, its instance store is its own: still offered."""
    assert "i3.large" in ebs_dominated(CATALOG)
    specs = {str(s) for s in candidate_specs(CATALOG, DEMAND, ebs=True, store=True, min_vcpu=1)}
    assert "i3.large:store" in specs
    assert not any(s.startswith("i3.large:") and ":store" not in s for s in specs)


def test_no_ebs_optimization_is_never_a_dominator() -> None:
    """A type without EBS limits neither dominates nor is dominated (it is not sized on EBS)."""
    c1 = CATALOG.instance_types["c1.medium"]
    m6i = CATALOG.instance_types["m6i.large"]
    assert not _at_least(c1, m6i)
    assert not _at_least(m6i, c1)
    cheap = replace(m6i, name="zz.large", hourly_usd=0.001,
                    ebs=EbsLimits(optimization="optional", baseline_mbps=1e4, max_mbps=1e4,
                                  baseline_mbs=1250, max_mbs=1250, baseline_iops=1e5,
                                  max_iops=1e5, burst=False))
    assert not _at_least(cheap, m6i)  # optional EBS optimization bills an unpublished fee


def _size(catalog: Catalog) -> tuple[str, float]:
    req = size_request({"workload": "mysql", "tps": 627, "reads": 3.25})
    rec = run_size(req, catalog).recommendation
    return rec.deployment, rec.monthly_usd


@pytest.mark.slow
def test_pruning_does_not_change_the_price_of_the_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """The main job sized with and without the dominance prune costs the same per month (the
    pruned types can only tie, never undercut, what is kept)."""
    with_prune = _size(CATALOG)
    monkeypatch.setattr(candidates, "ebs_dominated", lambda catalog: frozenset())
    without = _size(CATALOG)
    assert with_prune[1] == without[1]
