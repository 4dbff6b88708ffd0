"""Fuzzing the request models, as a careless or hostile user would fill them: whatever the values
(NaN, infinities, 400-digit numbers, non-ASCII digits, empty and huge text, wrong types, options
of another workload), `size` and `simulate` answer with a request or with one line naming the
field, through the core and through the command line: never an internal error (exit 3), never a
traceback, never a second line."""

import contextlib
import io
import math
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.catalog.model import Catalog
from advisor.cli.main import main
from advisor.errors import AdvisorError, InfeasibleSlo
from advisor.options import Declared
from advisor.userfiles import load_catalog
from recommend.request import size_fields, size_request
from workloads.simulate_request import simulate_fields, simulate_request

EXAMPLES = 60
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))
SPECS = ("m5d.large:gp2:385GiB", "i3.large:store", "r5.large:gp3:500GiB",
         "c4.2xlarge:raid0:5xgp2:100GiB")
MAX_LINE = 400  # characters of the one line a refusal prints


# -- values ----------------------------------------------------------------------------------

HOSTILE_TEXT = ["", " ", "nan", "NaN", "inf", "-inf", "Infinity", "1e400", "-1", "0", "-0",
                "9" * 400, "9" * 5000, "0x10", "1_000", "١٢٣", "３８５", "4k", "1000000t",
                "auto", "true", "none", "rate=nan", "rate=1e15", "threads=" + ",".join(
                    str(i) for i in range(1, 65)), "x=1e-300", "m5d.large:gp2:３８５GiB",
                "m5.large:raid0:2xgp2:100GiB:chunk1048576MiB", "a" * 3000, "é", "\x00", "%s"]


def _numbers(d: Declared) -> st.SearchStrategy[Any]:
    """Numbers near and past the declared bounds, and the ones no bound mentions."""
    edges = [b for b in (d.opt.ge, d.opt.gt, d.opt.le, d.opt.lt) if b is not None]
    near = [x for b in edges for x in (b, b * (1 + 1e-9) + 1e-12, b * (1 - 1e-9) - 1e-12)]
    return st.one_of(
        st.sampled_from([*near, 0, -1, 1, 10**400, -(10**400), 2**63, 1e308, 1e-300]),
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(min_value=-(10**30), max_value=10**30))


def _value(d: Declared) -> st.SearchStrategy[Any]:
    """Any value a JSON body or a Python caller could put in the field."""
    options = [_numbers(d), st.sampled_from(HOSTILE_TEXT), st.booleans(), st.none(),
               st.text(max_size=30)]
    if d.opt.choices:
        options.append(st.sampled_from(d.opt.choices))
    if d.name in ("spec", "replica_layout"):
        options.append(st.sampled_from(SPECS))
    return st.one_of(options)


def _text(d: Declared) -> st.SearchStrategy[str]:
    """What a user could type after the flag."""
    return st.one_of(_value(d).map(_typed), st.text(max_size=30))


