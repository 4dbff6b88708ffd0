"""`advisor size`: the cheapest instance + storage deployment that meets the SLO."""

from pathlib import Path
from typing import Annotated, Any

import typer

from advisor.catalog.pricing import unpriced_text
from advisor.cli.common import (
    CatalogOpt,
    Format,
    FormatOpt,
    console,
    emit_csv,
    emit_json,
    err_console,
    load,
    new_table,
    num_column,
    text_column,
    usd,
)
from advisor.cli.options import fixed, with_options
from advisor.cli.report_cmd import ReportOpt, SaveOpt
from advisor.errors import InfeasibleSlo
from advisor.options import FieldError
from recommend.request import WORKLOAD, MysqlSizeRequest, size_fields, size_request
from recommend.result import (
    AerospikeCluster,
    AerospikeSizeResult,
    MysqlDeployment,
    MysqlSizeResult,
    SizeResult,
    variability_summary,
)

HELP = """Recommend the cheapest instance + storage layout that meets your SLO.

  advisor size --tps 627 --reads 3.25

MySQL (default): --tps is all transactions/s, --reads the read-only transactions per read-write
one; read-write transactions go to the master, read-only ones to the replicas. What one
transaction is comes from --preset (point-rw: a read is one point select, a write changes 4 rows;
sysbench-oltp-rw: sysbench's oltp_read_write transaction; tpcc-like...) and the shape options;
every answer states it. The recommendation must keep transaction p99 <=
--p99-ms at tps x (1 + --headroom), sustained for --peak-hours a day, and fit --data-gb.
Aerospike: --workload aerospike --reads-per-sec N --writes-per-sec N --data-gb N
--replication-factor 2, judged by ACT's thresholds.

--format csv prints the recommendation and the alternatives, one row each.

Exit codes: 0 recommendation found; 1 nothing meets the SLO (one line with the lowest p99 found;
--explain adds the closest candidates and what they miss); 2 bad input."""


def register(app: typer.Typer) -> None:
    app.command("size", help=HELP)(size)


