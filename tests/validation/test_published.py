"""BRIEF §8: every published measurement reproduced from its configuration (measurements.json).

Each case runs `advisor simulate LAYOUT ARGS --format json` in-process, once per engine, and each
of its checks is one test: the simulated figure against the published one within the stated
tolerance (rates ±15 %). Checks the model does not meet today are strict xfails with the reason,
so they show in every run and turn into failures the day the model meets them. The same
evaluation feeds `bench/validation_table.py`, which writes docs/validation.md.
"""

import io
import json
import math
import re
from contextlib import redirect_stdout
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from advisor.cli.main import main
from advisor.userfiles import CATALOG_ENV

DATA = Path(__file__).with_name("measurements.json")
SPEC: dict[str, Any] = json.loads(DATA.read_text())
CASES: list[dict[str, Any]] = SPEC["cases"]
ENGINES = ("des", "analytic")
KINDS = {"quantitative", "shape"}
EXHAUSTED = re.compile(r"exhausted at t=([\d,.]+) s")


@cache
def simulate_json(layout: str, args: tuple[str, ...], engine: str,
                  duration_s: float) -> dict[str, Any]:
    """The JSON `advisor simulate` prints for this command (cached for the session)."""
    argv = ["simulate", layout, *args, "--duration", f"{duration_s:g}", "--engine", engine,
            "--format", "json"]
    buf = io.StringIO()
    with redirect_stdout(buf):
        code = main(argv)
    if code != 0:
        raise RuntimeError(f"advisor {' '.join(argv)} exited {code}")
    return json.loads(buf.getvalue())


def run_result(case: dict[str, Any], run: str, engine: str) -> dict[str, Any]:
    spec = case["runs"][run]
    duration = spec["duration_s"]
    if isinstance(duration, dict):
        duration = duration[engine]
    return simulate_json(spec.get("layout", case["layout"]), tuple(spec["args"]), engine,
                         float(duration))


def _dig(obj: Any, path: str) -> Any:
    for key in path.split("."):
        obj = obj[key]
    return obj


def _level(result: dict[str, Any], at: dict[str, float] | None) -> dict[str, Any]:
    if at is None:
        return result["levels"][-1]
    for level in result["levels"]:
        if all(level["load"].get(k) == v for k, v in at.items()):
            return level
    raise KeyError(f"no level with load {at} in {[lv['load'] for lv in result['levels']]}")


def metric(case: dict[str, Any], part: dict[str, Any], engine: str, default_run: str) -> Any:
    """The value a check (or the `over` half of a ratio) looks at."""
    result = run_result(case, part.get("run", default_run), engine)
    path = part["metric"]
    if "reduce" in part:
        floor = part.get("from", {})
        values = [_dig(lv, path) for lv in result["levels"]
                  if all(lv["load"][k] >= v for k, v in floor.items())]
        return min(values) if part["reduce"] == "min" else max(values)
    level = _level(result, part.get("at"))
    if "at_time" in part:
        points = level["timeline"]
        point = min(points, key=lambda p: abs(p["t_s"] - part["at_time"]))
        return _dig(point, path)
    if path == "exhausted_at_s":  # the bottleneck text is the contract both engines share
        found = EXHAUSTED.search(level["bottleneck"])
        return float(found.group(1).replace(",", "")) if found else math.nan
    return _dig(level, path)


@dataclass(frozen=True, slots=True)
class Outcome:
    value: Any
    ok: bool
    error_pct: float | None  # vs `expected`; None for bounds
    expectation: str  # the published figure and its tolerance, in words


def evaluate(case: dict[str, Any], check: dict[str, Any], engine: str) -> Outcome:
    """Run (or reuse) the simulation behind `check` and compare it with the published figure."""
    default_run = next(iter(case["runs"]))
    value = metric(case, check, engine, default_run)
    if "over" in check:
        over = {"run": check.get("run", default_run), **check["over"]}
        value = value / metric(case, over, engine, default_run)
    if "contains" in check:
        return Outcome(value, check["contains"] in value, None, f"names {check['contains']!r}")
    if "expected" in check:
        exp, tol = check["expected"], check["tolerance_rel"]
        err = value / exp - 1
        return Outcome(value, abs(err) <= tol, 100 * err, f"{exp:,} ±{tol:.0%}")
    if "between" in check:
        lo, hi = check["between"]
        return Outcome(value, lo <= value <= hi, None, f"in [{lo:g}, {hi:g}]")
    if "at_least" in check:
        return Outcome(value, value >= check["at_least"], None, f">= {check['at_least']:g}")
    return Outcome(value, value <= check["at_most"], None, f"<= {check['at_most']:g}")


def _params() -> list[Any]:
    params = []
    for case in CASES:
        if case.get("pending"):
            params.append(pytest.param(case, None, None, id=case["id"], marks=pytest.mark.skip(
                reason=f"pending: {case['pending']}")))
            continue
        for check in case["checks"]:
            for engine in case.get("engines", ENGINES):
                marks = []
                if engine in case.get("slow", ()):
                    marks.append(pytest.mark.slow)
                if check.get("known_miss"):
                    marks.append(pytest.mark.xfail(strict=True,
                                                   reason=f"model miss: {check['known_miss']}"))
                params.append(pytest.param(case, check, engine, marks=marks,
                                           id=f"{case['id']}-{check['id']}-{engine}"))
    return params


@pytest.fixture(autouse=True)
def _shipped_catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CATALOG_ENV, raising=False)


@pytest.mark.parametrize(("case", "check", "engine"), _params())
def test_published_measurement(case: dict[str, Any], check: dict[str, Any], engine: str) -> None:
    """The simulator reproduces the published figure within the stated tolerance."""
    out = evaluate(case, check, engine)
    value = f"{out.value:,.4g}" if isinstance(out.value, float) else repr(out.value)
    assert out.ok, (f"{case['id']}: {check['what']} ({engine}) simulated {value}, published "
                    f"{out.expectation}")


def test_every_brief_item_has_a_case() -> None:
    """BRIEF §8 items 1-5 each have at least one case, with a source and a kind."""
    assert {c["item"] for c in CASES} == {1, 2, 3, 4, 5}
    for case in CASES:
        assert case["source"].startswith(f"BRIEF §8 item {case['item']}"), case["id"]
        assert case["kind"] in KINDS, case["id"]
        assert case["published"], case["id"]
        assert case["layout"], case["id"]


def test_every_check_is_well_formed() -> None:
    """Each check names a metric and exactly one expectation; rates use the ±15 % tolerance."""
    forms = ("expected", "between", "at_least", "at_most", "contains")
    for case in CASES:
        ids = [c["id"] for c in case["checks"]]
        assert len(ids) == len(set(ids)), case["id"]
        for check in case["checks"]:
            assert sum(f in check for f in forms) == 1, (case["id"], check["id"])
            assert check.get("run", next(iter(case["runs"]))) in case["runs"]
            if "expected" in check and check["metric"].startswith("iops"):
                assert check["tolerance_rel"] == SPEC["tolerance_rel_rates"], check["id"]
