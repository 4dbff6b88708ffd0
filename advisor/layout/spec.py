"""The layout spec: one line a user can type, `INSTANCE[:RAID]:[Nx]DEVICE[:SIZE][:Niops][:Nmbps]`.

`parse_spec` checks only the grammar; `advisor.layout.model.resolve` checks the spec against the
catalog. `str(spec)` is canonical and round-trips: `parse_spec(str(s)) == s`.
"""

import re
from dataclasses import dataclass
from typing import Literal

from advisor.errors import InvalidLayout
from advisor.units import format_gib

Raid = Literal["raid0", "raid1", "raid10"]
RAID_LEVELS: tuple[Raid, ...] = ("raid0", "raid1", "raid10")
EBS_DEVICES = ("gp2", "gp3", "io1", "io2", "st1", "sc1", "standard")
DEFAULT_CHUNK_KIB = 512
LOCALHOST = "localhost"

MAX_SPEC_LENGTH = 200  # characters; the longest real spec is about 50
MAX_DIGITS = 9  # a number in a spec: sizes, IOPS, MiB/s and chunks are all below 10**9
MAX_CHUNK_KIB = 1024 * 1024  # 1 GiB: an I/O is at most 1 GiB (--bs), so a larger chunk splits none

# ASCII only: Python's \d also matches fullwidth and other scripts' digits, which int() accepts.
_COUNT_RE = re.compile(r"^([0-9]+)x(.+)$", re.ASCII)
_SIZE_RE = re.compile(r"^([0-9]+)(GiB|TiB)$", re.IGNORECASE | re.ASCII)
_IOPS_RE = re.compile(r"^([0-9]+)iops$", re.IGNORECASE | re.ASCII)
_MBPS_RE = re.compile(r"^([0-9]+)mbps$", re.IGNORECASE | re.ASCII)
_CHUNK_RE = re.compile(r"^chunk([0-9]+)(KiB|MiB)$", re.IGNORECASE | re.ASCII)
_INSTANCE_RE = re.compile(r"^[a-z][a-z0-9-]*\.[a-z0-9]+$|^localhost$")
_LOCAL_NAME_RE = re.compile(r"^[A-Za-z0-9_.-]+$")


@dataclass(frozen=True, slots=True, kw_only=True)
class LayoutSpec:
    """One server's storage as the user wrote it (grammar only, not yet checked against limits)."""

    instance: str
    device: str  # an EBS type, "store", or "local:NAME"
    raid: Raid | None = None
    count: int = 1
    size_gib: int | None = None
    iops: int | None = None
    throughput_mibps: int | None = None
    chunk_kib: int = DEFAULT_CHUNK_KIB

    @property
    def is_ebs(self) -> bool:
        return self.device in EBS_DEVICES

    @property
    def is_store(self) -> bool:
        return self.device == "store"

    @property
    def local_name(self) -> str | None:
        return self.device.split(":", 1)[1] if self.device.startswith("local:") else None

    def __str__(self) -> str:
        parts = [self.instance]
        if self.raid:
            parts.append(self.raid)
        parts.append(f"{self.count}x{self.device}" if self.count != 1 else self.device)
        if self.size_gib is not None:
            parts.append(format_gib(self.size_gib))
        if self.iops is not None:
            parts.append(f"{self.iops}iops")
        if self.throughput_mibps is not None:
            parts.append(f"{self.throughput_mibps}mbps")
        if self.chunk_kib != DEFAULT_CHUNK_KIB:
            parts.append(f"chunk{self.chunk_kib}KiB")
        return ":".join(parts)


def _bad(spec: str, position: int, token: str, why: str) -> InvalidLayout:
    return InvalidLayout(f"layout {spec!r}: token {position} {token!r}: {why}")


def _device_token(spec: str, tokens: list[str], i: int) -> tuple[int, str, int]:
    """(count, device, index of the next token) from the device token at `i`."""
    token = tokens[i]
    count = 1
    if match := _COUNT_RE.match(token):
        count, token = _whole(spec, i + 1, tokens[i], match.group(1)), match.group(2)
        if count < 1 or count > 64:
            raise _bad(spec, i + 1, tokens[i], "device count must be between 1 and 64")
    low = token.lower()
    if low in EBS_DEVICES or low == "store":
        return count, low, i + 1
    if low == "local":
        if i + 1 >= len(tokens) or not _LOCAL_NAME_RE.match(tokens[i + 1]):
            raise _bad(spec, i + 1, tokens[i], "local needs a device name, e.g. local:mydisk")
        return count, f"local:{tokens[i + 1]}", i + 2
    raise _bad(spec, i + 1, tokens[i],
               f"unknown device: expected one of {', '.join(EBS_DEVICES)}, store or local:NAME")


