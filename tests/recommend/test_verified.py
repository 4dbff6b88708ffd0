"""Only verified answers (issue 10, item 4): the recommendation and every alternative pass the
event simulation at the target and the headroom load, with a 95 % interval on the p99; a
candidate the DES rejects is listed as rejected with the DES figure; the knee is the DES knee;
older stored results still load."""

import contextlib
import io
import json
from dataclasses import replace
from typing import Any

import pytest

from advisor.catalog.model import Catalog
from advisor.cli.main import main
from advisor.serial import to_json
from recommend import mysql_search
from recommend.mysql_search import Candidate, _des_load, search_role
from recommend.request import MysqlSizeRequest
from recommend.result import MysqlSizeResult, load_size_result
from recommend.size import size_mysql
from tests.recommend.conftest import MAIN_JOB

REQ = MAIN_JOB


@pytest.fixture(scope="module")
def sized(main_job_sized: MysqlSizeResult) -> MysqlSizeResult:
    return main_job_sized


def _cli_json(*argv: str) -> tuple[int, dict[str, Any] | None]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*argv, "--format", "json"])
    return code, (json.loads(out.getvalue()) if code == 0 else None)


def test_the_answer_and_every_alternative_pass_the_des_at_target_and_headroom(
        sized: MysqlSizeResult) -> None:
    """Every server of every deployment shown carries its DES check at both loads, each with
    an interval whose upper end meets the SLO, and the method says how it was estimated."""
    shown = [sized.recommendation, *sized.alternatives]
    assert len(shown) >= 2
    for d in shown:
        roles = {"master", *(("replica",) if d.replicas else ())}
        assert set(d.verified) == roles, d.deployment
        for role, v in d.verified.items():
            assert v.passed, (d.deployment, role)
            assert "replications" in v.method
            assert "95 %" in v.method
            loads = {x.load: x for x in v.loads}
            assert {"target", "headroom"} <= set(loads) <= {"target", "headroom", "knee"}
            assert loads["target"].tps == pytest.approx(REQ.tps)
            assert loads["headroom"].tps == pytest.approx(REQ.target_tps)
            for x in v.loads:
                lo, hi = x.p99_ci95_ms
                assert lo <= x.p99_ms <= hi
                assert hi <= REQ.p99_ms
                assert 2 <= x.replications <= mysql_search.DES_REPLICATIONS
                assert x.requests >= 2 * mysql_search.DES_MIN_REQUESTS * 0.9
            assert v.des_p99_ms_at_headroom == loads["headroom"].p99_ms


def test_the_knee_reported_is_the_des_knee(sized: MysqlSizeResult, catalog: Catalog) -> None:
    """max_tps_at_slo of the answer and of each alternative: every server passed the DES at a
    load at or above it (its knee check, or the headroom load when the knee stepped down to
    it), and it is no higher than the analytic knee it started from."""
    for d in (sized.recommendation, *sized.alternatives):
        assert d.knee_engine.startswith("event simulation")
        assert d.max_tps_at_slo >= int(REQ.target_tps)  # a whole number: 815.1 reports 815
        for v in d.verified.values():
            assert any(x.passed and x.tps >= d.max_tps_at_slo for x in v.loads), d.deployment
            knee = [x for x in v.loads if x.load == "knee"]
            assert all(x.passed for x in knee)
    rec = sized.recommendation
    stats = {"considered": 0, "pruned": 0, "screened": 0, "verified": 0}
    n = len(rec.replicas)
    m = next(c for c in search_role(REQ, catalog, "master", n, ebs=True, store=False,
                                    measured=None, stats=stats) if c.spec == rec.master)
    r = next(c for c in search_role(REQ, catalog, "replica", n, ebs=True, store=False,
                                    measured=None, stats=stats) if c.spec == rec.replicas[0])
    assert rec.max_tps_at_slo <= mysql_search.max_tps_at_slo(REQ, catalog, m, r, n, None)


def test_the_interval_brackets_the_p99_and_decides_the_verdict(catalog: Catalog) -> None:
    """One server at one load: the pooled p99 sits inside its interval, the run stops early only
    once the interval is wholly on one side of the SLO, and it passes iff the upper end meets
    the SLO; the same load asked again is not simulated again."""
    from advisor.layout.cost import monthly_usd
    from advisor.layout.model import resolve

    layout = resolve("c5.large:raid0:4xgp3:30GiB", catalog)
    for slo in (10.0, 6.0, 3.0):
        req = MysqlSizeRequest(tps=627, reads=3.25, p99_ms=slo)
        c = Candidate(layout=layout, role="master", monthly_usd=monthly_usd(layout))
        x = _des_load(c, catalog, req, 1, req.target_tps, None, "headroom")
        lo, hi = x.p99_ci95_ms
        assert lo <= x.p99_ms <= hi
        assert x.passed == (hi <= slo and x.background_lag_s <= 1.0)
        if x.replications < mysql_search.DES_REPLICATIONS:
            assert lo > slo or hi <= slo
        again = _des_load(c, catalog, req, 1, req.target_tps, None, "knee")
        assert again.load == "knee"
        assert again.p99_ms == x.p99_ms


