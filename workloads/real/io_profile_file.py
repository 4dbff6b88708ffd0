"""I/O profile files: read and validate (pydantic only here), write atomically.

`advisor replay --io-profile-out` writes them; `advisor simulate|size --io-profile` reads them,
and the API takes the same document as the `io_profile` field of `POST /v1/size` and `/v1/simulate`.
"""

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from advisor.errors import InvalidInput
from advisor.userfiles import read_json_object, write_json
from workloads.io_profile import (
    SCHEMA,
    IoProfile,
    MeasuredShape,
    ReadTxnIo,
    WriteTxnIo,
    io_profile_document,
)
from workloads.mysql_shape import PRESETS, check_txn

# Per-transaction figures, bounded where no measured workload goes (a million page accesses or
# fsyncs, a TiB of log per transaction), so arithmetic on them stays finite.
MAX_PER_TXN = 1e6
MAX_BYTES_PER_TXN = float(2**40)
_Count = Annotated[float, Field(ge=0, le=MAX_PER_TXN, allow_inf_nan=False)]
_Bytes = Annotated[float, Field(ge=0, le=MAX_BYTES_PER_TXN, allow_inf_nan=False)]


class _WriteModel(BaseModel):
    model_config = ConfigDict(extra="allow")
    page_reads: _Count
    page_writes: _Count
    redo_bytes: _Bytes
    redo_fsyncs: _Count
    binlog_bytes: _Bytes
    binlog_fsyncs: _Count
    doublewrite_pages: _Count


class _ReadModel(BaseModel):
    model_config = ConfigDict(extra="allow")
    page_reads: _Count
    logical_reads: _Count


class _ShapeModel(BaseModel):
    """The measured transaction shape (optional: files before issue 10 have none)."""

    model_config = ConfigDict(extra="allow")
    driver: str
    transactions: Annotated[int, Field(ge=1, le=10**15)]
    read_txn: str | None = None
    write_txn: str | None = None
    reads_per_write: Annotated[float, Field(ge=0, le=MAX_PER_TXN, allow_inf_nan=False)] = 0.0
    nearest_preset: str
    distance: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 0.0
    per_txn: dict[str, Annotated[float, Field(ge=-MAX_BYTES_PER_TXN, le=MAX_BYTES_PER_TXN,
                                              allow_inf_nan=False)]] = Field(
        default_factory=dict)

    @field_validator("read_txn", "write_txn")
    @classmethod
    def _grammar(cls, value: str | None) -> str | None:
        if value is not None and (problem := check_txn(value)):
            raise ValueError(problem)
        return value

    @field_validator("nearest_preset")
    @classmethod
    def _preset(cls, value: str) -> str:
        if value not in PRESETS:
            raise ValueError(f"no preset {value!r} (one of {', '.join(PRESETS)})")
        return value


class _ProfileModel(BaseModel):
    model_config = ConfigDict(extra="allow")
    schema_: Literal["advisor.io_profile/1"] = Field(alias="schema")
    source: str
    server: str = "unknown"
    per_write_txn: _WriteModel
    per_read_txn: _ReadModel
    buffer_pool_miss_ratio: Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
    measured_at: dict[str, Any] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    shape: _ShapeModel | None = None


def load_io_profile(path: str | Path) -> IoProfile:
    """Read and validate an I/O profile; errors are one line naming the file and the field."""
    return parse_io_profile(read_json_object(path, what="io profile"), where=f"io profile {path}")


def parse_io_profile(raw: Any, *, where: str) -> IoProfile:
    """Validate an I/O profile document (a file's contents, or the API's `io_profile` field);
    errors are one line naming `where` and the field."""
    if not isinstance(raw, Mapping):
        raise InvalidInput(f"{where}: must be a JSON object (an advisor I/O profile, as "
                           "`advisor replay --io-profile-out` writes it)")
    try:
        model = _ProfileModel.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "(top level)"
        literal = first["type"] == "literal_error"
        message = f"must be {SCHEMA!r}" if literal else first["msg"]
        raise InvalidInput(f"{where}: field {loc}: {message}") from None
    return IoProfile(
        source=model.source,
        server=model.server,
        per_write_txn=WriteTxnIo(
            **{k: getattr(model.per_write_txn, k) for k in WriteTxnIo.__dataclass_fields__}
        ),
        per_read_txn=ReadTxnIo(page_reads=model.per_read_txn.page_reads,
                               logical_reads=model.per_read_txn.logical_reads),
        buffer_pool_miss_ratio=model.buffer_pool_miss_ratio,
        measured_at=model.measured_at,
        notes=tuple(model.notes),
        shape=None if model.shape is None else MeasuredShape(
            **{k: getattr(model.shape, k) for k in MeasuredShape.__dataclass_fields__}),
    )


def save_io_profile(profile: Mapping[str, Any] | IoProfile, path: str | Path) -> None:
    """Write a profile (as derived, or an `IoProfile`); the parent directory must exist."""
    write_json(path, io_profile_document(profile, where=f"io profile {path}"), what="io profile")