@with_options(
    [WORKLOAD, *size_fields().values()],
    fixed("io_profile", Annotated[Path | None, typer.Option(
        help="measured per-transaction I/O profile from advisor replay")], None),
    fixed("from_mysql_status", Annotated[tuple[Path, Path] | None, typer.Option(
        metavar="BEFORE AFTER", help="two SHOW GLOBAL STATUS dumps of one server (mysql -e or "
        "mysqladmin extended-status): tps, reads, the server and a measured I/O profile from "
        "them; flags typed override")], None),
    fixed("from_cloudwatch", Annotated[Path | None, typer.Option(
        help="aws cloudwatch get-metric-data JSON (EBS Volume* or RDS Read/Write* metrics): "
        "storage layouts on --instance serving its p99 sample within --p99-ms (per I/O)")],
        None),
    fixed("instance", Annotated[str | None, typer.Option(
        help="with --from-cloudwatch: the instance type to size storage for")], None),
    fixed("current_layout", Annotated[str | None, typer.Option(
        help="with --from-cloudwatch: the layout in use, judged the same way (a layout spec)")],
        None),
    fixed("variables", Annotated[Path | None, typer.Option(
        help="SHOW VARIABLES of that server (with --from-mysql-status): its version and "
        "flush/io/redo/replica settings")], None),
    fixed("terraform", Annotated[Path | None, typer.Option(
        help="also write Terraform + cloud-init + my.cnf for the recommendation to this new "
        "directory (advisor export terraform --help)")], None),
    fixed("mycnf", Annotated[Path | None, typer.Option(
        help="also write the recommended master's my.cnf (the settings the model assumed)")],
        None),
    fixed("force", Annotated[bool, typer.Option("--force", help="--terraform may write into a "
                                                "directory that is not empty")], False),
    fixed("explain", Annotated[bool, typer.Option("--explain", help="print how the search "
                                                  "went")], False),
    fixed("fmt", FormatOpt, Format.table),
    fixed("out", Annotated[Path | None, typer.Option(help="also write the JSON result here")],
          None),
    fixed("catalog", CatalogOpt, None),
    fixed("report", ReportOpt, None),
    fixed("save", SaveOpt, False),
)
def size(*, io_profile: Path | None, from_mysql_status: tuple[Path, Path] | None,
         from_cloudwatch: Path | None, instance: str | None, current_layout: str | None,
         variables: Path | None, terraform: Path | None, mycnf: Path | None, force: bool,
         explain: bool, fmt: Format, out: Path | None, catalog: list[Path] | None,
         report: Path | None, save: bool, **options: Any) -> None:
    import time

    from advisor.serial import to_json
    from recommend.run import run_size

    if from_cloudwatch is not None:
        others = [f for f, v in (("--from-mysql-status", from_mysql_status), ("--terraform",
                  terraform), ("--mycnf", mycnf), ("--io-profile", io_profile),
                  ("--report", report)) if v is not None] + (["--save"] if save else [])
        if others:
            raise FieldError("from_cloudwatch", str(from_cloudwatch), f"sizes storage alone: "
                             f"not with {others[0]}")
        from advisor.cli.size_sources import size_from_cloudwatch

        size_from_cloudwatch(from_cloudwatch, instance=instance, current=current_layout,
                             options=options, fmt=fmt, catalog=catalog, out=out)
        return
    if instance is not None or current_layout is not None:
        raise FieldError("instance" if instance is not None else "current_layout",
                         instance or current_layout, "goes with --from-cloudwatch")
    status = None
    if from_mysql_status is not None:
        if io_profile is not None:
            raise FieldError("io_profile", str(io_profile), "--from-mysql-status measures the "
                             "I/O per transaction too: give one of them")
        from advisor.cli.size_sources import status_options

        options, status = status_options(from_mysql_status, variables, options)
    elif variables is not None:
        raise FieldError("variables", str(variables), "goes with --from-mysql-status")
    req = size_request(options)
    from advisor.cli.export_cmd import check_mycnf, check_terraform_dir
    from advisor.userfiles import check_output

    check_output(out, what="result")  # before the sizing, not after it
    check_output(report, what="report")
    check_terraform_dir(terraform, force=force)
    check_mycnf(mycnf)
    if (terraform or mycnf) and not isinstance(req, MysqlSizeRequest):
        raise FieldError("terraform" if terraform else "mycnf", str(terraform or mycnf),
                         "applies to the mysql workload only")
    cat = load(catalog)
    if req.region is not None and req.region != cat.region:
        raise FieldError("region", req.region, f"the catalog holds {cat.region}; add a user "
                         "catalog with that region's prices (--catalog FILE)")
    measured = profile = None
    if io_profile is not None:
        if not isinstance(req, MysqlSizeRequest):
            raise FieldError("io_profile", str(io_profile), "applies to the mysql workload only")
        from workloads.mysql import measured_io
        from workloads.real.io_profile_file import load_io_profile

        profile = load_io_profile(io_profile)
        measured = measured_io(profile)
    elif status is not None and status.profile is not None:
        from workloads.mysql import measured_io

        measured = measured_io(status.profile)
    from advisor.cli.progress import activity

    what = "MySQL" if isinstance(req, MysqlSizeRequest) else "Aerospike"
    from advisor.cli.verify_memo import verify_memo

    try:
        with activity(f"sizing {what}", "replica counts" if what == "MySQL"
                      else "cluster sizes") as tick, verify_memo(req.workload) as memo:
            result = run_size(req, cat, measured=measured, progress=tick,
                              clock=time.perf_counter, memo=memo,
                              measured_shape=None if profile is None else profile.shape)
    except InfeasibleSlo as exc:
        if explain:
            err_console.print(f"closest candidates and what they miss: {exc}", markup=False,
                              highlight=False, soft_wrap=True)
        raise
    data = to_json(result)
    if terraform is not None or mycnf is not None:
        # Before the result is written or printed: a recommendation Terraform cannot build
        # (e.g. a non-NVMe instance store) leaves nothing behind.
        from advisor.cli.export_cmd import write_deployment

        write_deployment(data, cat, terraform_dir=terraform, mycnf=mycnf, force=force,
                         quiet=fmt is not Format.table)
    if status is not None:
        from advisor.cli.size_sources import print_status, status_json

        data["from_mysql_status"] = status_json(status)
        if fmt is Format.table:
            print_status(status)
    if out is not None:
        from advisor.userfiles import write_json

        write_json(out, data)
    if fmt is Format.json:
        emit_json(data)
    elif fmt is Format.csv:
        emit_csv([{"rank": "recommendation", "why": "", **data["recommendation"]},
                  *({"rank": "alternative", **a} for a in data["alternatives"])])
    else:
        print_size(result, explain=explain)
    if report is not None or save:
        from advisor.cli.report_cmd import after_result

        after_result("size", data["request"], data, report=report, save=save, catalog=cat)


