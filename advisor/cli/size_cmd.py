"""`advisor size`: the cheapest instance + storage deployment that meets the SLO."""

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from advisor.cli.common import CatalogOpt, Format, FormatOpt, console, emit_json, load, usd
from advisor.cli.report_cmd import ReportOpt, SaveOpt
from advisor.errors import InvalidInput

HELP = """Recommend the cheapest instance + storage layout that meets your SLO.

  advisor size --tps 627 --reads 3.25

MySQL (default): --tps is all transactions/s, --reads the read transactions per write; writes
go to the master, reads to the replicas. The recommendation must keep transaction p99 <=
--p99-ms at tps x (1 + --headroom), sustained for --peak-hours a day, and fit --data-gb.
Aerospike: --workload aerospike --reads-per-sec N --writes-per-sec N --data-gb N
--replication-factor 2, judged by ACT's thresholds.

Exit codes: 0 recommendation found, 1 nothing meets the SLO (the closest candidates and what they
miss are printed), 2 bad input."""


def register(app: typer.Typer) -> None:
    app.command("size", help=HELP)(size)


def size(
    tps: Annotated[float, typer.Option(help="all transactions per second (mysql)")] = 627.0,
    reads: Annotated[float, typer.Option(help="read transactions per write transaction")] = 3.25,
    p99_ms: Annotated[float, typer.Option(help="SLO: transaction p99 latency bound (ms)")] = 10.0,
    data_gb: Annotated[float,
                       typer.Option(help="data size (GiB); layouts need data + 20 %")] = 100.0,
    replicas: Annotated[str, typer.Option(help="read replicas: 0, 1, 2 ... or auto")] = "1",
    workload: Annotated[str, typer.Option(help="mysql or aerospike")] = "mysql",
    headroom: Annotated[float, typer.Option(help="the knee must reach tps x (1 + headroom)")] = 0.3,
    peak_hours: Annotated[float, typer.Option(
        help="hours a day at peak: burst credits count only if they last that long (24 = "
        "sustained)")] = 24.0,
    allow_ephemeral: Annotated[bool, typer.Option(
        "--allow-ephemeral", help="allow instance store (only with >= 1 replica)")] = False,
    max_monthly_usd: Annotated[float | None, typer.Option(help="budget cap")] = None,
    region: Annotated[str | None, typer.Option(help="catalog region (built in: us-east-1)")] = None,
    io_profile: Annotated[Path | None, typer.Option(
        help="measured per-transaction I/O profile from advisor replay")] = None,
    reads_per_sec: Annotated[float, typer.Option(help="aerospike: client reads/s")] = 0.0,
    writes_per_sec: Annotated[float, typer.Option(help="aerospike: client writes/s")] = 0.0,
    record_bytes: Annotated[int, typer.Option(help="aerospike: record size")] = 1536,
    replication_factor: Annotated[int, typer.Option(help="aerospike: copies of each record")] = 2,
    explain: Annotated[bool, typer.Option("--explain", help="print how the search went")] = False,
    seed: Annotated[int, typer.Option(help="seed of the verifying event simulation")] = 1,
    fmt: FormatOpt = Format.table,
    out: Annotated[Path | None, typer.Option(help="also write the JSON result here")] = None,
    catalog: CatalogOpt = None,
    report: ReportOpt = None,
    save: SaveOpt = False,
) -> None:
    from recommend.request import SizeRequest
    from recommend.run import run_size

    if replicas == "auto":
        reps: int | None = None
    else:
        try:
            reps = int(replicas)
        except ValueError:
            raise InvalidInput(f"--replicas {replicas!r}: a whole number or auto") from None
    cat = load(catalog)
    if region is not None and region != cat.region:
        raise InvalidInput(f"--region {region}: the catalog holds {cat.region}; add a user catalog "
                           "with that region's prices (--catalog FILE)")
    req = SizeRequest(workload=workload, tps=tps, reads=reads, p99_ms=p99_ms,  # type: ignore[arg-type]
                      data_gb=data_gb, replicas=reps, headroom=headroom, peak_hours=peak_hours,
                      allow_ephemeral=allow_ephemeral, max_monthly_usd=max_monthly_usd,
                      region=region, reads_per_sec=reads_per_sec, writes_per_sec=writes_per_sec,
                      record_bytes=record_bytes, replication_factor=replication_factor, seed=seed)
    result = run_size(req, cat, io_profile_path=io_profile)
    if out is not None:
        from advisor.userfiles import write_json

        write_json(out, result)
    if fmt is Format.json:
        emit_json(result)
    else:
        print_size(result, explain=explain)
    if report is not None or save:
        from advisor.cli.report_cmd import after_result

        after_result("size", result["request"], result, report=report, save=save, catalog=cat)


