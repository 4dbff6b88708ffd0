"""The one serialiser: typed results and requests to plain JSON values, and back.

Results are frozen dataclasses in the core; JSON exists only at the edges (CLI output, API
bodies, stored runs, reports), all of which go through `to_json` / `from_json`. A field whose
metadata says `omit_none` is left out of the JSON while it is None (e.g. `why` on the
recommendation, which only alternatives carry); one whose metadata has an `alias` is written
under that key and read back from it (`pass`, a Python keyword). Every top-level result carries
`schema_version`; `from_json` refuses a result of another version with one line.
"""

import dataclasses
import math
from collections.abc import Mapping
from typing import Any, TypeVar

from advisor.errors import InvalidInput

SCHEMA_VERSION = 2
T = TypeVar("T")
OMIT_NONE = {"omit_none": True}


def to_json(value: Any) -> Any:
    """Plain JSON values: dataclasses as objects (ClassVar `workload` included), tuples as
    lists, NaN and infinities as null, numpy scalars and arrays as Python ones."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        workload = getattr(type(value), "workload", None)
        fields = dataclasses.fields(value)
        if isinstance(workload, str) and all(f.name != "workload" for f in fields) \
                and (not fields or fields[0].name != "kind"):
            out["workload"] = workload
        for f in fields:
            item = getattr(value, f.name)
            if item is None and f.metadata.get("omit_none"):
                continue
            out[f.metadata.get("alias", f.name)] = to_json(item)
            if f.name == "kind" and isinstance(workload, str):  # {"kind", "workload", ...}
                out["workload"] = workload
        return out
    if isinstance(value, bool | str | int) or value is None:
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_json(v) for v in value]
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return to_json(value.tolist())
    if hasattr(value, "value") and isinstance(value.value, str):  # enums
        return value.value
    raise TypeError(f"cannot serialise {type(value).__name__}")


_ADAPTERS: dict[Any, Any] = {}


def _adapter(cls: Any) -> Any:
    """pydantic's validator for `cls`, built once per type (building one costs milliseconds)."""
    found = _ADAPTERS.get(cls)
    if found is None:
        from pydantic import TypeAdapter

        found = _ADAPTERS[cls] = TypeAdapter(cls)
    return found


def from_json(cls: type[T], data: Any) -> T:
    """The typed object of `cls` from JSON (a stored run, a result file); one line if it is not
    one (wrong kind, another schema version, a missing field)."""
    from pydantic import ValidationError

    if isinstance(data, Mapping) and data.get("schema_version", 1) != SCHEMA_VERSION:
        raise InvalidInput(f"result schema version {data.get('schema_version', 1)!r}: this "
                           f"advisor reads version {SCHEMA_VERSION}; re-run the command that "
                           "made it")
    try:
        return _adapter(cls).validate_python(data)  # type: ignore[no-any-return]
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "result"
        raise InvalidInput(f"not a {getattr(cls, '__name__', 'result')} result: {where}: "
                           f"{first['msg']}") from None
