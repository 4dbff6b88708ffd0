"""Parsing and formatting of sizes with explicit units (KiB, MiB, GiB, TiB; k/m/g for fio)."""

import re

from advisor.errors import InvalidInput

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB
TIB = 1024 * GIB

_BINARY = {"": 1, "b": 1, "k": KIB, "kb": KIB, "kib": KIB, "m": MIB, "mb": MIB, "mib": MIB,
           "g": GIB, "gb": GIB, "gib": GIB, "t": TIB, "tb": TIB, "tib": TIB}
_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$")


def parse_bytes(text: str, *, what: str = "size") -> int:
    """Parse '4k', '16KiB', '1M', '500GiB' as bytes (binary multiples, as fio and sysbench do)."""
    match = _SIZE_RE.match(text)
    if not match or match.group(2).lower() not in _BINARY:
        raise InvalidInput(f"{what} {text!r} is not a size like 4k, 16KiB, 1MiB or 500GiB")
    size = float(match.group(1)) * _BINARY[match.group(2).lower()]
    if size <= 0 or size != int(size):
        raise InvalidInput(f"{what} {text!r} must be a positive whole number of bytes")
    return int(size)


def format_gib(size_gib: float) -> str:
    """Canonical GiB/TiB spelling used by layout specs: whole TiB as TiB, else GiB."""
    if size_gib >= 1024 and size_gib % 1024 == 0:
        return f"{int(size_gib // 1024)}TiB"
    return f"{int(size_gib)}GiB" if size_gib == int(size_gib) else f"{size_gib:g}GiB"
