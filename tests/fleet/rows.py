"""Small fleets for the tests: Aerospike rows (their search takes well under a second warm)."""

from typing import Any

CHEAP: list[dict[str, Any]] = [
    {"id": "as-1", "workload": "aerospike", "reads_per_sec": 2000, "writes_per_sec": 500,
     "data_gb": 50, "current_monthly_usd": 300.0, "current_deployment": "3 x m5.large"},
    {"id": "as-2", "workload": "aerospike", "reads_per_sec": 1000, "writes_per_sec": 200,
     "data_gb": 20, "replication_factor": 1, "current_monthly_usd": 90.0},
    {"id": "as-3", "workload": "aerospike", "reads_per_sec": 4000, "writes_per_sec": 1000,
     "data_gb": 80, "record_bytes": 4096},
    {"id": "as-4", "workload": "aerospike", "reads_per_sec": 800, "writes_per_sec": 800,
     "data_gb": 30, "current_monthly_usd": 500.0},
]
MALFORMED: dict[str, Any] = {"id": "bad-1", "workload": "aerospike", "reads_per_sec": -5}
