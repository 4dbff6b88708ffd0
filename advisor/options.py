"""Options declared once: a request field carries its help, bounds and choices as metadata.

The CLI options (typer), the API bodies (pydantic), the report's reproduce command and the
defaults are generated from these declarations by the adapters, so they cannot drift. Checks
are made here, once, and fail with a `FieldError` in domain terms (`data_gb 0: must be positive`);
each adapter names the field in its own vocabulary (`--data-gb`, `data_gb`).
"""

import dataclasses
import math
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from advisor.errors import InvalidInput

MAX_NUMBER_TEXT = 40  # characters shown of a bad value
# The lowest latency SLO a request may state: 10 us, below the fastest device's service time
# (NVMe reads ~0.1 ms) and a client's round trip; lower bounds only make every search fail slowly.
P99_FLOOR_MS = 0.01


class FieldError(InvalidInput):
    """A request field holds a value outside what it accepts."""

    def __init__(self, name: str, value: Any, problem: str) -> None:
        self.name = name
        self.value = value
        self.problem = problem
        self.flag = flag_of(name)  # how the CLI names it
        super().__init__(f"{name} {show_value(value)}: {problem}")

    def named(self, label: str) -> str:
        """The message with the field named as an adapter names it (`--data-gb`)."""
        return f"{label} {show_value(self.value)}: {self.problem}"


def plain_number(x: float) -> str:
    """A float as it round-trips: 627.0 -> 627, 0.3333333 -> 0.3333333, 1e400 -> inf."""
    if not math.isfinite(x):
        return str(x)
    if x.is_integer() and abs(x) < 1e16:
        return str(int(x))
    return repr(x)


def flag_of(name: str) -> str:
    """The command-line flag of a request field: data_gb -> --data-gb."""
    return "--" + name.replace("_", "-")


def show_value(value: Any) -> str:
    """A value as a user typed it: numbers as they round-trip, text quoted, long input cut
    short."""
    if isinstance(value, bool):
        text = str(value).lower()
    elif isinstance(value, float):
        text = plain_number(value)
    elif isinstance(value, int):
        text = str(value) if abs(value) < 10**30 else f"a {len(str(abs(value)))}-digit number"
    elif value is None:
        text = "none"
    else:
        text = repr(value)
    return text if len(text) <= MAX_NUMBER_TEXT else text[:MAX_NUMBER_TEXT] + "..."


