"""The one `size` entry point: CLI and API both call `run_size`."""

from pathlib import Path
from typing import Any

from advisor.catalog.model import Catalog
from recommend.request import SizeRequest


def run_size(req: SizeRequest, catalog: Catalog, *, io_profile_path: Path | None = None,
             progress: Any = None) -> dict[str, Any]:
    measured = None
    if io_profile_path is not None:
        from workloads.io_profile import load_io_profile
        from workloads.mysql import measured_io

        measured = measured_io(load_io_profile(io_profile_path))
    if req.workload == "aerospike":
        from recommend.aerospike_search import size_aerospike

        return size_aerospike(req, catalog, progress=progress)
    from recommend.size import size_mysql

    return size_mysql(req, catalog, measured, progress=progress)
