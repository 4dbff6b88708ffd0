"""HA by default (issue 10, item 5): `--replicas auto` keeps at least one replica, 0 only when
asked; an instance-store master states its loss window (asynchronous: the commits within the
replica lag; semi-synchronous: none acknowledged)."""

import contextlib
import io
import json
from dataclasses import replace
from typing import Any

import pytest

from advisor.catalog.load import builtin_catalog
from advisor.catalog.model import Catalog
from advisor.cli.main import main
from advisor.layout.cost import monthly_usd
from advisor.layout.model import resolve
from recommend.mysql_search import Candidate, server_for
from recommend.request import MysqlSizeRequest
from recommend.size import Deployment, _loss_window, _options
from workloads.mysql_run import apply_capacity_tps

REQ = MysqlSizeRequest(tps=627, reads=3.25, allow_ephemeral=True)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return builtin_catalog()


def _cand(catalog: Catalog, spec: str, role: str) -> Candidate:
    layout = resolve(spec, catalog)
    return Candidate(layout=layout, role=role, monthly_usd=monthly_usd(layout))


def _cli(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue()


def test_auto_searches_one_replica_or_more_and_zero_only_when_asked() -> None:
    assert _options(replace(REQ, replicas=None)) == [1, 2, 3]
    assert _options(replace(REQ, replicas=0)) == [0]
    assert MysqlSizeRequest().replicas == 1  # the default stays one replica


@pytest.mark.parametrize(("replicas", "want"), [("auto", None), ("0", 0)])
def test_replicas_auto_keeps_a_replica(replicas: str, want: int | None,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    code, out = _cli("size", "--tps", "627", "--reads", "3.25", "--replicas", replicas,
                     "--format", "json")
    assert code == 0
    rec: dict[str, Any] = json.loads(out)["recommendation"]
    if want is None:
        assert len(rec["replicas"]) >= 1
        assert "replica" in rec["verified"]
    else:
        assert rec["replicas"] == []
        assert set(rec["verified"]) == {"master"}


def test_an_ephemeral_master_states_its_asynchronous_loss_window(catalog: Catalog) -> None:
    """Window = binlog relay (half the network round trip) + the apply queue at the replica's
    apply capacity (M/M/1); the transactions at risk are the write rate times the window."""
    m = _cand(catalog, "i3.large:store", "master")
    r = _cand(catalog, "r5.large:raid0:2xgp3:60GiB", "replica")
    w = _loss_window(Deployment(master=m, replica=r, replicas=1), REQ, catalog, None)
    assert w is not None
    assert w.replication == "asynchronous"
    server = server_for(REQ, r.layout, "replica", 1, REQ.tps, None)
    cap = apply_capacity_tps(server, r.plan(catalog), None)
    rho = server.params.write_tps / cap
    assert w.apply_lag_ms is not None
    assert w.window_ms is not None
    assert w.relay_ms == pytest.approx(server.params.network_rtt_ms / 2, abs=1e-3)
    assert w.apply_lag_ms == pytest.approx(1000 / cap / (1 - rho), rel=1e-3)
    assert w.window_ms == pytest.approx(w.relay_ms + w.apply_lag_ms, abs=2e-3)
    assert w.transactions == pytest.approx(server.params.write_tps * w.window_ms / 1000,
                                           rel=1e-3)
    assert "replica lag" in w.text
    # A master on EBS keeps its data when the instance goes: no window to state.
    ebs = _cand(catalog, "c5.large:raid0:4xgp3:30GiB", "master")
    assert _loss_window(Deployment(master=ebs, replica=r, replicas=1), REQ, catalog, None) \
        is None


def test_semi_sync_loses_no_acknowledged_transaction(catalog: Catalog) -> None:
    m = _cand(catalog, "i3.large:store", "master")
    r = _cand(catalog, "r5.large:raid0:2xgp3:60GiB", "replica")

    class SemiSync:  # the request as it reads once --semi-sync is a size option
        def __init__(self, req: MysqlSizeRequest) -> None:
            self._req = req
            self.semi_sync = True

        def __getattr__(self, name: str) -> Any:
            return getattr(self._req, name)

    req = replace(REQ, semi_sync=True) if hasattr(REQ, "semi_sync") else SemiSync(REQ)
    w = _loss_window(Deployment(master=m, replica=r, replicas=1), req, catalog, None)  # type: ignore[arg-type]
    assert w is not None
    assert w.replication == "semi-synchronous"
    assert w.window_ms == 0
    assert w.transactions == 0
    assert "no acknowledged transaction" in w.text


def test_the_cli_states_the_loss_window_of_an_instance_store_master(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    code, out = _cli("size", "--tps", "627", "--reads", "3.25", "--p99-ms", "5",
                     "--allow-ephemeral")
    assert code == 0
    assert "EPHEMERAL" in out
    assert "loss window" in out
    assert "transactions (asynchronous replication)" in out
