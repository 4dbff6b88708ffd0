"""What one Aerospike node must hold and carry with a node down: RAM (primary index, optional
data in memory), device capacity, client + replication + migration network traffic and CPU.

Pure arithmetic over the request, the cluster shape and the instance type. Every figure is either
sourced (named beside it) or an ASSUMPTION stated in `ASSUMPTIONS`, which every result repeats.
"""

from dataclasses import dataclass

from advisor.catalog.model import InstanceType
from recommend.request import AEROSPIKE_FILL, AerospikeSizeRequest
from recommend.result import ResourceUse

GIB = 2**30
# Aerospike record-sizing guide (aerospike.com/docs/develop/data-modeling/record-sizing): "64
# bytes of metadata per record ... multiplied by the replication factor".
INDEX_BYTES_PER_COPY = 64
# Aerospike 7+: writes stop when the machine's memory use passes stop-writes-sys-memory-pct,
# default 90 (aerospike.com/docs/database/reference/config#namespace__stop-writes-sys-memory-pct).
USABLE_MEMORY_PCT = 90.0
# ASSUMPTION (no published figure: the capacity guide says to reserve memory "for the OS, namespace
# overhead, and other software"): the OS plus the asd process without its namespaces.
NODE_RESERVED_GIB = 2.0
# ASSUMPTION: bytes on the wire per message besides the record: Aerospike's proto header 8 B +
# message header 22 B + digest field 25 B + namespace field ~15 B, TCP/IP headers 40 B, Ethernet
# framing 38 B (preamble, header, FCS, inter-frame gap) = 148 B.
MESSAGE_OVERHEAD_BYTES = 148
# AWS EC2 user guide, "Amazon EC2 instance network bandwidth": the bandwidth figure applies to
# inbound and to outbound traffic each, so the busier direction is judged against it.
NETWORK_SOURCE = "AWS: the instance's bandwidth applies to inbound and outbound traffic each"

ASSUMPTIONS = (
    f"primary index {INDEX_BYTES_PER_COPY} B per record per copy (Aerospike record-sizing guide)",
    f"per-node RAM: {NODE_RESERVED_GIB:g} GiB for the OS and the asd process (ASSUMPTION), the "
    f"rest usable up to {USABLE_MEMORY_PCT:g} % of the instance's memory "
    "(stop-writes-sys-memory-pct default)",
    f"network: {MESSAGE_OVERHEAD_BYTES} B per message besides the record (ASSUMPTION: protocol, "
    "TCP/IP and Ethernet headers); judged per direction against the sustained baseline, never "
    "the burst",
    "CPU: each client read, client write and replica write costs 1 / --ops-per-vcpu vCPU-seconds "
    "(ASSUMPTION; default 10,000: the ScyllaDB calculator's i3en constant, a comparable NVMe "
    "key-value store; Aerospike's own '1 M TPS per server' figures are higher); migrations' CPU "
    "is not counted",
    f"devices at most {AEROSPIKE_FILL:.0%} full (defrag-lwm-pct 50 keeps the rest for defrag)",
    "migration: a lost node's copies are rebuilt by the survivors within --migration-hours "
    "(ASSUMPTION of the operator's target), on top of the client traffic",
)


@dataclass(frozen=True, slots=True, kw_only=True)
class ClusterShape:
    """N nodes in `racks` racks at replication factor `rf`, seen with one node down."""

    nodes: int
    racks: int
    rf: int

    @property
    def alive(self) -> int:
        return self.nodes - 1

    @property
    def copies(self) -> int:
        """Copies of each record the survivors keep (a node never holds two copies)."""
        return min(self.rf, self.alive)

    @property
    def share(self) -> float:
        """The busiest survivor's share of one copy of the data and of the client load.

        One rack: the lost node's partitions spread over N - 1 nodes. Rack-aware (racks > 1, k
        nodes a rack): the lost node's copies are rebuilt inside its own rack, so its k - 1
        rack-mates each carry k / (k - 1) of a node's normal share."""
        per_rack = self.nodes // self.racks
        if self.racks > 1 and per_rack >= 2:
            return per_rack / (per_rack - 1) / self.nodes
        return 1.0 / self.alive

    def failure_text(self) -> str:
        if self.racks > 1 and self.nodes // self.racks >= 2:
            k = self.nodes // self.racks
            return (f"one node down: its {self.racks}-rack cluster rebuilds the lost copies in "
                    f"its rack, whose {k - 1} survivors each carry {k}/{k - 1} of a node's share")
        return (f"one node down: {self.alive} nodes carry all the load and {self.copies} "
                f"cop{'y' if self.copies == 1 else 'ies'} of each record")


