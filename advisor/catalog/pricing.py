"""Pricing plans: the catalog with every instance priced under one plan (on-demand, 1- or 3-yr
reserved).

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


def unpriced_text(names: tuple[str, ...], plan: str) -> str:
    """The types a sizing under `plan` did not consider, in a few words: a family with several
    unpriced sizes is named once with their count ("r7i (7 sizes)")."""
    by_family: dict[str, list[str]] = {}
    for name in names:
        by_family.setdefault(name.split(".")[0], []).append(name)
    parts = [f"{family} ({len(sizes)} sizes)" if len(sizes) > 1 else sizes[0]
             for family, sizes in sorted(by_family.items())]
    return (f"{len(names)} instance type{'s' if len(names) != 1 else ''} with no sourced {plan} "
            f"price not considered: {', '.join(parts)}")


def require_plan_price(catalog: Catalog, plan: PricingPlan, name: str) -> None:
    """Refuse, in one line, to price `name` under `plan` when the catalog has the type but no
    sourced price for it under that plan (`with_plan` would leave it out, and the layout would
    then read as an unknown instance)."""
    i = catalog.instance_types.get(name)
    if i is not None and i.plan_usd(plan) is None:
        raise InvalidInput(f"pricing {plan}: {name} has no sourced {plan} price (use another "
                           "plan, or add plan_hourly_usd with --catalog)")
