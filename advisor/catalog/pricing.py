"""Pricing plans: the catalog with every instance priced under one plan (on-demand, 3-yr reserved).

A sizing or a layout under a plan uses the catalog this returns: its instance types' `hourly_usd`
is the plan's effective hourly rate, `pricing_plan` names the plan (the cost breakdown shows it)
and `sources["hourly_usd"]` the plan price's source. Types with no sourced price under the plan
are left out (a sizing cannot rank what it cannot price). EBS prices do not change with the plan.
"""

from dataclasses import replace

from advisor.catalog.model import Catalog, InstanceType, PricingPlan
from advisor.errors import InvalidInput


def _priced(i: InstanceType, plan: PricingPlan) -> InstanceType | None:
    usd = i.plan_usd(plan)
    if usd is None:
        return None
    tag = i.plan_source(plan) or "unverified (no source tag)"
    return replace(i, hourly_usd=usd, pricing_plan=plan, sources={**i.sources, "hourly_usd": tag})


def with_plan(catalog: Catalog, plan: PricingPlan) -> Catalog:
    """`catalog` with every instance type priced under `plan` (those without a price dropped)."""
    if all(i.pricing_plan == plan for i in catalog.instance_types.values()):
        return catalog
    priced = {name: p for name, i in catalog.instance_types.items()
              if (p := _priced(i, plan)) is not None}
    if not priced:
        raise InvalidInput(f"pricing {plan}: no instance type in the catalog has a sourced "
                           f"{plan} price (add plan_hourly_usd with --catalog)")
    return replace(catalog, instance_types=priced)


def dropped_for_plan(catalog: Catalog, plan: PricingPlan) -> tuple[str, ...]:
    """Instance types `with_plan` leaves out: no sourced price under `plan`."""
    return tuple(sorted(n for n, i in catalog.instance_types.items() if i.plan_usd(plan) is None))