@dataclass(frozen=True, slots=True, kw_only=True)
class NodeDemand:
    """What the busiest node carries with one node down, at the headroom load."""

    reads_per_sec: float
    writes_per_sec: float  # client writes this node masters
    replica_writes_per_sec: float  # copies of other nodes' writes it applies
    index_gib: float
    data_in_memory_gib: float
    storage_gib: float  # device capacity needed at the fill limit
    network_in_gbps: float
    network_out_gbps: float
    ops_per_sec: float  # client reads + client writes + replica writes


def records(req: AerospikeSizeRequest) -> float:
    return req.data_gb * GIB / req.record_bytes


def node_demand(req: AerospikeSizeRequest, shape: ClusterShape) -> NodeDemand:
    scale = 1 + req.headroom
    f = shape.share
    copies = shape.copies
    reads = req.reads_per_sec * scale * f
    writes = req.writes_per_sec * scale * f
    replica = writes * (copies - 1)
    data_gib = req.data_gb * copies * f
    msg = MESSAGE_OVERHEAD_BYTES
    rec = req.record_bytes
    # The lost node's copies (data x RF / N), rebuilt by the survivors within the window.
    migrate_bps = req.data_gb * GIB * req.replication_factor / shape.nodes * f \
        / (req.migration_hours * 3600)
    bytes_in = reads * msg + writes * (rec + msg) + replica * (rec + msg) + replica * msg \
        + migrate_bps
    bytes_out = reads * (rec + msg) + writes * msg + replica * (rec + msg) + replica * msg \
        + migrate_bps
    return NodeDemand(
        reads_per_sec=reads, writes_per_sec=writes, replica_writes_per_sec=replica,
        index_gib=records(req) * INDEX_BYTES_PER_COPY * copies * f / GIB,
        data_in_memory_gib=data_gib if req.data_in_memory else 0.0,
        storage_gib=data_gib / AEROSPIKE_FILL,
        network_in_gbps=bytes_in * 8 / 1e9, network_out_gbps=bytes_out * 8 / 1e9,
        ops_per_sec=reads + writes + replica)


def usable_memory_gib(inst: InstanceType) -> float:
    return inst.memory_gib * USABLE_MEMORY_PCT / 100


def instance_checks(req: AerospikeSizeRequest, d: NodeDemand,
                    inst: InstanceType) -> tuple[ResourceUse, ...]:
    """RAM, network and CPU of one node against the instance (storage is the layout's)."""
    ram_need = NODE_RESERVED_GIB + d.index_gib + d.data_in_memory_gib
    ram_have = usable_memory_gib(inst)
    what = f"index {d.index_gib:,.1f} GiB" + (f" + data {d.data_in_memory_gib:,.1f} GiB"
                                                if req.data_in_memory else "")
    net = max(d.network_in_gbps, d.network_out_gbps)
    base = inst.network_baseline_gbps
    net_basis = (f"in {d.network_in_gbps:.2f} / out {d.network_out_gbps:.2f} Gbit/s: client "
                 f"{d.reads_per_sec:,.0f} reads + {d.writes_per_sec:,.0f} writes/s, "
                 f"{d.replica_writes_per_sec:,.0f} replica writes/s, migration")
    if base is None:
        net_basis += f"; UNVERIFIED: the catalog has no sourced network baseline for {inst.name}"
    vcpu_need = d.ops_per_sec / req.ops_per_vcpu
    return (
        ResourceUse(resource="RAM", need=round(ram_need, 3), have=round(ram_have, 3),
                    unit="GiB", utilisation=round(ram_need / ram_have, 4),
                    basis=f"{what} + {NODE_RESERVED_GIB:g} GiB reserved, of "
                          f"{USABLE_MEMORY_PCT:g} % of {inst.memory_gib:g} GiB"),
        ResourceUse(resource="network", need=round(net, 4),
                    have=None if base is None else base, unit="Gbit/s",
                    utilisation=None if base is None else round(net / base, 4),
                    basis=net_basis, verified=base is not None),
        ResourceUse(resource="CPU", need=round(vcpu_need, 3), have=float(inst.vcpu),
                    unit="vCPU", utilisation=round(vcpu_need / inst.vcpu, 4),
                    basis=f"{d.ops_per_sec:,.0f} ops/s at {req.ops_per_vcpu:,.0f} ops/s per "
                          "vCPU"),
    )


def over_limit(uses: tuple[ResourceUse, ...]) -> ResourceUse | None:
    """The first resource past its capacity (network without a figure cannot fail)."""
    return next((u for u in uses if u.utilisation is not None and u.utilisation > 1), None)


def fits(req: AerospikeSizeRequest, d: NodeDemand, inst: InstanceType) -> bool:
    """`instance_checks` finds nothing over its limit (numbers only: the fast path)."""
    if NODE_RESERVED_GIB + d.index_gib + d.data_in_memory_gib > usable_memory_gib(inst):
        return False
    base = inst.network_baseline_gbps
    if base is not None and max(d.network_in_gbps, d.network_out_gbps) > base:
        return False
    return d.ops_per_sec / req.ops_per_vcpu <= inst.vcpu