Reproduce = Literal["always", "changed", "never"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Opt:
    """How one request field is offered to users and which values it accepts."""

    help: str
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    lt: float | None = None
    choices: tuple[str, ...] | None = None
    panel: str | None = None  # CLI help panel
    reproduce: Reproduce = "changed"  # in a reproduce command: always, when not default, never
    text: tuple[Callable[[str], Any], Callable[[Any], str]] | None = None  # CLI (parse, show)
    api_type: Any = None  # the API body's type when it is not the field's (e.g. int | str)
    check: Callable[[Any], str | None] | None = None  # extra rule: a problem or None
    argument: bool = False  # a positional argument on the command line (required)

    def lower_text(self) -> str:
        if self.gt is not None:
            return "positive" if self.gt == 0 else f"above {_number(self.gt)}"
        return "0 or more" if self.ge == 0 else f"at least {_number(self.ge or 0)}"

    def upper_text(self) -> str:
        return f"at most {_number(self.le)}" if self.le is not None else \
            f"must be below {_number(self.lt or 0)}"

    def bounds_text(self) -> str:
        if self.gt == 0 and self.le is None and self.lt is None:
            return "positive"
        if self.ge == 0 and self.le is None and self.lt is None:
            return "0 or more"
        parts = []
        for word, bound in (("at least", self.ge), ("above", self.gt), ("at most", self.le),
                            ("below", self.lt)):
            if bound is not None:
                parts.append(f"{word} {_number(bound)}")
        return " and ".join(parts)


def _number(x: float) -> str:
    if isinstance(x, int):
        return f"{x:,}"
    return f"{int(x):,}" if x.is_integer() and abs(x) < 1e15 else f"{x:g}"


def option(default: Any = dataclasses.MISSING, *, help: str, **kwargs: Any) -> Any:
    """A dataclass field declared as a user-facing option (no default: required)."""
    return field(default=default, metadata={"option": Opt(help=help, **kwargs)})


@dataclass(frozen=True, slots=True)
class Declared:
    name: str
    default: Any
    type: Any
    opt: Opt

    @property
    def flag(self) -> str:
        return self.name.upper() if self.opt.argument else flag_of(self.name)


_DECLARED: dict[type, tuple[Declared, ...]] = {}


def declared(cls: type) -> tuple[Declared, ...]:
    """The option fields of a request class, in declaration order (read once per class)."""
    found = _DECLARED.get(cls)
    if found is None:
        hints = _hints(cls)
        found = _DECLARED[cls] = tuple(
            Declared(name=f.name, default=f.default, type=hints[f.name], opt=f.metadata["option"])
            for f in dataclasses.fields(cls) if "option" in f.metadata)
    return found


def _hints(cls: type) -> dict[str, Any]:
    import typing

    return typing.get_type_hints(cls)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def check_value(name: str, value: Any, opt: Opt) -> None:
    """Raise FieldError unless `value` is finite, within the bounds and among the choices."""
    try:
        _check(name, value, opt)
    except FieldError as exc:
        if opt.argument:  # a positional argument: the CLI names it SPEC, not --spec
            exc.flag = name.upper()
        raise


def _check(name: str, value: Any, opt: Opt) -> None:
    if _is_number(value):
        if isinstance(value, float) and not math.isfinite(value):
            raise FieldError(name, value, "must be a finite number")
        if (opt.ge is not None and value < opt.ge) or (opt.gt is not None and value <= opt.gt):
            raise FieldError(name, value, f"must be {opt.lower_text()}")
        if (opt.le is not None and value > opt.le) or (opt.lt is not None and value >= opt.lt):
            raise FieldError(name, value, opt.upper_text())
    if opt.choices is not None and value is not None and value not in opt.choices:
        raise FieldError(name, value, f"choose {', '.join(opt.choices[:-1])} or "
                         f"{opt.choices[-1]}" if len(opt.choices) > 1 else
                         f"must be {opt.choices[0]}")
    if opt.check is not None and value is not None:
        problem = opt.check(value)
        if problem:
            raise FieldError(name, value, problem)


def from_text(d: Declared, value: Any) -> Any:
    """A value typed as text (`--replicas auto`, JSON "2") parsed by the option's own parser."""
    return d.opt.text[0](value) if d.opt.text is not None and isinstance(value, str) else value


def check_fields(obj: Any) -> None:
    """Check every declared option of a request object (call from `__post_init__`): its type,
    then its bounds and rules."""
    for d in declared(type(obj)):
        value = getattr(obj, d.name)
        problem = type_problem(d.type, value)
        if problem:
            exc = FieldError(d.name, value, problem)
            if d.opt.argument:
                exc.flag = d.name.upper()
            raise exc
        check_value(d.name, value, d.opt)


_KIND = {bool: "true or false", int: "a whole number", float: "a number", str: "text"}


def type_problem(declared_type: Any, value: Any) -> str | None:
    """Why `value` is not of the declared type (None if it is): a core caller (a fleet file,
    a script) may pass anything; text and JSON are parsed by the adapters before this."""
    import types
    import typing

    origin = typing.get_origin(declared_type)
    union = origin is typing.Union or origin is types.UnionType
    kinds = typing.get_args(declared_type) if union else (declared_type,)
    if value is None:
        return None if type(None) in kinds else "required"
    kinds = tuple(k for k in kinds if k is not type(None))
    for kind in kinds:
        if kind is bool and isinstance(value, bool):
            return None
        if kind is int and isinstance(value, int) and not isinstance(value, bool):
            return None
        if kind is float and isinstance(value, int | float) and not isinstance(value, bool):
            return None
        if kind is str and isinstance(value, str):
            return None
        if kind not in _KIND:  # a type this check does not know: the field's own rule decides
            return None
    return "must be " + " or ".join(_KIND[k] for k in kinds if k in _KIND)


def changed(obj: Any) -> Iterator[tuple[Declared, Any]]:
    """The options a reproduce command must carry: always-shown ones and non-defaults."""
    for d in declared(type(obj)):
        value = getattr(obj, d.name)
        if d.opt.reproduce == "always" or (d.opt.reproduce == "changed" and value != d.default):
            yield d, value


def env_number(name: str, default: float, low: float, high: float, *,
                integer: bool = False) -> float:
    """$name as a finite number within [low, high], else InvalidInput in one line."""
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    text = raw.strip().replace("_", "")
    what = "a whole number" if integer else "a number"
    example = str(int(default)) if float(default).is_integer() else f"{default:g}"
    try:
        value = float(text) if len(text) <= 40 else math.nan
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or (integer and not value.is_integer()) \
            or not low <= value <= high:
        shown = raw if len(raw) <= 40 else raw[:40] + "…"
        raise InvalidInput(f"{name}={shown!r}: {what} from {low:g} to {high:g}, e.g. {example}")
    return value
