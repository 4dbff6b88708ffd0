"""Monthly cost: instance hours at 730 h plus every volume's storage, IOPS and throughput."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from advisor.catalog import builtin_catalog
from advisor.layout import resolve
from advisor.layout.cost import HOURS_PER_MONTH, layout_cost, monthly_usd, tiered_iops_usd
from advisor.layout.describe import describe
from tests.layout.strategies import valid_layout_specs

CATALOG = builtin_catalog()


def cost_json(spec: str) -> dict:
    return describe(resolve(spec, CATALOG), CATALOG)["cost"]


def items(spec: str) -> list[tuple[str, float, float, float]]:
    """(item, quantity, unit price, USD) of every line of the layout's bill."""
    return [(i.item, i.quantity, i.unit_usd, round(i.monthly_usd, 4))
            for i in layout_cost(resolve(spec, CATALOG)).items]


def test_500_gib_gp2_costs_50_usd_a_month() -> None:
    """500 GiB gp2 at $0.10/GB-month = $50.00 of storage [S12][S14]."""
    assert cost_json("m5.large:gp2:500GiB")["storage_usd"] == 50.00
    assert items("m5.large:gp2:500GiB")[1:] == [("gp2 volume storage", 500, 0.10, 50.0)]


def test_gp3_with_extra_iops_and_throughput() -> None:
    """500 GiB gp3 with 4,015 IOPS and 250 MiB/s = $50.08 (storage + IOPS + MiB/s) [S12]."""
    spec = "m5.large:gp3:500GiB:4015iops:250mbps"
    assert cost_json(spec)["storage_usd"] == 50.08
    assert items(spec)[1:] == [
        ("gp3 volume storage", 500, 0.08, 40.0),  # $0.08/GB-month [S12]
        ("gp3 volume provisioned IOPS", 1015, 0.005, 5.075),  # above 3,000, $0.005 [S12]
        ("gp3 volume throughput above 125 MiB/s", 125, 0.04, 5.0),  # $0.04/MiB/s [S12]
    ]


def test_gp3_included_iops_and_throughput_are_free() -> None:
    """A gp3 at its included 3,000 IOPS and 125 MiB/s pays only for storage [S2][S12]."""
    assert items("m5.large:gp3:500GiB:3000iops:125mbps")[1:] == [
        ("gp3 volume storage", 500, 0.08, 40.0)]


def test_gp3_is_20_percent_cheaper_per_gib_than_gp2() -> None:
    """'20 percent lower price per GiB than gp2' [S2]: $0.08 vs $0.10 [S12]."""
    gp2 = cost_json("m5.large:gp2:1000GiB")["storage_usd"]
    gp3 = cost_json("m5.large:gp3:1000GiB")["storage_usd"]
    assert (gp2, gp3) == (100.0, 80.0)
    assert gp3 == pytest.approx(0.8 * gp2)


def test_io1_iops_are_priced_at_0_065() -> None:
    """io1: $0.125/GB-month storage and $0.065 per provisioned IOPS-month [S12][S14]."""
    spec = "m5.8xlarge:io1:1000GiB:50000iops"
    assert items(spec)[1:] == [("io1 volume storage", 1000, 0.125, 125.0),
                               ("io1 volume provisioned IOPS", 50000, 0.065, 3250.0)]
    assert cost_json(spec)["storage_usd"] == 3375.0


def test_io2_iops_are_priced_in_three_tiers() -> None:
    """io2 80,000 IOPS: 32,000 x 0.065 + 32,000 x 0.0455 + 16,000 x 0.03185 [S12][S29]."""
    spec = "m5.8xlarge:io2:100GiB:80000iops"
    assert items(spec)[1:] == [
        ("io2 volume storage", 100, 0.125, 12.5),
        ("io2 volume provisioned IOPS", 32000, 0.065, 2080.0),
        ("io2 volume provisioned IOPS", 32000, 0.0455, 1456.0),
        ("io2 volume provisioned IOPS", 16000, 0.03185, 509.6),
    ]
    assert cost_json(spec)["storage_usd"] == 4058.10


