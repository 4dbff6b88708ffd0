"""`advisor layout SPEC`: capacity, limits, cost and durability of one layout."""

from typing import Annotated, Any

import typer
from rich.table import Table

from advisor.cli.common import CatalogOpt, Format, FormatOpt, console, emit_json, load, usd

SPEC_HELP = ("INSTANCE[:RAID]:[Nx]DEVICE[:SIZE][:Niops][:Nmbps], e.g. m5d.large:gp2:385GiB, "
             "m5d.large:store, m5.8xlarge:raid10:4xgp3:500GiB:6000iops:250mbps")


def register(app: typer.Typer) -> None:
    app.command("layout", help="Show what a layout gives: usable capacity, every performance "
                "limit and which binds, monthly cost broken down, annual probability of data "
                f"loss.\n\nSPEC: {SPEC_HELP}")(layout)


def layout(spec: Annotated[str, typer.Argument(help=SPEC_HELP, show_default=False)],
           fmt: FormatOpt = Format.table, catalog: CatalogOpt = None) -> None:
    from advisor.layout import resolve
    from advisor.layout.describe import describe

    cat = load(catalog)
    data = describe(resolve(spec, cat), cat)
    if fmt is Format.json:
        emit_json(data)
        return
    print_layout(data)


def print_layout(d: dict[str, Any]) -> None:
    console.print(f"[bold]{d['spec']}[/bold]  usable {d['capacity_gib']:,.0f} GiB"
                  f"{' · [red]EPHEMERAL[/red]' if d['ephemeral'] else ''}"
                  f"  ·  {usd(d['cost']['monthly_usd'])}/month"
                  f"  ·  annual loss probability {d['annual_loss_probability']:.2e}")
    limits = Table(title="Limits", title_justify="left")
    for col in ("limit", "scope", "sustained", "burst", "credits"):
        limits.add_column(col)
    for lim in d["limits"]:
        if lim["name"] == "device capacity":
            limits.add_row("device capacity", "device",
                           f"{lim['read_iops']:,} read / {lim['write_iops']:,} write IOPS "
                           f"@{lim['rated_kib']} KiB", "-", "-")
            continue
        unit = " IOPS" if lim["unit"] == "iops" else " MiB/s"
        bucket = lim.get("bucket")
        limits.add_row(lim["name"], lim["scope"], f"{lim['sustained']:,.0f}{unit}"
                       + (f" (x{d['devices']} = {lim['array_sustained']:,.0f})"
                          if "array_sustained" in lim else ""),
                       f"{lim['burst']:,.0f}{unit}" if "burst" in lim else "-",
                       (f"{bucket['capacity']:,.0f} {bucket['unit']}; full burst "
                        f"{bucket['full_burst_s']:,} s" if bucket and bucket['full_burst_s']
                        else "-"))
    console.print(limits)
    cap = Table(title="Capacity (random I/O) and the limit that binds", title_justify="left")
    for col in ("I/O", "sustained IOPS", "MiB/s", "binds", "while credits last"):
        cap.add_column(col)
    for key, c in d["capacity"].items():
        cap.add_row(key.replace("_", " "), f"{c['iops']:,.0f}", f"{c['throughput_mibps']:,.1f}",
                    c["binding"], f"{c['burst_iops']:,.0f} IOPS ({c['burst_binding']})")
    console.print(cap)
    cost = Table(title="Monthly cost", title_justify="left")
    for col in ("item", "quantity", "unit price", "USD/month"):
        cost.add_column(col)
    for item in d["cost"]["items"]:
        cost.add_row(item["item"], f"{item['quantity']:,.0f} {item['unit']}",
                     f"${item['unit_usd']:g}", f"{item['monthly_usd']:,.2f}")
    cost.add_row("[bold]total[/bold]", "", "", f"[bold]{d['cost']['monthly_usd']:,.2f}[/bold]")
    console.print(cost)
    for note in [*d["cost"]["notes"], *d["durability_assumptions"], *d["warnings"]]:
        console.print(f"  · {note}")
