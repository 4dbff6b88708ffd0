"""`advisor catalog instances|volumes`: what the built-in (and user) catalog holds."""

from typing import Any

import typer

from advisor.catalog.describe import (
    InstanceFilter,
    instances_filtered,
    instances_json,
    volumes_json,
)
from advisor.catalog.model import VolumeType
from advisor.cli.common import (
    CatalogOpt,
    Format,
    FormatOpt,
    OutOpt,
    console,
    emit_csv,
    emit_json,
    is_narrow,
    load,
    new_table,
    num_column,
    text_column,
    write_out,
)
from advisor.cli.options import fixed, with_options
from advisor.options import declared

catalog_app = typer.Typer(help="List the instance and volume types the advisor knows, with "
                          "prices and limits (us-east-1 built in; add your own with --catalog).",
                          no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(catalog_app, name="catalog")


# --family, --arch, --min-memory-gib, --min-vcpu: generated from the filter's declarations,
# as GET /v1/catalog/instances's query parameters are.
@catalog_app.command("instances", help="Instance types: vCPU, memory, architecture, prices "
                     "(on-demand and the plans with a source), EBS caps, network, instance store; "
                     "--format json adds every figure's source.")
@with_options(declared(InstanceFilter), fixed("fmt", FormatOpt, Format.table),
              fixed("catalog", CatalogOpt, None), fixed("out", OutOpt, None))
def instances(*, fmt: Format, catalog: Any, out: Any, **filters: Any) -> None:
    flt = InstanceFilter(**filters)
    cat = load(catalog)
    data = instances_json(cat, flt)
    write_out(out, data)
    if fmt is Format.json:
        emit_json(data)
        return
    if fmt is Format.csv:
        emit_csv(data["instances"])
        return
    narrow = is_narrow()
    table = new_table(f"Instance types ({cat.region}, catalog {cat.catalog_version})",
                      caption="EBS base/max: sustained/burst limits; * bursts to max 30 min a "
                      "day" + ("; store: count x GB, NVMe unless marked; $/h and more: --format csv"
                                 if narrow else ""))
    text_column(table, "instance")
    if not narrow:
        text_column(table, "arch")
    for col in ("vCPU", "GiB", *(() if narrow else ("$/h",)), "$/month",
                *(() if narrow else ("1yr\n$/month", "3yr\n$/month")), "EBS IOPS\nbase/max",
                "EBS MB/s\nbase/max", *(() if narrow else ("net Gb/s\nbase/burst",))):
        num_column(table, col)
    text_column(table, "instance\nstore")
    for i in instances_filtered(cat, flt):
        e = i.ebs
        store = "-"
        if i.store:  # narrow: NVMe, the usual kind, goes unsaid (the caption says so)
            kind = "" if narrow and i.store.kind == "nvme" else f" {i.store.kind.upper()}"
            store = f"{i.store.count}x{i.store.size_gb:g}{kind}"
        plans = tuple(f"{usd * 730:,.2f}" if (usd := i.plan_usd(p)) is not None else "-"
                      for p in ("1yr-reserved", "3yr-reserved"))
        net = (f"{i.network_baseline_gbps:g}/{i.network_burst_gbps or i.network_baseline_gbps:g}"
               if i.network_baseline_gbps is not None else "n/a")
        table.add_row(i.name, *(() if narrow else (i.arch,)), str(i.vcpu), f"{i.memory_gib:g}",
                      *(() if narrow else (f"{i.hourly_usd:.4g}",)),
                      f"{i.hourly_usd * 730:,.2f}",
                      *(() if narrow else plans),
                      (f"{e.baseline_iops:,.0f}/{e.max_iops:,.0f}" + ("*" if e.burst else ""))
                      if e else "no EBS-opt.",
                      f"{e.baseline_mbs:,.0f}/{e.max_mbs:,.0f}" if e else "-",
                      *(() if narrow else (net,)), store)
    console.print(table)


@catalog_app.command("volumes", help="EBS volume types: sizes, IOPS and throughput rules, prices, "
                     "durability.")
def volumes(fmt: FormatOpt = Format.table, catalog: CatalogOpt = None,
            out: OutOpt = None) -> None:
    cat = load(catalog)
    data = volumes_json(cat)
    write_out(out, data)
    if fmt is Format.json:
        emit_json(data)
        return
    if fmt is Format.csv:
        emit_csv(data["volumes"])
        return
    rows = list(cat.volume_types.values())
    table = new_table(f"EBS volume types ({cat.region}, catalog {cat.catalog_version})",
                      caption="IOPS price: $ per provisioned IOPS-month up to each tier")
    text_column(table, "type")
    text_column(table, "media")
    num_column(table, "size GiB")
    text_column(table, "IOPS", wrap=True)
    for col in ("max\nMiB/s", "$/GiB\n-month"):
        num_column(table, col)
    text_column(table, "IOPS price", wrap=True)
    num_column(table, "AFR")
    for v in rows:
        table.add_row(v.name, v.media.upper(), f"{v.min_size_gib:,}-{v.max_size_gib:,}",
                      _iops_rule(v), f"{v.max_mibps:,.0f}",
                      f"{v.storage_usd_per_gib_month:g}",
                      "\n".join(f"${p:g} to {u:,}" for u, p in v.iops_usd_tiers) or "-",
                      f"{v.annual_failure_rate:.3%}" if v.annual_failure_rate is not None
                      else "n/a")
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
