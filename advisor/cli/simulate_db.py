"""`advisor simulate --workload mysql|aerospike`: database workloads on a layout (or deployment)."""

from collections.abc import Sequence

from advisor.cli.common import console, fmt_ms, new_table, num_column
from advisor.sim.results import ActSlice, Load
from workloads.results import ActSimResult, MysqlSimResult


def _load(load: Load) -> str:
    return ",".join(f"{k}={v:g}" for k, v in load.items())


def print_mysql(r: MysqlSimResult) -> None:
    dep = r.deployment
    console.print(f"[bold]MySQL[/bold] master {dep.master}"
                  + (f", {len(dep.replicas)} replica(s) {dep.replicas[0]}" if dep.replicas
                     else ", no replicas (the master serves reads)")
                  + f"  ·  {r.params.shape.mix_words(r.params.reads_per_write)}  ·  "
                  f"{r.params.data_gb:g} GiB data  ·  SLO p99 <= {r.slo.p99_ms:g} ms"
                  f"  ·  seed {r.seed}")
    for line in r.io_profile.explain:
        console.print(f"  · {line}")
    table = new_table(caption="latency in ms")
    table.add_column("load", no_wrap=True)
    for col in ("achieved\ntps", "p50", "p99", "read\np99", "write\np99", "SLO"):
        num_column(table, col)
    for lv in r.levels:
        lat = lv.latency_ms
        table.add_row(_load(lv.load), f"{lv.achieved_tps:,.0f}", fmt_ms(lat.transaction.p50, 2),
                      fmt_ms(lat.transaction.p99, 2), fmt_ms(lat.read.p99, 2),
                      fmt_ms(lat.write.p99, 2), "[green]ok[/green]" if lv.meets_slo else
                      "[red]miss[/red]")
    console.print(table)
    console.print(f"[bold]Knee:[/bold] {r.knee.text}")
    for lv in r.levels:
        console.print(f"[bold]{_load(lv.load)}[/bold]")
        for s in lv.servers:
            extra = ""
            if s.replication is not None:
                rep = s.replication
                extra = (f"; applies up to {rep.apply_capacity_tps:,.0f} writes/s"
                         + (" [red](falls behind)[/red]" if rep.falls_behind else ""))
            console.print(f"  {s.role} {s.layout}: {s.iops.total:,.0f} IOPS, CPU "
                          f"{s.cpu_utilisation:.0%}; {s.bottleneck}{extra}")
        for why in lv.reasons:
            console.print(f"    [red]✗[/red] {why}")


def print_act(r: ActSimResult) -> None:
    console.print(f"[bold]ACT[/bold] {r.layout} ({r.devices} device(s)), "
                  f"{r.slice_s:.3g} s slices, seed {r.seed}")
    t = new_table(caption="% of small reads over each threshold (worst slice); ACT passes "
                  "below 5 % >1 ms, 1 % >8 ms, 0.1 % >64 ms")
    # The load wraps between its figures: whole, it would squeeze every number at 80 columns.
    t.add_column("load", overflow="fold", min_width=14)
    for col in ("reads/s", "LB writes/s", ">1ms %", ">8ms %", ">64ms %", "p99 ms", "ACT"):
        num_column(t, col)
    for lv in r.levels:
        act = lv.act
        t.add_row(_load(lv.load).replace(",", "\n"),
                  f"{act.derivation['internal_reads_per_sec']:,.0f}",
                  f"{act.derivation['large_block_writes_per_sec']:,.1f}",
                  *(f"{act.max.over(ms):.2f}" for ms in (1, 8, 64)),
                  fmt_ms(lv.latency_ms.read.p99, 2),
                  "[green]pass[/green]" if act.passed else "[red]fail[/red]")
    console.print(t)
    console.print(f"[bold]Rating:[/bold] {r.rating.text}")
    last = r.levels[-1]
    print_act_slices(last.act.slices, f"Per-slice table at {_load(last.load)}")
    for note in last.notes:
        console.print(f"  · {note}")


def print_act_slices(rows: Sequence[ActSlice], title: str) -> None:
    """ACT's per-slice report: % of small reads over 1, 8 and 64 ms, and the verdict."""
    slices = new_table(title, title_justify="left")
    for col in ("slice", "start s", "reads", ">1ms %", ">8ms %", ">64ms %", "pass"):
        num_column(slices, col)
    for row in rows:
        slices.add_row(str(row.slice), f"{row.start_s:g}", f"{row.reads:,}",
                       f"{row.gt_1ms_pct:.2f}", f"{row.gt_8ms_pct:.2f}",
                       f"{row.gt_64ms_pct:.3f}", "yes" if row.passed else "no")
    console.print(slices)
