"""The sizing request: workload, SLO and constraints, checked once for the CLI and the API."""

import math
from dataclasses import dataclass
from typing import Literal

from advisor.errors import InvalidInput

Workload = Literal["mysql", "aerospike"]
FREE_SPACE_MARGIN = 0.2  # data x 1.2: InnoDB logs, temp space, growth
AEROSPIKE_FILL = 0.5  # Aerospike keeps devices at most ~50 % full (defrag-lwm-pct 50)


@dataclass(frozen=True, slots=True, kw_only=True)
class SizeRequest:
    workload: Workload = "mysql"
    tps: float = 627.0
    reads: float = 3.25  # read transactions per write transaction
    p99_ms: float = 10.0
    data_gb: float = 100.0
    replicas: int | None = 1  # None = let the search choose (auto)
    headroom: float = 0.3  # the knee must be >= tps x (1 + headroom)
    peak_hours: float = 24.0  # hours a day at peak; 24 = sustained
    allow_ephemeral: bool = False
    max_monthly_usd: float | None = None
    region: str | None = None
    # aerospike
    reads_per_sec: float = 0.0
    writes_per_sec: float = 0.0
    record_bytes: int = 1536
    replication_factor: int = 2
    seed: int = 1

    def __post_init__(self) -> None:
        def need(ok: bool, message: str) -> None:
            if not ok:
                raise InvalidInput(message)

        for name in ("tps", "reads", "p99_ms", "data_gb", "headroom", "peak_hours",
                     "reads_per_sec", "writes_per_sec"):
            value = getattr(self, name)
            need(isinstance(value, int | float) and math.isfinite(value),
                 f"--{name.replace('_', '-')} {value!r}: must be a finite number")
        need(self.workload in ("mysql", "aerospike"),
             f"--workload {self.workload!r}: choose mysql or aerospike")
        need(self.data_gb > 0, f"--data-gb {self.data_gb:g}: must be positive")
        need(self.data_gb <= 1_000_000, f"--data-gb {self.data_gb:g}: at most 1,000,000")
        need(self.p99_ms > 0, f"--p99-ms {self.p99_ms:g}: must be positive")
        need(0 <= self.headroom <= 10, f"--headroom {self.headroom:g}: must be 0..10 (0.3 = 30 %)")
        need(0 < self.peak_hours <= 24, f"--peak-hours {self.peak_hours:g}: must be 0 < h <= 24")
        need(self.max_monthly_usd is None or self.max_monthly_usd > 0,
             "--max-monthly-usd must be positive")
        if self.workload == "mysql":
            need(self.tps > 0, f"--tps {self.tps:g}: must be positive")
            need(self.tps <= 10_000_000, f"--tps {self.tps:g}: at most 10,000,000")
            need(0 <= self.reads <= 10_000, f"--reads {self.reads:g}: must be 0..10,000")
            need(self.replicas is None or 0 <= self.replicas <= 8,
                 f"--replicas {self.replicas}: must be 0..8 or auto")
        else:
            need(self.reads_per_sec >= 0 and self.writes_per_sec >= 0,
                 "--reads-per-sec and --writes-per-sec must be 0 or more")
            need(self.reads_per_sec + self.writes_per_sec > 0,
                 "aerospike needs --reads-per-sec and/or --writes-per-sec")
            need(1 <= self.replication_factor <= 4, "--replication-factor must be 1..4")
            need(16 <= self.record_bytes <= 1 << 20, "--record-bytes must be 16 B .. 1 MiB")

    @property
    def target_tps(self) -> float:
        """Load the knee must reach: tps x (1 + headroom)."""
        return self.tps * (1 + self.headroom)

    @property
    def needed_gib(self) -> float:
        return self.data_gb * (1 + FREE_SPACE_MARGIN)

    def slo_json(self) -> dict[str, object]:
        if self.workload == "aerospike":
            return {"act": {"gt_1ms_pct": 5, "gt_8ms_pct": 1, "gt_64ms_pct": 0.1},
                    "headroom": self.headroom, "peak_hours": self.peak_hours}
        return {"p99_ms": self.p99_ms, "tps": self.tps, "headroom": self.headroom,
                "target_tps": round(self.target_tps, 2), "peak_hours": self.peak_hours,
                "durability": "ephemeral allowed with >= 1 replica" if self.allow_ephemeral
                else "EBS only"}