def _typed(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return str(int(value))
    return "" if value is None else str(value)


def _requests(fields: dict[str, Declared], *, typed: bool,
              base: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """A base request with up to five fields changed to fuzzed values."""
    names = sorted(fields)
    chosen = st.lists(st.sampled_from(names), max_size=5, unique=True)

    @st.composite
    def build(draw: Callable[..., Any]) -> dict[str, Any]:
        values = dict(draw(base))
        for name in draw(chosen):
            d = fields[name]
            values[name] = draw(_value(d) if typed else _text(d))
        return values

    return build()


SIZE_BASE = st.sampled_from([{}, {"workload": "aerospike", "reads_per_sec": 10_000},
                             {"workload": "mysql", "tps": 100}])
SIM_BASE = st.sampled_from([{"spec": s} for s in SPECS] + [
    {"spec": "r5.large:gp3:500GiB", "workload": "mysql"},
    {"spec": "i3.large:store", "workload": "aerospike"}])


def _one_line(text: str) -> None:
    assert "\n" not in text.strip(), text
    assert "Traceback" not in text, text
    assert 0 < len(text.strip()) <= MAX_LINE, text


# -- the core --------------------------------------------------------------------------------


@FUZZ
@given(values=_requests(size_fields(), typed=True, base=SIZE_BASE))
def test_any_size_values_give_a_request_or_one_line(values: dict[str, Any]) -> None:
    """size_request never fails other than with a one-line AdvisorError naming a field."""
    try:
        req = size_request(values)
    except AdvisorError as exc:
        _one_line(str(exc))
        return
    for d in size_fields().values():  # an accepted number is finite and within its bounds
        value = getattr(req, d.name, None)
        if isinstance(value, float):
            assert math.isfinite(value), (d.name, value)


@FUZZ
@given(values=_requests(simulate_fields(), typed=True, base=SIM_BASE))
def test_any_simulate_values_give_a_request_or_one_line(values: dict[str, Any]) -> None:
    try:
        req = simulate_request(values)
    except AdvisorError as exc:
        _one_line(str(exc))
        return
    for d in simulate_fields().values():
        value = getattr(req, d.name, None)
        if isinstance(value, float):
            assert math.isfinite(value), (d.name, value)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(use_env=False)


SMALL_BUDGET = 300_000  # simulated I/Os: keeps each accepted example well under a second


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::RuntimeWarning:advisor.sim.analytic")
@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(values=_requests(simulate_fields(), typed=True, base=SIM_BASE))
def test_an_accepted_simulation_runs_or_is_refused_in_one_line(
        catalog: Catalog, values: dict[str, Any]) -> None:
    """Whatever simulate_request accepts, the core runs or refuses (over the work budget, a
    layout that cannot hold the data ...) with one line: the kernel never sees NaN or inf."""
    from workloads.simulate import run_simulate

    values = {**values, "duration": min(_finite(values.get("duration"), 2.0), 2.0)}
    values.pop("warmup", None)
    try:
        req = simulate_request(values)
        result = run_simulate(req, catalog, io_budget=SMALL_BUDGET)
    except AdvisorError as exc:
        _one_line(str(exc))
        return
    assert result.levels


def _finite(value: Any, default: float) -> float:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if ok and math.isfinite(value) and value > 0 else default


# -- the command line ------------------------------------------------------------------------


@contextlib.contextmanager
def _captured() -> Iterator[tuple[io.StringIO, io.StringIO]]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        yield out, err


def _argv(command: str, values: dict[str, Any], fields: dict[str, Declared]) -> list[str]:
    argv = [command]
    for name, value in values.items():
        if name == "spec":
            argv.append(_typed(value))
            continue
        d = fields.get(name)
        flag = "--" + name.replace("_", "-")
        if d is not None and d.type is bool:
            if value in (True, "true"):
                argv.append(flag)
            continue
        argv += [flag, _typed(value)]
    return argv


@pytest.fixture
def stub_size(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """`advisor size` up to the core call: a request that got that far is answered 'no layout'
    (exit 1) at once instead of searching the catalog (tests/recommend runs real searches)."""
    seen: list[Any] = []

    def fake(req: Any, catalog: Any, **kwargs: Any) -> Any:
        seen.append(req)
        raise InfeasibleSlo("stub: the request was accepted")

    monkeypatch.setattr("recommend.run.run_size", fake)
    return seen


@pytest.fixture
def budgeted_simulate(monkeypatch: pytest.MonkeyPatch) -> None:
    """`advisor simulate` with a small work budget and at most 2 simulated seconds a level."""
    import workloads.simulate as core

    real = core.run_simulate

    def run(req: Any, catalog: Any, **kwargs: Any) -> Any:
        return real(req, catalog, **{**kwargs, "io_budget": SMALL_BUDGET})

    monkeypatch.setattr(core, "run_simulate", run)


@pytest.mark.slow
@FUZZ
@given(values=_requests(size_fields(), typed=False, base=SIZE_BASE))
def test_size_on_the_command_line_never_fails_internally(stub_size: list[Any],
                                                         values: dict[str, Any]) -> None:
    """Any flags and values: exit 1 (reached the search) or 2 with one `error:` line."""
    with _captured() as (_, err):
        code = main(_argv("size", values, size_fields()))
    assert code in (1, 2), (code, err.getvalue())
    _one_line(err.getvalue())
    if code == 2:
        assert err.getvalue().startswith("error: "), err.getvalue()


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::RuntimeWarning:advisor.sim.analytic")
@FUZZ
@given(values=_requests(simulate_fields(), typed=False, base=SIM_BASE))
def test_simulate_on_the_command_line_never_fails_internally(budgeted_simulate: None,
                                                             values: dict[str, Any]) -> None:
    """Any flags and values: a result (exit 0) or one `error:` line (exit 2)."""
    values = {**values, "duration": "1", "format": "json"}
    values.pop("warmup", None)
    with _captured() as (_, err):
        code = main(_argv("simulate", values, simulate_fields()))
    assert code in (0, 2), (code, err.getvalue())
    if code == 2:
        _one_line(err.getvalue())
        assert err.getvalue().startswith("error: "), err.getvalue()