def test_a_candidate_the_des_rejects_is_listed_with_the_des_figure(
        catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first master the DES checks is judged against a 0.1 ms SLO there (its figures are
    the real run's): it is rejected at stage "verified" with its DES p99 and interval in the
    reason, listed among the rejections, and the answer is another master that passed."""
    real = mysql_search._des_load
    victim: list[str] = []

    def strict(c: Candidate, catalog: Catalog, req: MysqlSizeRequest, replicas: int,
               tps: float, measured: Any, label: str) -> Any:
        if c.role == "master" and not victim:
            victim.append(c.spec)
        if c.role == "master" and c.spec == victim[0]:
            req = replace(req, p99_ms=0.1)
        return real(c, catalog, req, replicas, tps, measured, label)

    monkeypatch.setattr(mysql_search, "_des_load", strict)
    result = size_mysql(REQ, catalog)
    rejected = {x.deployment: x for x in result.rejected}
    x = rejected[f"master {victim[0]}"]
    assert x.stage == "verified"
    assert "in the event simulation" in x.reason
    assert "95 % CI" in x.reason
    rec = result.recommendation
    assert rec.master != victim[0]
    assert all(v.passed for v in rec.verified.values())
    # Checked after the victim failed, the answer's master was confirmed on fresh seeds.
    confirming = [x for x in rec.verified["master"].loads
                  if x.load.endswith(mysql_search.CONFIRMING)]
    assert [x.load.split(" ")[0] for x in confirming] == ["headroom", "target"]
    assert all(x.passed for x in confirming)
    s = result.search
    assert s.des_rejected is not None
    assert s.des_rejected >= 1
    assert s.confirmations is not None
    assert s.confirmations >= 1
    fresh = sum("on fresh seeds" in c.reason for c in result.rejected)
    assert (s.confirmation_failures or 0) >= fresh  # the listed ones are the cheapest 12
    assert all(a.master != victim[0] for a in result.alternatives)
    assert result.search.verify_bound == mysql_search.MAX_DES_CANDIDATES
    assert 2 < result.search.verified <= mysql_search.MAX_DES_CANDIDATES


def test_a_result_saved_before_the_interval_still_loads(sized: MysqlSizeResult) -> None:
    """A stored result whose DES checks carry only the headroom p99 and request count (and no
    loss window or verification bound) reads back."""
    data = to_json(sized)
    for d in (data["recommendation"], *data["alternatives"]):
        d["verified"] = {role: {"des_p99_ms_at_headroom": v["des_p99_ms_at_headroom"],
                                "des_requests": v["des_requests"]}
                         for role, v in d["verified"].items()}
        d["durability"].pop("loss_window", None)
    data["search"] = {k: data["search"][k] for k in ("considered", "pruned", "screened",
                                                     "verified", "seconds")}
    old = load_size_result(data)
    assert isinstance(old, MysqlSizeResult)
    v = next(iter(old.recommendation.verified.values()))
    assert v.loads == ()
    assert v.p99_ci95_ms_at_headroom is None


@pytest.mark.slow
@pytest.mark.parametrize("extra", [(), ("--allow-ephemeral",)], ids=["ebs", "ephemeral"])
def test_the_answer_re_simulated_for_120_s_meets_5_ms(extra: tuple[str, ...]) -> None:
    """Issue 10's must-show: `size --tps 627 --reads 3.25 --data-gb 500 --p99-ms 5`; the
    deployment recommended, simulated in the DES for 120 s at 627 tps and at the headroom load
    with seeds 1-3, meets 5 ms. When nothing meets it, the answer is exit 1, never an
    unverified deployment."""
    code, sized = _cli_json("size", "--tps", "627", "--reads", "3.25", "--data-gb", "500",
                            "--p99-ms", "5", *extra)
    if code == 1:
        assert not extra, "instance store meets 5 ms at 627 tps"
        return
    assert code == 0
    assert sized is not None
    rec = sized["recommendation"]
    # ... and over weeks, with its volumes' slow episodes: the screen judges that p99 too, so
    # a gp2 array that meets 5 ms but for its episodes (6.10 ms over weeks, the answer until
    # 2026-11-30) is not the answer
    assert rec["variability"]["meets_slo_long_run"], rec["variability"]["text"]
    replica = rec["replicas"][0]
    for tps in ("627", f"{627 * 1.3:g}"):
        for seed in ("1", "2", "3"):
            code, sim = _cli_json("simulate", rec["master"], "--workload", "mysql", "--tps",
                                  tps, "--data-gb", "500", "--replica-layout", replica,
                                  "--engine", "des", "--duration", "120", "--seed", seed,
                                  "--p99-ms", "5")
            assert code == 0
            assert sim is not None
            level = sim["levels"][0]
            assert level["meets_slo"], (tps, seed, level["reasons"])
            assert level["latency_ms"]["transaction"]["p99"] <= 5


def test_at_the_verification_bound_the_search_says_so_and_shows_nothing_unverified(
        catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    """With room for one DES check, the master takes it; the replica cannot be verified, so
    there is no answer, and the refusal names the bound instead of showing an unverified
    deployment."""
    from advisor.errors import InfeasibleSlo
    from recommend import size

    monkeypatch.setattr(mysql_search, "MAX_DES_CANDIDATES", 1)
    monkeypatch.setattr(size, "MAX_DES_CANDIDATES", 1)
    with pytest.raises(InfeasibleSlo, match=r"checked 1 candidates \(the search's bound, 1\)"):
        size_mysql(REQ, catalog)
