"""From a MySQL sizing result to what must be built: per server its instance, volumes, array and
the my.cnf the model assumed.

The settings come from the result itself: its request (read back by `size_request`, so defaults are
the same objects the sizing used) and its `io_model` (the buffer pool, redo capacity and
io_capacity_max each server was modelled with); results without `io_model` get them from the same
functions the model calls (`MysqlParams.redo_mib`, `dedicated_buffer_pool_gib`). Nothing is
re-derived another way. `recommend.terraform` turns a plan into Terraform and cloud-init text.
"""

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from advisor.catalog.model import Catalog
from advisor.errors import AdvisorError, InvalidInput
from advisor.layout.model import resolve
from advisor.layout.raid import data_members
from recommend.request import MysqlSizeRequest, size_request
from workloads.mysql import dedicated_buffer_pool_gib

# The first EBS device names AWS recommends for data volumes (/dev/sd[f-p]; EC2 user guide,
# "Device names on Linux instances").
DEVICE_LETTERS = "fghijklmnop"
MOUNT_POINT = "/var/lib/mysql"


@dataclass(frozen=True, slots=True, kw_only=True)
class Volume:
    device_name: str  # as attached (/dev/sdf); Nitro instances show it as an NVMe device
    volume_type: str
    size_gib: int
    iops: int | None
    throughput_mibps: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class MyCnf:
    """The server settings one server was modelled with."""

    server: str  # mysql-8.0, mysql-8.4, mariadb-10.11
    role: str
    server_id: int
    buffer_pool_mib: int
    redo_log_mib: int
    io_capacity: int
    io_capacity_max: int
    flush_log_at_trx_commit: int
    sync_binlog: int
    replica_workers: int
    replica_binlog: bool
    semi_sync: bool
    change_buffer: bool
    doublewrite: bool

    @property
    def mariadb(self) -> bool:
        return self.server.startswith("mariadb")

    def text(self, *, header: str) -> str:
        """The my.cnf: a [mysqld] section with every setting the model assumed, each named as
        this server spells it (MySQL 8.0.30+ / 8.4, MariaDB 10.11)."""
        lines = [f"# {line}" for line in header.splitlines()]
        lines.append("# the settings the sizing model assumed, spelled for " + (
            "MariaDB 10.11" if self.mariadb else "MySQL 8.0.30+ (innodb_redo_log_capacity)"
            if self.server == "mysql-8.0" else "MySQL 8.4"))
        lines += ["[mysqld]", f"datadir = {MOUNT_POINT}", f"server_id = {self.server_id}",
                  f"innodb_buffer_pool_size = {self.buffer_pool_mib}M"]
        if self.mariadb:  # one redo file since 10.5; innodb_redo_log_capacity is MySQL's
            lines.append(f"innodb_log_file_size = {self.redo_log_mib}M")
        else:
            lines.append(f"innodb_redo_log_capacity = {self.redo_log_mib}M")
        lines += [f"innodb_io_capacity = {self.io_capacity}",
                  f"innodb_io_capacity_max = {self.io_capacity_max}",
                  f"innodb_flush_log_at_trx_commit = {self.flush_log_at_trx_commit}",
                  f"innodb_doublewrite = {'ON' if self.doublewrite else 'OFF'}"]
        if not self.mariadb:  # deprecated in MariaDB 10.9 (its default there: none)
            lines.append(f"innodb_change_buffering = {'all' if self.change_buffer else 'none'}")
        binlog = self.role == "master" or self.replica_binlog
        if binlog:
            lines += ["log_bin = mysql-bin", "binlog_format = ROW",
                      f"sync_binlog = {self.sync_binlog}"]
        elif not self.mariadb:  # MySQL 8 writes a binary log unless told not to
            lines.append("skip_log_bin")
        if self.role == "replica":
            lines.append("read_only = ON")
            if self.mariadb:
                # 0: the SQL thread applies alone (the model's one worker)
                workers = 0 if self.replica_workers <= 1 else self.replica_workers
                lines += [f"slave_parallel_threads = {workers}",
                          f"log_slave_updates = {'ON' if self.replica_binlog else 'OFF'}"]
            else:
                lines += [f"replica_parallel_workers = {self.replica_workers}",
                          f"log_replica_updates = {'ON' if self.replica_binlog else 'OFF'}"]
        if self.semi_sync:
            lines += self._semi_sync()
        return "\n".join(lines) + "\n"

    def _semi_sync(self) -> list[str]:
        if self.mariadb:  # built in since 10.3
            return [f"rpl_semi_sync_{'master' if self.role == 'master' else 'slave'}"
                    "_enabled = ON"]
        if self.role == "master":
            return ["plugin_load_add = semisync_source.so", "rpl_semi_sync_source_enabled = ON"]
        return ["plugin_load_add = semisync_replica.so", "rpl_semi_sync_replica_enabled = ON"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerPlan:
    name: str  # master, replica_1, replica_2 ...
    role: str
    instance_type: str
    arch: str  # x86_64 or arm64 (Graviton): the AMI must be built for it
    layout: str
    ebs_optimized: bool
    volumes: tuple[Volume, ...]
    store_devices: int  # instance-store NVMe devices to assemble at boot (0: EBS)
    raid: str | None
    chunk_kib: int
    data_members: int  # members carrying distinct data (XFS stripe width)
    mycnf: MyCnf

    @property
    def devices(self) -> int:
        return len(self.volumes) or self.store_devices


@dataclass(frozen=True, slots=True, kw_only=True)
class DeploymentPlan:
    servers: tuple[ServerPlan, ...]
    deployment: str
    region: str
    header: str  # where this plan comes from (result versions, the request's key figures)


def deployment_plan(result: Mapping[str, Any], catalog: Catalog) -> DeploymentPlan:
    """The plan of a MySQL `size` result (its JSON), or one line saying why there is none."""
    if result.get("kind") != "size":
        raise InvalidInput(f"a size result is needed, this is kind {result.get('kind')!r}")
    if result.get("workload") != "mysql":
        raise InvalidInput(f"Terraform and my.cnf are written for MySQL results only, this is "
                           f"{result.get('workload')!r}")
    rec = result.get("recommendation")
    raw = result.get("request")
    if not isinstance(rec, Mapping) or not isinstance(raw, Mapping):
        raise InvalidInput("the result has no recommendation or request")
    try:
        req = size_request(dict(raw))
    except AdvisorError as exc:
        raise InvalidInput(f"the result's request: {exc}") from None
    assert isinstance(req, MysqlSizeRequest)
    master, replicas = rec.get("master"), rec.get("replicas") or []
    if (not isinstance(master, str) or not isinstance(replicas, list)
            or not all(isinstance(r, str) for r in replicas)):
        raise InvalidInput("the result's recommendation has no master/replicas layout specs")
    models = {m.get("role"): m for m in result.get("io_model") or [] if isinstance(m, Mapping)}
    servers = [_server("master", "master", 1, master, req, len(replicas), models, catalog)]
    servers += [_server(f"replica_{i}", "replica", i + 1, spec, req, len(replicas), models,
                        catalog) for i, spec in enumerate(replicas, 1)]
    versions = (f"advisor {result.get('advisor_version', '?')}, model "
                f"{result.get('model_version', '?')}, catalog {result.get('catalog_version', '?')}")
    header = (f"{versions}: {rec.get('deployment')}\n"
              f"sized for {req.tps:g} tps {req.mix_text}, p99 <= "
              f"{req.p99_ms:g} ms, {req.data_gb:g} GiB of data ({req.server})")
    return DeploymentPlan(servers=tuple(servers), deployment=str(rec.get("deployment")),
                          region=req.region or catalog.region, header=header)


def _server(name: str, role: str, server_id: int, spec: str, req: MysqlSizeRequest,
            replicas: int, models: Mapping[Any, Mapping[str, Any]],
            catalog: Catalog) -> ServerPlan:
    try:
        layout = resolve(spec, catalog)
    except AdvisorError as exc:
        raise InvalidInput(f"the result's {role} layout: {exc}") from None
    inst = layout.instance
    if inst is None:
        raise InvalidInput(f"the result's {role} layout {spec} is not an EC2 instance")
    s = layout.spec
    volumes: tuple[Volume, ...] = ()
    store = 0
    if layout.volume_type is not None:
        if s.count > len(DEVICE_LETTERS):
            raise InvalidInput(f"{spec}: more than {len(DEVICE_LETTERS)} volumes")
        assert s.size_gib is not None
        iops, mibps = layout.iops, layout.throughput_mibps
        volumes = tuple(Volume(device_name=f"/dev/sd{DEVICE_LETTERS[i]}", volume_type=s.device,
                               size_gib=s.size_gib, iops=iops,
                               throughput_mibps=None if mibps is None else int(mibps))
                        for i in range(s.count))
    elif layout.ephemeral:
        assert inst.store is not None
        if inst.store.kind != "nvme":
            raise InvalidInput(f"{spec}: {inst.name}'s instance store is {inst.store.kind}; the "
                               "boot script assembles NVMe instance stores only")
        store = s.count
    else:
        raise InvalidInput(f"{spec}: a local device is not something Terraform builds")
    p = req.params(replicas=replicas, tps=req.tps)
    model = models.get(role) or {}
    bp_gib = (_model_number(model, "buffer_pool_gib", role) or p.buffer_pool_gib
              or dedicated_buffer_pool_gib(inst.memory_gib))
    redo = _model_number(model, "redo_log_mib", role) or p.redo_mib(inst.vcpu)
    cnf = MyCnf(server=req.server, role=role, server_id=server_id,
                buffer_pool_mib=round(bp_gib * 1024), redo_log_mib=round(redo),
                io_capacity=p.io_capacity,
                io_capacity_max=int(_model_number(model, "io_capacity_max", role)
                                    or p.flush_capacity_max),
                flush_log_at_trx_commit=p.flush_log_at_trx_commit, sync_binlog=p.sync_binlog,
                replica_workers=p.workers, replica_binlog=p.replica_binlog,
                semi_sync=p.semi_sync, change_buffer=p.kind.change_buffer,
                doublewrite=p.doublewrite)
    return ServerPlan(name=name, role=role, instance_type=inst.name, arch=inst.arch,
                      layout=str(s),
                      ebs_optimized=inst.ebs is not None and inst.ebs.optimization != "unsupported"
                      and layout.volume_type is not None,
                      volumes=volumes, store_devices=store, raid=s.raid, chunk_kib=s.chunk_kib,
                      data_members=data_members(s.raid, s.count), mycnf=cnf)


def mycnf_text(plan: DeploymentPlan, role: str = "master") -> str:
    """The my.cnf of the first server of `role` (master or replica)."""
    server = next((s for s in plan.servers if s.role == role), None)
    if server is None:
        raise InvalidInput(f"the deployment has no {role}")
    return server.mycnf.text(header=f"{plan.header}\n{server.name}: {server.layout}")


def _model_number(model: Mapping[str, Any], key: str, role: str) -> float | None:
    """A figure of the result's io_model (a user's file): a finite number >= 0, or None when
    it is absent (0 and null mean 'not stated': the model's own rule applies)."""
    value = model.get(key)
    if value is None:
        return None
    if (isinstance(value, bool) or not isinstance(value, int | float)
            or not math.isfinite(value) or not 0 <= value <= 1e9):
        raise InvalidInput(f"the result's {role} io_model {key} {str(value)[:40]!r}: must be a "
                           "number from 0 to 1e9")
    return float(value)
