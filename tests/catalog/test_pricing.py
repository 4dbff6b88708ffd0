"""Pricing plans: a catalog priced under a plan, the cost breakdown naming it, and the
`--pricing` option on layout and size (issue 14)."""

import json
from dataclasses import replace

import pytest

from advisor.catalog import builtin_catalog
from advisor.catalog.pricing import dropped_for_plan, with_plan
from advisor.cli.main import main
from advisor.errors import InvalidInput
from advisor.layout import resolve
from advisor.layout.cost import HOURS_PER_MONTH, layout_cost, monthly_usd
from advisor.options import FieldError
from recommend.request import size_request

CATALOG = builtin_catalog()


def test_3yr_reserved_prices_every_instance_at_its_plan_rate() -> None:
    """Under 3yr-reserved an instance's hourly price is its plan rate, sourced [S33]."""
    priced = with_plan(CATALOG, "3yr-reserved")
    m5 = priced.instance_types["m5.large"]
    assert m5.hourly_usd == CATALOG.instance_types["m5.large"].plan_hourly_usd["3yr-reserved"]
    assert m5.pricing_plan == "3yr-reserved"
    assert m5.sources["hourly_usd"] == "S33"
    assert with_plan(CATALOG, "on-demand") is CATALOG


def test_layout_cost_names_the_plan_and_only_the_instance_changes() -> None:
    """The breakdown's instance line names the plan; the EBS lines are the same under both."""
    spec = "r7g.large:gp3:200GiB:6000iops"
    od = layout_cost(resolve(spec, CATALOG))
    ri = layout_cost(resolve(spec, with_plan(CATALOG, "3yr-reserved")))
    assert od.items[0].item == "r7g.large on-demand"
    assert ri.items[0].item == "r7g.large 3yr-reserved"
    assert ri.items[0].unit_usd == round(370.33 / 8760, 6)
    assert ri.instance_usd == pytest.approx(ri.items[0].unit_usd * HOURS_PER_MONTH)
    assert ri.items[1:] == od.items[1:]
    assert ri.storage_usd == od.storage_usd
    assert ri.monthly_usd < od.monthly_usd
    assert any("3yr-reserved" in n and "[S33]" in n for n in ri.notes)
    assert monthly_usd(resolve(spec, with_plan(CATALOG, "3yr-reserved"))) == \
        pytest.approx(ri.monthly_usd)


def test_types_without_a_plan_price_are_left_out_and_none_is_an_error() -> None:
    """A type with no sourced plan price is dropped under that plan; a plan no type has is
    refused in one line."""
    m5 = CATALOG.instance_types["m5.large"]
    cat = replace(CATALOG, instance_types={**CATALOG.instance_types,
                                           "m5.large": replace(m5, plan_hourly_usd={})})
    assert dropped_for_plan(cat, "3yr-reserved") == ("m5.large",)
    assert "m5.large" not in with_plan(cat, "3yr-reserved").instance_types
    with pytest.raises(InvalidInput, match=r"^pricing 1yr-reserved: no instance type in the "
                       r"catalog has a sourced 1yr-reserved price"):
        with_plan(CATALOG, "1yr-reserved")


def test_an_unsourced_price_is_marked_in_the_breakdown() -> None:
    """A price tagged unverified says so in the cost notes."""
    m5 = CATALOG.instance_types["m5.large"]
    cat = replace(CATALOG, instance_types={"m5.large": replace(
        m5, sources={**m5.sources, "hourly_usd": "unverified (user figure)"})})
    notes = layout_cost(resolve("m5.large:gp3:100GiB", cat)).notes
    assert "m5.large's on-demand price is unverified (no source)" in notes


def test_size_request_offers_only_the_sourced_plans() -> None:
    """--pricing takes on-demand or 3yr-reserved; 1yr-reserved has no source and is refused."""
    assert size_request({"workload": "mysql", "pricing": "3yr-reserved"}).pricing == \
        "3yr-reserved"
    assert size_request({"workload": "mysql"}).pricing == "on-demand"
    with pytest.raises(FieldError, match="pricing"):
        size_request({"workload": "mysql", "pricing": "1yr-reserved"})


def test_layout_cli_pricing(capsys: pytest.CaptureFixture[str]) -> None:
    """`advisor layout SPEC --pricing 3yr-reserved -f json`: the plan in the cost items."""
    assert main(["layout", "m6g.large:gp3:100GiB", "--pricing", "3yr-reserved", "-f",
                 "json"]) == 0
    cost = json.loads(capsys.readouterr().out)["cost"]
    assert cost["items"][0]["item"] == "m6g.large 3yr-reserved"
    assert cost["instance_usd"] == pytest.approx(
        CATALOG.instance_types["m6g.large"].plan_hourly_usd["3yr-reserved"] * 730, abs=0.01)


def test_api_layout_pricing() -> None:
    """GET /v1/layouts/SPEC?pricing=3yr-reserved prices the instance as the CLI does; a plan
    without a source is a 422."""
    from starlette.testclient import TestClient

    from api.app import create_app

    client = TestClient(create_app())
    ok = client.get("/v1/layouts/m6g.large:gp3:100GiB", params={"pricing": "3yr-reserved"})
    assert ok.status_code == 200
    assert ok.json()["cost"]["items"][0]["item"] == "m6g.large 3yr-reserved"
    bad = client.get("/v1/layouts/m6g.large:gp3:100GiB", params={"pricing": "1yr-reserved"})
    assert bad.status_code == 422


def test_unsourced_instance_figures_are_named_in_the_answer() -> None:
    """An instance whose EBS limits or memory carry no source: the cost notes of any layout on
    it say which figures are unverified; the built-in types have none."""
    m5 = CATALOG.instance_types["m5.large"]
    tags = {k: v for k, v in m5.sources.items() if k not in ("ebs", "memory_gib")}
    cat = replace(CATALOG, instance_types={"m5.large": replace(m5, sources=tags)})
    notes = layout_cost(resolve("m5.large:gp3:100GiB", cat)).notes
    assert "m5.large's memory_gib, ebs figures are unverified (no source)" in notes
    for name in ("m5.large", "r7g.large", "i4g.large", "c1.medium"):
        spec = f"{name}:store" if name == "c1.medium" else f"{name}:gp3:100GiB"
        assert not any("unverified" in n for n in layout_cost(resolve(spec, CATALOG)).notes)