@pytest.mark.parametrize(("iops", "expected"), [
    (0, []),
    (100, [(100, 0.065)]),
    (32000, [(32000, 0.065)]),
    (32001, [(32000, 0.065), (1, 0.0455)]),
    (64000, [(32000, 0.065), (32000, 0.0455)]),
    (256000, [(32000, 0.065), (32000, 0.0455), (192000, 0.03185)]),
])
def test_io2_tiers_split_at_32000_and_64000(iops: int, expected: list) -> None:
    """io2 tiers: 0-32,000 $0.065, 32,001-64,000 $0.0455, above $0.03185 [S29]."""
    assert tiered_iops_usd(CATALOG.volume_types["io2"].iops_usd_tiers, iops) == expected


def test_instance_hours_are_730_a_month() -> None:
    """An instance costs its hourly price x 730 h: m5.large $0.096/h = $70.08 [S11]."""
    assert HOURS_PER_MONTH == 730
    got = cost_json("m5.large:gp2:500GiB")
    assert (got["instance_usd"], got["monthly_usd"]) == (70.08, 120.08)
    assert items("m5.large:gp2:500GiB")[0] == ("m5.large on-demand", 730, 0.096, 70.08)


def test_every_raid_member_is_billed() -> None:
    """Each volume of an array pays its own storage and IOPS [S9][S12]."""
    spec = "m5.8xlarge:raid10:4xgp3:500GiB:6000iops:250mbps"
    per_volume = 500 * 0.08 + 3000 * 0.005 + 125 * 0.04  # [S12]
    got = cost_json(spec)
    assert got["storage_usd"] == pytest.approx(4 * per_volume)  # $240
    assert got["instance_usd"] == pytest.approx(1.536 * 730)  # m5.8xlarge [S11]
    assert got["monthly_usd"] == pytest.approx(4 * per_volume + 1.536 * 730, abs=0.005)
    assert [i[0] for i in items(spec)[1:4]] == ["gp3 volume 1 storage",
                                                 "gp3 volume 1 provisioned IOPS",
                                                 "gp3 volume 1 throughput above 125 MiB/s"]
    assert len(items(spec)) == 1 + 4 * 3


def test_instance_store_is_included_in_the_instance_price() -> None:
    """m5d.large:store costs only the instance: $0.113 x 730 [S11]; store has no charge."""
    got = cost_json("m5d.large:store")
    assert got == {"monthly_usd": 82.49, "instance_usd": 82.49, "storage_usd": 0.0,
                   "items": got["items"],
                   "notes": ["instance store is included in the instance price"]}
    assert len(got["items"]) == 1


def test_magnetic_io_requests_and_optional_ebs_fee_are_noted_not_guessed() -> None:
    """Costs we cannot know are stated as notes: magnetic per-request fee [S12], m1.large's
    EBS-optimization fee (unsourced amount, facts §2.2)."""
    assert cost_json("m5.large:standard:100GiB")["notes"] == [
        "standard also bills $0.05 per million I/O requests (not included: depends on the "
        "workload)"]
    assert cost_json("m1.large:gp2:100GiB")["notes"] == [
        "m1.large bills an extra hourly fee for EBS optimization; its amount is not published "
        "in our sources and is not included"]


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_the_itemised_bill_and_the_ranking_total_are_one_price(data: st.DataObject) -> None:
    """The search ranks thousands of layouts by `monthly_usd` without building bills; the bill
    of any valid layout totals to exactly that figure, and its items add up to it too."""
    layout = resolve(data.draw(valid_layout_specs(CATALOG)), CATALOG)
    cost = layout_cost(layout)
    assert cost.monthly_usd == monthly_usd(layout)
    assert sum(i.monthly_usd for i in cost.items) == pytest.approx(cost.monthly_usd, rel=1e-12)
