"""Pricing plans: a catalog priced under a plan, the cost breakdown naming it, and the
`--pricing` option on layout and size (issue 14)."""

import json
from dataclasses import replace

import pytest

from advisor.catalog import builtin_catalog
from advisor.catalog.model import OFFERED_PLANS
from advisor.catalog.pricing import (
    dropped_for_plan,
    require_plan_price,
    unpriced_text,
    with_plan,
)
from advisor.cli.main import main
from advisor.errors import InvalidInput
from advisor.layout import resolve
from advisor.layout.cost import HOURS_PER_MONTH, layout_cost, monthly_usd
from advisor.options import FieldError
from recommend.request import size_request
from recommend.result import MysqlDeployment

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
    with pytest.raises(InvalidInput, match=r"^pricing savings-plan: no instance type in the "
                       r"catalog has a sourced savings-plan price"):
        with_plan(CATALOG, "savings-plan")


def test_1yr_reserved_prices_the_s34_types_and_leaves_out_the_rest() -> None:
    """Under 1yr-reserved an instance costs its S34 rate; the 18 types S34 lacks (c7i, r7i,
    i4i.12xlarge, x2idn) are left out, named in one phrase; a layout on one is refused in one
    line instead of reading as an unknown instance."""
    priced = with_plan(CATALOG, "1yr-reserved")
    r7g = priced.instance_types["r7g.large"]
    assert (r7g.hourly_usd, r7g.pricing_plan, r7g.sources["hourly_usd"]) == \
        (0.066096, "1yr-reserved", "S34")
    dropped = dropped_for_plan(CATALOG, "1yr-reserved")
    assert len(dropped) == 18
    assert not set(dropped) & set(priced.instance_types)
    assert len(priced.instance_types) == len(CATALOG.instance_types) - 18
    assert unpriced_text(dropped, "1yr-reserved") == (
        "18 instance types with no sourced 1yr-reserved price not considered: c7i (7 sizes), "
        "i4i.12xlarge, r7i (7 sizes), x2idn (3 sizes)")
    require_plan_price(CATALOG, "1yr-reserved", "r7g.large")
    require_plan_price(CATALOG, "1yr-reserved", "z9.large")  # unknown: resolve says so
    with pytest.raises(InvalidInput, match=r"^pricing 1yr-reserved: r7i.large has no sourced "
                       r"1yr-reserved price \(use another plan"):
        require_plan_price(CATALOG, "1yr-reserved", "r7i.large")


def test_plans_order_the_instance_cost_and_leave_ebs_alone() -> None:
    """One layout under each plan: 3yr < 1yr < on-demand for the instance line, the EBS lines
    equal, the breakdown naming the plan and its source."""
    spec = "m7g.large:gp3:100GiB"
    costs = {p: layout_cost(resolve(spec, with_plan(CATALOG, p)))
             for p in ("on-demand", "1yr-reserved", "3yr-reserved")}
    assert costs["3yr-reserved"].instance_usd < costs["1yr-reserved"].instance_usd \
        < costs["on-demand"].instance_usd
    assert costs["1yr-reserved"].items[0].item == "m7g.large 1yr-reserved"
    assert costs["1yr-reserved"].items[1:] == costs["on-demand"].items[1:]
    assert any("1yr-reserved" in n and "[S34]" in n for n in costs["1yr-reserved"].notes)


def test_an_unsourced_price_is_marked_in_the_breakdown() -> None:
    """A price tagged unverified says so in the cost notes."""
    m5 = CATALOG.instance_types["m5.large"]
    cat = replace(CATALOG, instance_types={"m5.large": replace(
        m5, sources={**m5.sources, "hourly_usd": "unverified (user figure)"})})
    notes = layout_cost(resolve("m5.large:gp3:100GiB", cat)).notes
    assert "m5.large's on-demand price is unverified (no source)" in notes


def test_size_request_offers_only_the_sourced_plans() -> None:
    """--pricing takes on-demand, 1yr-reserved or 3yr-reserved; savings-plan has no per-type
    source and is refused."""
    for plan in ("1yr-reserved", "3yr-reserved"):
        assert size_request({"workload": "mysql", "pricing": plan}).pricing == plan
    assert size_request({"workload": "mysql"}).pricing == "on-demand"
    with pytest.raises(FieldError, match="pricing 'savings-plan': choose on-demand, "
                       "1yr-reserved or 3yr-reserved"):
        size_request({"workload": "mysql", "pricing": "savings-plan"})


