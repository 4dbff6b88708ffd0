"""Parsing and formatting of sizes with explicit units (KiB, MiB, GiB, TiB; k/m/g for fio)."""

import re

from advisor.errors import InvalidInput

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB
TIB = 1024 * GIB

_BINARY = {"": 1, "b": 1, "k": KIB, "kb": KIB, "kib": KIB, "m": MIB, "mb": MIB, "mib": MIB,
           "g": GIB, "gb": GIB, "gib": GIB, "t": TIB, "tb": TIB, "tib": TIB}
# ASCII digits only (Python's \d also matches e.g. fullwidth and Arabic-Indic digits).
_SIZE_RE = re.compile(r"^\s*([0-9]{1,20}(?:\.[0-9]{1,20})?)\s*([a-zA-Z]{0,3})\s*$", re.ASCII)
MAX_SIZE_TEXT = 48  # characters: longer input is refused before it is parsed


def parse_bytes(text: str, *, what: str = "size") -> int:
    """Parse '4k', '16KiB', '1M', '500GiB' as bytes (binary multiples, as fio and sysbench do)."""
    if len(text) > MAX_SIZE_TEXT:
        raise InvalidInput(f"{what} {text[:MAX_SIZE_TEXT]!r}...: too long for a size like 4k, "
                           "16KiB, 1MiB or 500GiB")
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


def shown_past(value: float, limit: float, *, percent: bool = True, digits: int = 0) -> str:
    """`value` with just the digits that show it past `limit`: a load at 95.3 % of a 95 % limit
    reads "95.3%", not "95%" beside "(limit 95%)", which reads as within it; a p99 of 10.04 ms
    against 10 ms reads "10.04", not "10.0". At most three digits more than `digits`."""
    scale = 100.0 if percent else 1.0
    text = ""
    for d in range(digits, digits + 4):
        text = f"{value * scale:,.{d}f}"
        if (float(text.replace(",", "")) > limit * scale) == (value > limit):
            break
    return text + ("%" if percent else "")