def print_size(r: SizeResult, *, explain: bool = False) -> None:
    rec = r.recommendation
    slo = r.slo
    if isinstance(r.request, MysqlSizeRequest):
        q = r.request
        console.print(f"[bold]Sizing[/bold] MySQL {q.tps:g} tps {q.mix_text}, "
                      f"{q.data_gb:g} GiB, p99 <= {q.p99_ms:g} ms with "
                      f"{q.headroom:.0%} headroom (knee >= {slo['target_tps']:,.0f} tps), "
                      f"{slo['durability']}")
        for line in getattr(r, "workload_shape", ()):
            console.print(f"  · {line}")
        if getattr(r, "io_profile", "model") != "model":
            console.print(f"  · I/O per transaction from a measured profile: {r.io_profile}")
        if getattr(r, "measured_shape", None):
            console.print(f"  · measured transaction: {r.measured_shape}", markup=False,
                          highlight=False, soft_wrap=True)
    table = new_table("Recommendation", title_justify="left", show_header=False)
    table.add_column("what", style="bold", no_wrap=True)
    text_column(table, "value", wrap=True)
    table.add_row("deployment", rec.deployment)
    table.add_row("monthly cost", f"{usd(rec.monthly_usd)}" + _breakdown(rec)
                  + (f"; instances priced {r.request.pricing}"
                     if r.request.pricing != "on-demand" else "")
                  + (f" ({unpriced_text(r.unpriced, r.request.pricing)})"
                     if r.unpriced else ""))
    if isinstance(rec, MysqlDeployment):
        table.add_row("p99 at target", _p99_text(rec))
        table.add_row("max tps at SLO", f"{rec.max_tps_at_slo:,} (headroom "
                      f"{rec.headroom_pct:,.0f} %)" + (", the event simulation's knee"
                                                      if rec.knee_engine != "analytic" else ""))
        table.add_row("verified (DES)", verified_text(rec))
        if rec.variability is not None:
            table.add_row("variability", variability_summary(rec.variability))
    elif rec.act is not None:
        table.add_row("ACT", rec.act.text)
    table.add_row("bottleneck", rec.bottleneck)
    dur = rec.durability
    table.add_row("durability", "EPHEMERAL instance store" if dur.ephemeral else "EBS")
    if dur.loss_window is not None:
        w = dur.loss_window
        table.add_row("loss window", "0 acknowledged transactions (semi-synchronous)"
                      if w.window_ms == 0 else "unbounded (the replica falls behind)"
                      if w.window_ms is None else f"~{w.window_ms:,.2f} ms of commits, "
                      f"~{w.transactions:,.2f} transactions (asynchronous replication)"
                      + (f"; p99 ~{w.window_p99_ms:,.2f} ms" if w.window_p99_ms else ""))
    console.print(table)
    if isinstance(rec, MysqlDeployment) and rec.variability is not None:
        console.print(f"  · variability: {rec.variability.text}")
    for note in dur.notes:
        console.print(f"  · {note}")
    if isinstance(r, AerospikeSizeResult):
        from advisor.cli.size_aerospike import print_node_resources, print_rules

        print_rules(r)
        print_node_resources(r.recommendation)
    if isinstance(rec, AerospikeCluster) and rec.act is not None and rec.act.slices:
        from advisor.cli.simulate_db import print_act_slices

        first = (f", the first of {rec.act.replications} replications; the verdict pools "
                 "them all" if rec.act.replications > 1 else "")
        print_act_slices(list(rec.act.slices), "ACT per time slice at the headroom load (% of "
                         f"small reads over each threshold; passes below 5 / 1 / 0.1{first})")
    if r.alternatives:
        mysql = any(isinstance(a, MysqlDeployment) for a in r.alternatives)
        alt = new_table("Alternatives", title_justify="left", caption="DES p99: the event "
                        "simulation's p99 at the headroom load (its 95 % upper bound below)"
                        if mysql else None)
        text_column(alt, "deployment (why)", wrap=True)
        for col in ("$/month", *(("max\ntps", "DES p99\nms") if mysql else ())):
            num_column(alt, col)
        for a in r.alternatives:
            cells = (f"{a.max_tps_at_slo:,}", _worst_des(a)) if isinstance(a, MysqlDeployment) \
                else ("-", "-") if mysql else ()
            alt.add_row(_deployment_lines(a.deployment) + (f"\n[i]{a.why}[/i]" if a.why else ""),
                        f"{a.monthly_usd:,.2f}", *cells, end_section=True)
        console.print(alt)
        if isinstance(r, AerospikeSizeResult):
            from advisor.cli.size_aerospike import print_alternative_ratings

            print_alternative_ratings(r)
    if r.rejected:
        also = (", and dearer ones the event simulation rejected"
                if isinstance(rec, MysqlDeployment) and _dearer(rec, r) else "")
        shown = ("the nearest the answer's cost, one per instance type"
                 if isinstance(r, AerospikeSizeResult) else "the cheapest shown")
        rej = new_table(f"Cheaper candidates rejected{also} ({r.rejected_total:,} in all; "
                        f"{shown})", title_justify="left")
        text_column(rej, "candidate")
        num_column(rej, "$/month")
        text_column(rej, "why not", wrap=True)
        for x in r.rejected[:8]:
            rej.add_row(x.deployment, f"{x.monthly_usd:,.2f}", x.reason)
        console.print(rej)
    if explain and isinstance(r, AerospikeSizeResult):
        from advisor.cli.size_aerospike import print_assumptions

        print_assumptions(r)
    if explain and isinstance(r, MysqlSizeResult) and r.io_model:
        console.print("[bold]I/O model of the recommendation[/bold] (at the target load)")
        for m in r.io_model:
            for line in m.lines():
                console.print(f"  {line}")
    if explain:
        s = r.search
        took = f" in {s.seconds:.2f} s" if s.seconds is not None else ""
        bound = ""
        if s.verify_bound is not None:
            bound = (f", at most {s.verify_bound}"
                     + (f": bound reached, {s.unverified_at_bound:,} candidate(s) left "
                        "unverified" if s.unverified_at_bound else ""))
        rejected = ""
        if s.des_rejected:
            rejected = f"; the event simulation rejected {s.des_rejected:,}"
            if s.des_shared:
                rejected += (f" ({s.des_shared:,} of them on runs shared with a cheaper candidate "
                             "alike, unscreened)")
            if s.confirmations:
                rejected += (f", and re-checked {s.confirmations:,} later pass(es) on fresh seeds "
                             f"({s.confirmation_failures or 0:,} failed there)")
        if s.long_run_rejected:
            rejected += (f"; {s.long_run_rejected:,} server(s) of a cheaper answer missed the "
                         "SLO over weeks there (slow episodes)")
        console.print(f"[bold]Search:[/bold] {s.considered:,} candidates considered, "
                      f"{s.pruned:,} pruned by hard limits, {s.screened:,} screened "
                      f"(analytic), {s.verified:,} verified (event simulation{bound}){took}"
                      f"{rejected}; catalog {r.catalog_version}, seed {r.seed}")
        method = next((v.method for v in getattr(rec, "verified", {}).values() if v.method), "")
        if method:
            console.print(f"[bold]Event-simulation check:[/bold] {method}")


