"""Fuzzing user catalog files: any figure a user (or a broken script) writes into a latency
profile, a volume type or an instance type is either refused with one line naming the entry and
the field, or accepted and then simulated to finite results; NaN, Infinity and absurd figures
never reach the simulator's compiled kernel."""

import copy
import json
import math
from importlib import resources
from typing import Any

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from advisor.catalog import builtin_catalog, extend_catalog
from advisor.catalog.load import MAX_ENTRIES
from advisor.errors import AdvisorError, CatalogError
from advisor.layout import resolve
from advisor.sim.run import simulate_pattern
from advisor.sim.source import IoPattern

BUILTIN = json.loads(resources.files("advisor.catalog").joinpath("data", "us-east-1.json")
                     .read_text("utf-8"))
ENTRIES = {
    "latency_profiles": next(p for p in BUILTIN["latency_profiles"] if p["name"] == "ebs-gp2"),
    "volume_types": next(v for v in BUILTIN["volume_types"] if v["name"] == "gp2"),
    "instance_types": next(i for i in BUILTIN["instance_types"] if i["name"] == "m5d.large"),
}
HOSTILE = [math.nan, math.inf, -math.inf, 1e308, 1e300, 1e-300, -1.0, 0.0, 10**400, 2**63,
           "1", None, [], {}, True]


def _paths(entry: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every numeric leaf of an entry, as a path of keys."""
    if isinstance(entry, dict):
        return [p for k, v in entry.items() for p in _paths(v, (*prefix, k))]
    if isinstance(entry, int | float) and not isinstance(entry, bool):
        return [prefix]
    return []


def _set(entry: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(entry)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


@st.composite
def _mutated(draw: Any) -> tuple[str, dict[str, Any]]:
    kind = draw(st.sampled_from(sorted(ENTRIES)))
    entry = ENTRIES[kind]
    for path in draw(st.lists(st.sampled_from(_paths(entry)), min_size=1, max_size=3)):
        value = draw(st.one_of(st.sampled_from(HOSTILE), st.floats(), st.integers()))
        entry = _set(entry, path, value)
    return kind, entry


def _text(kind: str, entry: dict[str, Any]) -> str:
    """JSON as Python writes it: NaN and Infinity appear as the bare words json.loads reads."""
    return json.dumps({"schema_version": 1, kind: [entry]})


@pytest.mark.filterwarnings("ignore::RuntimeWarning:advisor.sim.analytic")
@settings(max_examples=20, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(case=_mutated(), spec=st.sampled_from(["m5d.large:gp2:385GiB", "m5d.large:store"]))
def test_a_user_figure_is_refused_in_one_line_or_simulates_finitely(
        case: tuple[str, dict[str, Any]], spec: str) -> None:
    kind, entry = case
    note(f"{kind}: {json.dumps(entry)}")
    try:
        catalog = extend_catalog(builtin_catalog(), "user.json", _text(kind, entry))
    except CatalogError as exc:
        refusal = str(exc)
        assert "\n" not in refusal
        assert refusal.startswith("user.json: "), refusal
        return
    try:
        layout = resolve(spec, catalog)
    except AdvisorError as exc:  # valid figures that make this layout impossible
        refusal = str(exc)
        assert "\n" not in refusal
        return
    pattern = IoPattern(name="randrw", read_fraction=0.75, random=True, block_bytes=4096,
                        concurrency=8, span_bytes=2**30)
    result = simulate_pattern(layout, catalog, pattern, duration_s=0.5, engine="des")
    level = result.levels[0]
    assert math.isfinite(level.iops.total)
    assert level.iops.total > 0
    read = level.latency_ms.read
    for value in (read.p50, read.p99, read.max):
        assert value is None or math.isfinite(value)


@pytest.mark.parametrize(("kind", "path", "value", "problem"), [
    ("instance_types", ("hourly_usd",), math.inf, "finite number"),
    ("volume_types", ("storage_usd_per_gib_month",), math.nan, "finite number"),
    ("latency_profiles", ("read", "median_ms"), 1e300, "less than or equal to 60000"),
    ("latency_profiles", ("write", "tail_max_ms"), math.inf, "finite number"),
    ("latency_profiles", ("transfer_mibps",), 1e-300, "greater than or equal to 0.1"),
    ("instance_types", ("ebs", "max_iops"), 1e15, "less than or equal to 1000000000"),
    ("instance_types", ("store", "read_iops"), 1e-300, "greater than or equal to 1"),
])
def test_absurd_catalog_figures_are_refused_naming_the_field(
        kind: str, path: tuple[str, ...], value: float, problem: str) -> None:
    """Infinity as a price, a latency of 1e300 ms: the file, entry and field in one line."""
    entry = _set(ENTRIES[kind], path, value)
    with pytest.raises(CatalogError, match=problem) as caught:
        extend_catalog(builtin_catalog(), "user.json", _text(kind, entry))
    assert ".".join(path) in str(caught.value)


def test_a_catalog_of_more_instance_types_than_a_search_can_take_is_refused() -> None:
    base = ENTRIES["instance_types"]
    rows = [{**base, "name": f"x{i}.large"} for i in range(MAX_ENTRIES["instance types"] + 1)]
    with pytest.raises(CatalogError, match=r"instance types, over the limit of 2,000"):
        extend_catalog(builtin_catalog(), "user.json",
                       json.dumps({"schema_version": 1, "instance_types": rows}))