def print_size(r: dict[str, Any], *, explain: bool = False) -> None:
    rec = r["recommendation"]
    slo = r["slo"]
    if r["workload"] == "mysql":
        q = r["request"]
        console.print(f"[bold]Sizing[/bold] MySQL {q['tps']:g} tps at {q['reads']:g} reads/write, "
                      f"{q['data_gb']:g} GiB, p99 <= {q['p99_ms']:g} ms with {q['headroom']:.0%} "
                      f"headroom (knee >= {slo['target_tps']:,.0f} tps), {slo['durability']}")
    table = Table(title="Recommendation", title_justify="left", show_header=False)
    table.add_column("what", style="bold", no_wrap=True)
    table.add_column("value", overflow="fold")
    table.add_row("deployment", rec["deployment"])
    table.add_row("monthly cost", f"{usd(rec['monthly_usd'])}" + _breakdown(rec))
    if "p99_ms" in rec:
        table.add_row("p99 at target", f"{rec['p99_ms']:,.2f} ms (at headroom load "
                      f"{rec['p99_ms_at_headroom']:,.2f} ms)")
    if "max_tps_at_slo" in rec:
        table.add_row("max tps at SLO", f"{rec['max_tps_at_slo']:,} (headroom "
                      f"{rec['headroom_pct']:,.0f} %)")
    if "act" in rec:
        table.add_row("ACT", rec["act"]["text"])
    table.add_row("bottleneck", rec["bottleneck"])
    dur = rec["durability"]
    table.add_row("durability", "EPHEMERAL instance store" if dur["ephemeral"] else "EBS")
    console.print(table)
    for note in dur["notes"]:
        console.print(f"  · {note}")
    if "act" in rec and rec["act"].get("slices"):
        from advisor.cli.simulate_db import print_act_slices

        print_act_slices(rec["act"]["slices"], "ACT per time slice at the headroom load (% of "
                         "small reads over each threshold; passes below 5 / 1 / 0.1)")
    if r["alternatives"]:
        alt = Table(title="Alternatives", title_justify="left")
        for col in ("why", "deployment", "$/month", "max tps"):
            alt.add_column(col, overflow="fold")
        for a in r["alternatives"]:
            alt.add_row(a["why"], a["deployment"], f"{a['monthly_usd']:,.2f}",
                        f"{a.get('max_tps_at_slo', '-'):,}" if "max_tps_at_slo" in a else "-")
        console.print(alt)
    if r["rejected"]:
        rej = Table(title=f"Cheaper candidates rejected ({r['rejected_total']:,} in all; the "
                    "cheapest shown)", title_justify="left")
        rej.add_column("candidate", overflow="fold")
        rej.add_column("$/month", justify="right")
        rej.add_column("why not", overflow="fold")
        for x in r["rejected"][:8]:
            rej.add_row(x["deployment"], f"{x['monthly_usd']:,.2f}", x["reason"])
        console.print(rej)
    if explain:
        s = r["search"]
        console.print(f"[bold]Search:[/bold] {s['considered']:,} candidates considered, "
                      f"{s['pruned']:,} pruned by hard limits, {s['screened']:,} screened "
                      f"(analytic), {s['verified']:,} verified (event simulation) in "
                      f"{s['seconds']:.2f} s; catalog {r['catalog_version']}, seed {r['seed']}")


def _breakdown(rec: dict[str, Any]) -> str:
    c = rec.get("cost", {})
    if "master" in c:
        parts = [f"master {usd(c['master']['monthly_usd'])}"]
        if c.get("replica_each"):
            each = usd(c["replica_each"]["monthly_usd"])
            parts.append(f"{len(rec['replicas'])} x replica {each}")
        return " (" + " + ".join(parts) + ")"
    return ""