def _breakdown(rec: MysqlDeployment | AerospikeCluster) -> str:
    if isinstance(rec, MysqlDeployment):
        parts = [f"master {usd(rec.cost.master.monthly_usd)}"]
        if rec.cost.replica_each is not None:
            each = usd(rec.cost.replica_each.monthly_usd)
            parts.append(f"{len(rec.replicas)} x replica {each}")
        return " (" + " + ".join(parts) + ")"
    return ""


def verified_text(d: MysqlDeployment) -> str:
    """Each server's event-simulation p99 with its 95 % interval, at each load checked."""
    idle = d.idle
    if not d.verified:
        return idle or "not checked in the event simulation"
    parts = [idle] if idle else []
    for role, v in d.verified.items():
        if not v.loads:  # a result saved before the interval was recorded
            parts.append(f"{role} p99 {v.des_p99_ms_at_headroom:,.2f} ms at headroom load")
            continue
        if not any(x.requests for x in v.loads):  # a replica of a write-only shape
            lags = ", ".join(f"{x.background_lag_s:,.2f} s at {x.load} {x.tps:,.0f} tps"
                             for x in v.loads)
            parts.append(f"{role} serves no reads; its applier's lag {lags}"
                         f"{'' if v.passed else ': FAILS'}")
            continue
        loads = ", ".join(f"{x.p99_ms:,.2f} ms (95 % CI {x.p99_ci95_ms[0]:,.2f}-"
                          f"{x.p99_ci95_ms[1]:,.2f}) at {x.load} {x.tps:,.0f} tps"
                          for x in v.loads)
        parts.append(f"{role} p99 {loads}{'' if v.passed else ': FAILS'}")
    return "; ".join(parts)


