"""`size --explain`: per server role of a deployment, the I/O model behind the answer (data, buffer
pool, hot set, miss ratio, page reads and flushes per transaction, fsyncs per commit and the
group-commit factor, CPU per transaction, replica apply capacity and lag) and the limit that binds
at the sustained load."""

from dataclasses import dataclass

from advisor.catalog.model import Catalog
from advisor.layout.model import Layout


@dataclass(frozen=True, slots=True, kw_only=True)
class RoleModel:
    """The I/O model of one server role at the target load."""

    role: str
    layout: str
    tps: float  # transactions/s this server runs (its own share; replicas also apply writes)
    data_gb: float
    buffer_pool_gib: float
    redo_log_mib: float
    access: str  # the skew in words (the hot set)
    miss_ratio: float  # of page accesses
    page_reads_per_read_txn: float
    page_reads_per_write_txn: float  # in the transaction's path (or applied, on a replica)
    page_flushes_per_write_txn: float
    flush_pages_per_s: float
    io_capacity_max: int
    fsyncs_per_commit: int
    group_commit_factor: float  # commits sharing one log flush (1 = none)
    cpu_ms_per_read_txn: float
    cpu_ms_per_write_txn: float
    cpu_utilisation: float
    binding: str  # the limit that binds at the target load, sustained
    binding_utilisation: float
    apply_capacity_tps: float | None = None  # replicas: read-write transactions/s it can apply
    replica_lag_s: float | None = None  # replicas: mean lag at the target load (None: unbounded)
    notes: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        out = [
            f"{self.role} {self.layout}: {self.tps:,.0f} tps; {self.data_gb:g} GiB of data, "
            f"buffer pool {self.buffer_pool_gib:.1f} GiB, redo {self.redo_log_mib:,.0f} MiB; "
            f"access {self.access}",
            f"  miss ratio {self.miss_ratio:.1%}: {self.page_reads_per_read_txn:.2f} page reads "
            f"per read-only transaction, {self.page_reads_per_write_txn:.2f} per read-write "
            f"transaction{' applied' if self.role == 'replica' else ''}; "
            f"{self.page_flushes_per_write_txn:.2f} page flushes per read-write transaction "
            f"({self.flush_pages_per_s:,.0f} pages/s of innodb_io_capacity_max "
            f"{self.io_capacity_max:,})",
            f"  {self.fsyncs_per_commit} fsync(s) per commit, group commit shares each log "
            f"flush among {self.group_commit_factor:.2f} commits; CPU "
            f"{self.cpu_ms_per_read_txn:.2f} ms per read-only and "
            f"{self.cpu_ms_per_write_txn:.2f} ms per read-write transaction "
            f"({self.cpu_utilisation:.0%} busy)",
        ]
        if self.apply_capacity_tps is not None:
            lag = ("falls behind without bound" if self.replica_lag_s is None
                   else f"mean lag {self.replica_lag_s * 1000:,.1f} ms")
            out.append(f"  applies up to {self.apply_capacity_tps:,.0f} read-write "
                       f"transactions/s; {lag}")
        out.append(f"  binds at the target load: {self.binding} "
                   f"({self.binding_utilisation:.0%} of its sustained rate)")
        out += [f"  ! {n}" for n in self.notes]
        return out


def role_model(*, role: str, layout: Layout, catalog: Catalog, server: object, plan: object,
               binding: str, binding_utilisation: float) -> RoleModel:
    """The model of one role from its server (workloads.mysql.MysqlServer) and compiled plan."""
    from advisor.sim.plan import SimPlan
    from workloads.mysql import MysqlServer
    from workloads.mysql_run import apply_capacity_tps, cpu_utilisation
    from workloads.mysql_shape import skew_text

    assert isinstance(server, MysqlServer)
    assert isinstance(plan, SimPlan)
    p, io = server.params, server.io
    prof = plan.profile
    if role == "replica":  # the applier's own commit: redo, and its binlog when it keeps one
        fsyncs = int(p.flush_log_at_trx_commit == 1) + int(p.replica_binlog
                                                           and p.sync_binlog == 1)
    else:
        fsyncs = len([c for c in server._commit_ios() if c[0] != 4])  # not the semi-sync wait
    flush_s = (prof.write.median_ms + prof.flush_ms) / 1000
    commits_per_s = p.write_tps * server._commits
    # Commits that arrive while a log flush is under way share the next one: on average
    # 1 + (arrivals during one flush).
    group = 1 + commits_per_s * flush_s if fsyncs else 1.0
    cap = lag = None
    if role == "replica":
        cap = apply_capacity_tps(server, plan, None)
        rho = p.write_tps / cap if cap > 0 else float("inf")
        lag = None if rho >= 1 else (1 / cap) / (1 - rho)
    notes = tuple(io.notes)
    return RoleModel(
        role=role, layout=str(layout.spec), tps=round(server.rate_tps, 2), data_gb=p.data_gb,
        buffer_pool_gib=round(io.buffer_pool_gib, 2), redo_log_mib=round(io.redo_log_mib, 1),
        access=skew_text(p.shape.skew_bands) if io.source == "model" else io.source,
        miss_ratio=round(io.miss_ratio, 4),
        page_reads_per_read_txn=round(io.read_page_reads, 3),
        page_reads_per_write_txn=round(io.apply_reads if role == "replica"
                                       else io.write_page_reads, 3),
        page_flushes_per_write_txn=round(io.write_page_flushes, 3),
        flush_pages_per_s=round(io.flush_pages_per_s, 1),
        io_capacity_max=p.flush_capacity_max, fsyncs_per_commit=fsyncs,
        group_commit_factor=round(group, 3), cpu_ms_per_read_txn=round(p.cpu_ms_read, 3),
        cpu_ms_per_write_txn=round(p.cpu_ms_apply if role == "replica" else p.cpu_ms_write, 3),
        cpu_utilisation=round(cpu_utilisation(server, layout), 4), binding=binding,
        binding_utilisation=round(binding_utilisation, 4),
        apply_capacity_tps=None if cap is None else round(cap, 1),
        replica_lag_s=None if lag is None else round(lag, 6), notes=notes)
