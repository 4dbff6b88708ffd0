"""The sizings' event-simulation results kept between runs, one JSON file per workload in the
user's cache directory (`ADVISOR_CACHE_DIR` overrides it; set it empty to keep nothing): the
Aerospike search's verdicts and the MySQL search's replications.

An entry is keyed by everything it depends on (`recommend.aerospike_search._verify_key`,
`recommend.mysql_search._replication_key`); the file's name also carries a fingerprint of the
simulator's source files, so a changed simulator starts a new file rather than reading old
results.
"""

import contextlib
import hashlib
import importlib.util
import os
from collections.abc import Iterator, MutableMapping
from pathlib import Path
from typing import Any

from advisor.errors import AdvisorError
from advisor.userfiles import read_json_object, write_json

# Entries kept per file, the newest: an Aerospike verdict is small; a MySQL replication is its
# latency histogram (a few hundred bins, ~5 KB): the main job keeps ~60 of them.
MAX_ENTRIES = {"aerospike": 4096, "mysql": 1024}


def _source(module: str) -> Path:
    """A module's source file, found without importing it (a MySQL sizing need not load the
    Aerospike search to stamp its cache)."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(module)
    return Path(spec.origin)


def _code_fingerprint(workload: str) -> str:
    files = sorted(_source("advisor.sim").parent.rglob("*.py"))
    if workload == "mysql":  # the server's model and what it draws on (buffer pool, shapes)
        files += sorted(_source("workloads.mysql").parent.glob("*.py"))
        files += [_source("recommend.mysql_search")]
    else:
        files += [_source("workloads.aerospike"), _source("recommend.aerospike_search")]
    h = hashlib.sha256()
    for f in files:
        st = f.stat()
        h.update(f"{f.name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


def _cache_dir() -> Path | None:
    env = os.environ.get("ADVISOR_CACHE_DIR")
    if env is not None:
        return Path(env) if env else None
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("advisor"))


@contextlib.contextmanager
def verify_memo(workload: str = "aerospike") -> Iterator[MutableMapping[str, Any] | None]:
    """A dict of the workload's results read from its cache file, written back (atomically) if
    it grew; None when caching is off or the directory cannot be used."""
    folder = _cache_dir()
    if folder is None:
        yield None
        return
    name = "aerospike-verified" if workload == "aerospike" else f"{workload}-des"
    path = folder / f"{name}-{_code_fingerprint(workload)}.json"
    memo: dict[str, Any] = {}
    if path.exists():
        with contextlib.suppress(AdvisorError):  # an unreadable cache is an empty one
            memo = read_json_object(path, what="verdict cache")
    before = len(memo)
    yield memo
    if len(memo) == before:
        return
    keep = dict(list(memo.items())[-MAX_ENTRIES[workload]:])  # the newest
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_json(path, keep, what="verdict cache")
    except (OSError, AdvisorError):
        pass  # a cache that cannot be written only costs the next run its time
