"""Aerospike options that `size` and `simulate` both take, declared once (advisor.options)."""

from typing import Any

from advisor.options import option

# Aerospike 7+: a record fits one write block (write-block-size), at most 8 MiB; stored
# records are rounded up to 16 B (ACT's derive_configuration).
MAX_RECORD_BYTES = 8 << 20


def record_bytes_option(**kwargs: Any) -> Any:
    """The --record-bytes field, with the same default, bounds and help on every request."""
    return option(1536, ge=1, le=MAX_RECORD_BYTES,
                  help="aerospike: record size in bytes (stored rounded up to 16 B)", **kwargs)