def _p99_text(d: MysqlDeployment) -> str:
    """p99 at the target and the headroom load as the event simulation verified them (the
    slowest server's), then the analytic screen's figures; results saved before the target
    load was checked give the screen's alone, labelled so."""
    screen = (f"screen (analytic) {d.p99_ms:,.2f} ms, at headroom load "
              f"{d.p99_ms_at_headroom:,.2f} ms")
    target, headroom = d.verified_p99("target"), d.verified_p99("headroom")
    if target is None or headroom is None:
        return f"{screen} (not verified)"
    (role, t), (hrole, h) = target, headroom
    return (f"{t.p99_ms:,.2f} ms ({role}, 95 % CI {t.p99_ci95_ms[0]:,.2f}-{t.p99_ci95_ms[1]:,.2f}"
            f"); at headroom load {h.p99_ms:,.2f} ms ({hrole}); {screen}")


def _deployment_lines(text: str) -> str:
    """`master A + 1 x replica B` as one line per server kind, so a spec is never split."""
    return "\n".join(part.replace("1 x replica ", "replica ", 1) for part in text.split(" + "))


def _worst_des(d: MysqlDeployment) -> str:
    """The worst server's DES p99 at the headroom load, its 95 % upper bound on a second line."""
    checks = [v for v in d.verified.values() if not v.loads or any(x.requests for x in v.loads)]
    if not checks:
        return "-"
    worst = max(checks, key=lambda v: v.p99_ci95_ms_at_headroom[1]
                if v.p99_ci95_ms_at_headroom else v.des_p99_ms_at_headroom)
    ci = worst.p99_ci95_ms_at_headroom
    upper = f"\n<= {ci[1]:,.2f}" if ci else ""
    return f"{worst.des_p99_ms_at_headroom:,.2f}{upper}"


def _dearer(rec: MysqlDeployment, r: SizeResult) -> bool:
    """Whether a rejection listed costs more than the recommended server of its role."""
    each = rec.cost.replica_each.monthly_usd if rec.cost.replica_each else 0.0
    price = {"master": rec.cost.master.monthly_usd, "replica": each}
    return any(x.monthly_usd > price.get(x.deployment.split(" ")[0], 0.0) + 0.005
               for x in r.rejected)
