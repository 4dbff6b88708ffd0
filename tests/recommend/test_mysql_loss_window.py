"""The replica lag an instance-store master's loss window states, beyond its mean (issue 10's
leftover): the apply queue's time in system at its 99th percentile, M/M/1 (exponential)."""

import math

import numpy as np
import pytest

from advisor.catalog.load import builtin_catalog
from advisor.layout.cost import monthly_usd
from advisor.layout.model import resolve
from advisor.serial import SCHEMA_VERSION, from_json, to_json
from recommend.mysql_search import Candidate
from recommend.request import MysqlSizeRequest
from recommend.result import LossWindow
from recommend.size import Deployment, _loss_window

REQ = MysqlSizeRequest(tps=627, reads=3.25, allow_ephemeral=True)


def _window() -> LossWindow:
    catalog = builtin_catalog()
    m, r = (Candidate(layout=(lay := resolve(spec, catalog)), role=role,
                      monthly_usd=monthly_usd(lay))
            for spec, role in (("i3.large:store", "master"),
                               ("r5.large:raid0:2xgp3:60GiB", "replica")))
    w = _loss_window(Deployment(master=m, replica=r, replicas=1), REQ, catalog, None)
    assert w is not None
    return w


def test_the_lag_s_p99_is_the_exponential_s() -> None:
    """p99 window = relay + ln 100 x the apply queue's mean time in system, above the mean
    window; the text states both."""
    w = _window()
    assert w.apply_lag_ms is not None
    assert w.window_ms is not None
    assert w.window_p99_ms == pytest.approx(w.relay_ms + math.log(100) * w.apply_lag_ms,
                                            abs=2e-3)
    assert w.window_p99_ms is not None
    assert w.window_p99_ms > w.window_ms
    assert "99th percentile" in w.text
    # an exponential's 99th percentile is ln 100 x its mean: the model the figure rests on
    draws = np.random.default_rng(1).exponential(w.apply_lag_ms, 400_000)
    assert float(np.quantile(draws, 0.99)) == pytest.approx(math.log(100) * w.apply_lag_ms,
                                                            rel=0.02)


def test_the_p99_survives_a_round_trip_and_older_results_load() -> None:
    """The field goes out and back through the JSON serialiser; a window saved before it
    existed loads with None."""
    w = _window()
    data = {**to_json(w), "schema_version": SCHEMA_VERSION}
    assert from_json(LossWindow, data) == w
    old = {k: v for k, v in data.items() if k != "window_p99_ms"}
    assert from_json(LossWindow, old).window_p99_ms is None
