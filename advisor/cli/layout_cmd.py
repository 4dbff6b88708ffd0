"""`advisor layout SPEC`: capacity, limits, cost and durability of one layout."""

from enum import Enum
from typing import Annotated, Any, cast

import typer

from advisor.catalog.model import LAYOUT_PRICING_HELP, OFFERED_PLANS, PricingPlan
from advisor.cli.common import (
    CatalogOpt,
    Format,
    FormatOpt,
    OutOpt,
    console,
    emit_csv,
    emit_json,
    load,
    new_table,
    num_column,
    text_column,
    usd,
    write_out,
)

SPEC_HELP = ("INSTANCE[:RAID]:[Nx]DEVICE[:SIZE][:Niops][:Nmbps], e.g. m5d.large:gp2:385GiB, "
             "m5d.large:store, m5.8xlarge:raid10:4xgp3:500GiB:6000iops:250mbps")


def register(app: typer.Typer) -> None:
    app.command("layout", help="Show what a layout gives: usable capacity, every performance "
                "limit and which binds, monthly cost broken down, annual probability of data "
                f"loss.\n\nSPEC: {SPEC_HELP}")(layout)


Pricing = Enum("Pricing", {p.replace("-", "_"): p for p in OFFERED_PLANS}, type=str)  # type: ignore[misc]
ON_DEMAND = Pricing("on-demand")
PricingOpt = Annotated[Pricing, typer.Option(
    "--pricing", case_sensitive=False, help=LAYOUT_PRICING_HELP)]


def layout(spec: Annotated[str, typer.Argument(help=SPEC_HELP, show_default=False)],
           fmt: FormatOpt = Format.table, catalog: CatalogOpt = None,
           out: OutOpt = None, pricing: PricingOpt = ON_DEMAND) -> None:
    from advisor.catalog.pricing import require_plan_price, with_plan
    from advisor.layout import resolve
    from advisor.layout.describe import describe
    from advisor.layout.spec import parse_spec

    plan = cast(PricingPlan, pricing.value)
    base = load(catalog)
    require_plan_price(base, plan, parse_spec(spec).instance)
    cat = with_plan(base, plan)
    data = describe(resolve(spec, cat), cat)
    write_out(out, data)
    if fmt is Format.json:
        emit_json(data)
        return
    if fmt is Format.csv:  # one row per limit; the whole description is in --format json
        emit_csv({"spec": data["spec"], **lim} for lim in data["limits"])
        return
    print_layout(data)


def print_layout(d: dict[str, Any]) -> None:
    console.print(f"[bold]{d['spec']}[/bold]  usable {d['capacity_gib']:,.0f} GiB"
                  f"{' · [red]EPHEMERAL[/red]' if d['ephemeral'] else ''}"
                  f"  ·  {usd(d['cost']['monthly_usd'])}/month"
                  f"  ·  annual loss probability {d['annual_loss_probability']:.2e}")
    array = any("array_sustained" in lim for lim in d["limits"])
    limits = new_table("Limits", title_justify="left")
    text_column(limits, "limit", wrap=True)
    text_column(limits, "scope")
    for col in ("sustained", *((f"x{d['devices']}\ndevices",) if array else ()), "burst",
                "full\nburst s"):
        num_column(limits, col)
    text_column(limits, "credits", wrap=True)
    for lim in d["limits"]:
        if lim["name"] == "device capacity":
            limits.add_row("device capacity", "device",
                           f"{lim['read_iops']:,} read IOPS\n{lim['write_iops']:,} write IOPS",
                           *(("",) if array else ()), "-", "-",
                           f"rated at {lim['rated_kib']} KiB")
            continue
        if "per_disk_iops" in lim:  # HDD instance store: no published IOPS, one seek at a time
            limits.add_row(lim["name"], lim["scope"], f"{lim['per_disk_iops']:,.0f} IOPS",
                           *((f"{lim['per_disk_iops'] * d['devices']:,.0f}",) if array else ()),
                           "-", "-", "per disk, one I/O at a time")
            continue
        unit = " IOPS" if lim["unit"] == "iops" else " MiB/s"
        bucket = lim.get("bucket")
        full = bucket["full_burst_s"] if bucket else None
        limits.add_row(lim["name"], lim["scope"], f"{lim['sustained']:,.0f}{unit}",
                       *((f"{lim['array_sustained']:,.0f}" if "array_sustained" in lim
                          else "-",) if array else ()),
                       f"{lim['burst']:,.0f}{unit}" if "burst" in lim else "-",
                       f"{full:,}" if full else "-",
                       f"{bucket['capacity']:,.0f} {bucket['unit']}" if full else "-")
    console.print(limits)
    cap = new_table("Capacity (random I/O) and the limit that binds", title_justify="left")
    text_column(cap, "I/O")
    num_column(cap, "IOPS")
    num_column(cap, "MiB/s")
    text_column(cap, "binds", wrap=True)
    num_column(cap, "burst\nIOPS")
    text_column(cap, "binds while credits last", wrap=True)
    for key, c in d["capacity"].items():
        cap.add_row(key.replace("_", " "), f"{c['iops']:,.0f}", f"{c['throughput_mibps']:,.1f}",
                    c["binding"], f"{c['burst_iops']:,.0f}", c["burst_binding"])
    console.print(cap)
    cost = new_table("Monthly cost", title_justify="left")
    text_column(cost, "item", wrap=True)
    for col in ("quantity", "unit $", "$/month"):
        num_column(cost, col)
    for item in d["cost"]["items"]:
        cost.add_row(item["item"], f"{item['quantity']:,.0f} {item['unit']}",
                     f"{item['unit_usd']:g}", f"{item['monthly_usd']:,.2f}")
    cost.add_row("[bold]total[/bold]", "", "", f"[bold]{d['cost']['monthly_usd']:,.2f}[/bold]")
    console.print(cost)
    for note in [*d["cost"]["notes"], *d["durability_assumptions"], *d["warnings"]]:
        console.print(f"  · {note}")
