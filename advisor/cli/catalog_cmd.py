"""`advisor catalog instances|volumes`: what the built-in (and user) catalog holds."""

from enum import Enum
from typing import Annotated

import typer

from advisor.catalog.describe import instances_filtered, instances_json, volumes_json
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
from advisor.errors import InvalidInput

catalog_app = typer.Typer(help="List the instance and volume types the advisor knows, with "
                          "prices and limits (us-east-1 built in; add your own with --catalog).",
                          no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(catalog_app, name="catalog")


class Arch(str, Enum):
    x86_64 = "x86_64"
    arm64 = "arm64"


FamilyOpt = Annotated[list[str] | None, typer.Option(
    "--family", help="only these families (repeat, or comma-separated: r7g,m7g)")]
ArchOpt = Annotated[Arch | None, typer.Option("--arch", help="only this architecture")]
MinMemoryOpt = Annotated[float, typer.Option("--min-memory-gib", min=0, max=1e9,
                                             help="only types with at least this much memory")]
MinVcpuOpt = Annotated[int, typer.Option("--min-vcpu", min=0, max=100_000,
                                         help="only types with at least this many vCPUs")]


@catalog_app.command("instances", help="Instance types: vCPU, memory, architecture, prices "
                     "(on-demand and the plans with a source), EBS caps, network, instance store; "
                     "--format json adds every figure's source.")
def instances(fmt: FormatOpt = Format.table, catalog: CatalogOpt = None,
              out: OutOpt = None, family: FamilyOpt = None, arch: ArchOpt = None,
              min_memory_gib: MinMemoryOpt = 0.0, min_vcpu: MinVcpuOpt = 0) -> None:
    cat = load(catalog)
    families = tuple(f.strip() for text in family or () for f in text.split(",") if f.strip())
    unknown = sorted(set(families) - {i.family for i in cat.instance_types.values()})
    if unknown:
        raise InvalidInput(f"--family: {', '.join(unknown)[:80]} not in the catalog (families: "
                           f"{', '.join(sorted({i.family for i in cat.instance_types.values()}))})")
    data = instances_json(cat, families=families, arch=arch.value if arch else None,
                          min_memory_gib=min_memory_gib, min_vcpu=min_vcpu)
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
                *(() if narrow else ("3yr\n$/month",)), "EBS IOPS\nbase/max",
                "EBS MB/s\nbase/max", *(() if narrow else ("net Gb/s\nbase/burst",))):
        num_column(table, col)
    text_column(table, "instance\nstore")
    for i in instances_filtered(cat, families=families, arch=arch.value if arch else None,
                                min_memory_gib=min_memory_gib, min_vcpu=min_vcpu):
        e = i.ebs
        store = "-"
        if i.store:  # narrow: NVMe, the usual kind, goes unsaid (the caption says so)
            kind = "" if narrow and i.store.kind == "nvme" else f" {i.store.kind.upper()}"
            store = f"{i.store.count}x{i.store.size_gb:g}{kind}"
        ri3 = i.plan_usd("3yr-reserved")
        net = (f"{i.network_baseline_gbps:g}/{i.network_burst_gbps or i.network_baseline_gbps:g}"
               if i.network_baseline_gbps is not None else "n/a")
        table.add_row(i.name, *(() if narrow else (i.arch,)), str(i.vcpu), f"{i.memory_gib:g}",
                      *(() if narrow else (f"{i.hourly_usd:.4g}",)),
                      f"{i.hourly_usd * 730:,.2f}",
                      *(() if narrow else (f"{ri3 * 730:,.2f}" if ri3 is not None else "-",)),
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
