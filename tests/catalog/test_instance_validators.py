"""A user catalog's instance entry is checked where it is read: network burst >= baseline, plan
prices only for known plans and never negative (issue 14)."""

import json
from typing import Any

import pytest

from advisor.catalog import builtin_catalog, extend_catalog
from advisor.catalog.pricing import with_plan
from advisor.errors import CatalogError

ENTRY: dict[str, Any] = {
    "name": "m7a.large", "vcpu": 2, "memory_gib": 8, "hourly_usd": 0.1008, "nitro": True,
    "ebs": {"optimization": "default", "baseline_mbps": 650, "max_mbps": 10000,
            "baseline_mbs": 81.25, "max_mbs": 1250, "baseline_iops": 3600, "max_iops": 40000,
            "burst": True},
}


def _read(**changes: Any) -> None:
    text = json.dumps({"schema_version": 1, "instance_types": [{**ENTRY, **changes}]})
    extend_catalog(builtin_catalog(), "private.json", text)


@pytest.mark.parametrize(("changes", "message"), [
    ({"network_baseline_gbps": 12.5, "network_burst_gbps": 0.78},
     "field (entry): Value error, network_burst_gbps 0.78 is below network_baseline_gbps 12.5"),
    ({"network_burst_gbps": 12.5},
     "field (entry): Value error, network_burst_gbps without network_baseline_gbps"),
    ({"plan_hourly_usd": {"2yr-reserved": 0.05}}, "field plan_hourly_usd.2yr-reserved.[key]: "),
    ({"plan_hourly_usd": {"3yr-reserved": -0.01}}, "field plan_hourly_usd.3yr-reserved: "),
])
def test_bad_instance_entries_are_refused_naming_the_field(changes: dict[str, Any],
                                                            message: str) -> None:
    """One line naming the file, the entry and the field."""
    with pytest.raises(CatalogError) as err:
        _read(**changes)
    assert str(err.value).startswith(f"private.json: instance type m7a.large: {message}")


def test_a_user_plan_price_is_used_under_its_plan() -> None:
    """A private 3yr-reserved price (with its own source tag) prices the type under the plan."""
    text = json.dumps({"schema_version": 1, "instance_types": [{
        **ENTRY, "plan_hourly_usd": {"3yr-reserved": 0.04},
        "sources": {"plan_hourly_usd.3yr-reserved": "private RI quote"}}]})
    cat = with_plan(extend_catalog(builtin_catalog(), "private.json", text), "3yr-reserved")
    mine = cat.instance_types["m7a.large"]
    assert (mine.hourly_usd, mine.sources["hourly_usd"]) == (0.04, "private RI quote")
