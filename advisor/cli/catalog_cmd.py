"""`advisor catalog instances|volumes`: what the built-in (and user) catalog holds."""

import typer
from rich.table import Table

from advisor.catalog.describe import instances_json, instances_sorted, volumes_json
from advisor.catalog.model import VolumeType
from advisor.cli.common import CatalogOpt, Format, FormatOpt, console, emit_json, load

catalog_app = typer.Typer(help="List the instance and volume types the advisor knows, with "
                          "prices and limits (us-east-1 built in; add your own with --catalog).",
                          no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(catalog_app, name="catalog")


@catalog_app.command("instances", help="Instance types: vCPU, memory, price, EBS caps, "
                     "instance store.")
def instances(fmt: FormatOpt = Format.table, catalog: CatalogOpt = None) -> None:
    cat = load(catalog)
    if fmt is Format.json:
        emit_json(instances_json(cat))
        return
    rows = instances_sorted(cat)
    table = Table(title=f"Instance types ({cat.region}, catalog {cat.catalog_version})")
    for col in ("instance", "vCPU", "GiB", "$/h", "$/month", "EBS IOPS base/max",
                "EBS MB/s base/max", "burst", "instance store"):
        table.add_column(col, justify="left" if col in ("instance", "instance store") else "right",
                         no_wrap=col == "instance", overflow="fold")
    for i in rows:
        e = i.ebs
        store = (f"{i.store.count} x {i.store.size_gb:g} GB {i.store.kind.upper()}"
                 if i.store else "EBS only")
        table.add_row(i.name, str(i.vcpu), f"{i.memory_gib:g}", f"{i.hourly_usd:.4g}",
                      f"{i.hourly_usd * 730:,.2f}",
                      f"{e.baseline_iops:,.0f}/{e.max_iops:,.0f}" if e else "not EBS-optimized",
                      f"{e.baseline_mbs:,.2f}/{e.max_mbs:,.2f}" if e else "-",
                      ("30 min/day" if e.burst else "no") if e else "-", store)
    console.print(table)


@catalog_app.command("volumes", help="EBS volume types: sizes, IOPS and throughput rules, prices, "
                     "durability.")
def volumes(fmt: FormatOpt = Format.table, catalog: CatalogOpt = None) -> None:
    cat = load(catalog)
    if fmt is Format.json:
        emit_json(volumes_json(cat))
        return
    rows = list(cat.volume_types.values())
    table = Table(title=f"EBS volume types ({cat.region}, catalog {cat.catalog_version})")
    for col in ("type", "media", "size", "IOPS", "MiB/s", "$/GiB-month", "IOPS price", "AFR"):
        table.add_column(col, no_wrap=col == "type", overflow="fold")
    for v in rows:
        table.add_row(v.name, v.media.upper(), f"{v.min_size_gib:,}-{v.max_size_gib:,} GiB",
                      _iops_rule(v), f"up to {v.max_mibps:,.0f}",
                      f"{v.storage_usd_per_gib_month:g}",
                      ", ".join(f"${p:g} to {u:,}" for u, p in v.iops_usd_tiers) or "-",
                      f"{v.annual_failure_rate:.3%}" if v.annual_failure_rate is not None
                      else "not published")
    console.print(table)


def _iops_rule(v: VolumeType) -> str:
    if v.model == "gp2":
        return (f"{v.iops_per_gib:g}/GiB ({v.min_iops}-{v.max_iops:,}), burst {v.burst_iops:,}")
    if v.model == "gp3":
        return f"{v.included_iops:,} included, up to {v.max_iops:,} ({v.iops_per_gib:g}/GiB)"
    if v.model in ("io1", "io2"):
        return f"provisioned {v.min_iops}-{v.max_iops:,} ({v.iops_per_gib:g}/GiB)"
    if v.model == "throughput_credits":
        return f"{v.max_iops} (1 MiB I/O)"
    return f"~{v.typical_iops} average"