def parse_spec(spec: str) -> LayoutSpec:
    """Parse a layout spec; raises `InvalidLayout` naming the token that is wrong and why."""
    text = spec.strip()
    if not text:
        raise InvalidLayout("layout spec is empty: write e.g. m5d.large:gp2:385GiB")
    if len(text) > MAX_SPEC_LENGTH:
        raise InvalidLayout(f"layout {text[:40]!r}...: too long for a layout spec "
                            f"({len(text):,} characters, at most {MAX_SPEC_LENGTH})")
    if not text.isascii():
        at = next(i for i, ch in enumerate(text) if not ch.isascii())
        raise InvalidLayout(f"layout {text[:60]!r}: character {at + 1} {text[at]!r} is not "
                            "ASCII (specs use ASCII letters, digits, ':' and '.')")
    tokens = text.split(":")
    if any(not t for t in tokens):
        raise InvalidLayout(f"layout {spec!r}: empty token (two ':' in a row or a trailing ':')")
    instance = tokens[0]
    if not _INSTANCE_RE.match(instance):
        raise _bad(spec, 1, instance, "not an instance type like m5.large")
    if len(tokens) < 2:
        raise InvalidLayout(f"layout {spec!r}: no device after the instance "
                            "(e.g. m5.large:gp3:100GiB or m5d.large:store)")
    i = 1
    raid: Raid | None = None
    if tokens[1].lower() in RAID_LEVELS:
        raid = tokens[1].lower()  # type: ignore[assignment]
        i = 2
    elif tokens[1].lower().startswith("raid"):
        raise _bad(spec, 2, tokens[1], "RAID level must be raid0, raid1 or raid10")
    if i >= len(tokens):
        raise InvalidLayout(f"layout {spec!r}: no device after {tokens[i - 1]!r}")
    count, device, i = _device_token(spec, tokens, i)
    size: int | None = None
    iops: int | None = None
    mibps: int | None = None
    chunk = DEFAULT_CHUNK_KIB
    seen: set[str] = set()
    for position, token in enumerate(tokens[i:], start=i + 1):
        kind, value = _value_token(spec, position, token, device)
        if kind in seen:
            raise _bad(spec, position, token, f"{kind} given twice")
        seen.add(kind)
        if kind == "size":
            size = value
        elif kind == "iops":
            iops = value
        elif kind == "throughput":
            mibps = value
        else:
            chunk = value
    return LayoutSpec(instance=instance, device=device, raid=raid, count=count, size_gib=size,
                      iops=iops, throughput_mibps=mibps, chunk_kib=chunk)


def _whole(spec: str, position: int, token: str, digits: str) -> int:
    """The number in a token, refused before conversion when it has too many digits."""
    if len(digits.lstrip("0")) > MAX_DIGITS:
        raise _bad(spec, position, token, f"number too large ({len(digits)} digits, at most "
                   f"{MAX_DIGITS})")
    return int(digits)


def _value_token(spec: str, position: int, token: str, device: str) -> tuple[str, int]:
    if m := _SIZE_RE.match(token):
        factor = 1024 if m.group(2).lower() == "tib" else 1
        return "size", _whole(spec, position, token, m.group(1)) * factor
    if m := _IOPS_RE.match(token):
        return "iops", _whole(spec, position, token, m.group(1))
    if m := _MBPS_RE.match(token):
        return "throughput", _whole(spec, position, token, m.group(1))
    if m := _CHUNK_RE.match(token):
        kib = _whole(spec, position, token, m.group(1)) * (
            1024 if m.group(2).lower() == "mib" else 1)
        if kib < 4 or kib & (kib - 1):
            raise _bad(spec, position, token, "chunk size must be a power of two of at least 4KiB")
        if kib > MAX_CHUNK_KIB:
            raise _bad(spec, position, token, "chunk size at most 1GiB (1024MiB): an I/O is at "
                       "most 1 GiB, so a larger chunk splits none")
        return "chunk", kib
    low = token.lower()
    if low in EBS_DEVICES or low == "store" or _COUNT_RE.match(low):
        raise _bad(spec, position, token,
                   f"a layout has one device type; {token!r} after {device!r} mixes types")
    if re.match(r"^\d+(\.\d+)?\s*(gb|tb|g|t|mb|m)$", low):
        raise _bad(spec, position, token, "sizes are whole GiB or TiB, e.g. 500GiB or 2TiB")
    raise _bad(spec, position, token,
               "expected a size (500GiB), IOPS (3000iops), throughput (250mbps) or chunk "
               "(chunk256KiB)")