def test_layout_cli_pricing(capsys: pytest.CaptureFixture[str]) -> None:
    """`advisor layout SPEC --pricing 3yr-reserved -f json`: the plan in the cost items."""
    assert main(["layout", "m6g.large:gp3:100GiB", "--pricing", "3yr-reserved", "-f",
                 "json"]) == 0
    cost = json.loads(capsys.readouterr().out)["cost"]
    assert cost["items"][0]["item"] == "m6g.large 3yr-reserved"
    assert cost["instance_usd"] == pytest.approx(
        CATALOG.instance_types["m6g.large"].plan_hourly_usd["3yr-reserved"] * 730, abs=0.01)
    assert main(["layout", "m6g.large:gp3:100GiB", "--pricing", "1yr-reserved", "-f",
                 "json"]) == 0
    cost = json.loads(capsys.readouterr().out)["cost"]
    assert cost["items"][0]["item"] == "m6g.large 1yr-reserved"
    assert main(["layout", "r7i.large:gp3:100GiB", "--pricing", "1yr-reserved"]) == 2
    err = capsys.readouterr().err
    assert err == ("error: pricing 1yr-reserved: r7i.large has no sourced 1yr-reserved price "
                   "(use another plan, or add plan_hourly_usd with --catalog)\n")


def test_api_layout_pricing() -> None:
    """GET /v1/layouts/SPEC?pricing=3yr-reserved prices the instance as the CLI does; a plan
    without a source is a 422."""
    from starlette.testclient import TestClient

    from api.app import create_app

    client = TestClient(create_app())
    ok = client.get("/v1/layouts/m6g.large:gp3:100GiB", params={"pricing": "3yr-reserved"})
    assert ok.status_code == 200
    assert ok.json()["cost"]["items"][0]["item"] == "m6g.large 3yr-reserved"
    one = client.get("/v1/layouts/m6g.large:gp3:100GiB", params={"pricing": "1yr-reserved"})
    assert one.status_code == 200
    assert one.json()["cost"]["items"][0]["item"] == "m6g.large 1yr-reserved"
    bad = client.get("/v1/layouts/m6g.large:gp3:100GiB", params={"pricing": "savings-plan"})
    assert bad.status_code == 422
    unpriced = client.get("/v1/layouts/r7i.large:gp3:100GiB", params={"pricing": "1yr-reserved"})
    assert unpriced.status_code == 422
    assert unpriced.json()["detail"].startswith("pricing 1yr-reserved: r7i.large has no sourced")


def test_api_plans_are_the_offered_plans() -> None:
    """The layout endpoint's `pricing` enum is the plans `--pricing` offers (declared twice:
    this test keeps them equal)."""
    from api.app import create_app

    schema = create_app().openapi()
    params = schema["paths"]["/v1/layouts/{spec}"]["get"]["parameters"]
    pricing = next(p for p in params if p["name"] == "pricing")
    assert tuple(pricing["schema"]["enum"]) == OFFERED_PLANS


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


@pytest.mark.slow
def test_size_under_1yr_reserved_names_the_types_it_left_out() -> None:
    """`advisor size --tps 627 --reads 3.25 --pricing 1yr-reserved`: the result lists the 18
    types with no 1yr-reserved price (none is recommended) and every server's instance is
    priced at its S34 rate, named in the breakdown."""
    from recommend.run import run_size

    req = size_request({"workload": "mysql", "tps": 627, "reads": 3.25,
                        "pricing": "1yr-reserved"})
    result = run_size(req, CATALOG)
    assert result.unpriced == dropped_for_plan(CATALOG, "1yr-reserved")
    assert len(result.unpriced) == 18
    rec = result.recommendation
    assert isinstance(rec, MysqlDeployment)
    assert not any(name in rec.deployment for name in result.unpriced)
    servers = [rec.cost.master, *([rec.cost.replica_each] if rec.cost.replica_each else [])]
    items = [i for server in servers for i in server.items if i.item.endswith(" 1yr-reserved")]
    assert len(items) == len(servers)
    for item in items:
        name = item.item.split()[0]
        assert item.unit_usd == CATALOG.instance_types[name].plan_hourly_usd["1yr-reserved"]
    # the HTML report's assumptions name the plan and the types left out (not "on-demand")
    from advisor.report.size_view import size_context

    prices = next(a for a in size_context(result, None)["assumptions"]
                  if a.startswith("Prices:"))
    assert prices.startswith("Prices: instances 1yr-reserved (All Upfront")
    assert prices.endswith("; 18 instance types with no sourced 1yr-reserved price not "
                           "considered: c7i (7 sizes), i4i.12xlarge, r7i (7 sizes), x2idn "
                           "(3 sizes).")
