"""`size` reports how the answer changes with variability (issue 11, item 5): the
recommendation's verified p99 at the headroom load with the volumes' slow episodes (the default)
beside the same check without them (same seeds and replications), in the JSON, the table and
the report."""

from dataclasses import replace

import pytest

from advisor.catalog.model import Catalog
from advisor.layout.cost import monthly_usd
from advisor.layout.model import resolve
from advisor.serial import to_json
from recommend.mysql_search import Candidate, _verify, des_steady
from recommend.request import MysqlSizeRequest
from recommend.result import MysqlSizeResult, load_size_result
from tests.recommend.conftest import MAIN_JOB

REQ = MAIN_JOB


@pytest.fixture(scope="module")
def sized(main_job_sized: MysqlSizeResult) -> MysqlSizeResult:
    return main_job_sized


def _checked(catalog: Catalog, spec: str, req: MysqlSizeRequest) -> Candidate:
    layout = resolve(spec, catalog)
    c = Candidate(layout=layout, role="master", monthly_usd=monthly_usd(layout))
    _verify(c, catalog, req, 1, None)
    return c


def test_the_recommendation_states_its_tail_with_and_without_slow_episodes(
        sized: MysqlSizeResult) -> None:
    rec = sized.recommendation
    v = rec.variability
    assert v is not None
    assert {s.role for s in v.servers} == set(rec.verified)
    for s in v.servers:
        head = next(x for x in rec.verified[s.role].loads if x.load == "headroom")
        assert s.p99_ms == head.p99_ms  # "with" is the verified check itself
        assert s.p99_ci95_ms == head.p99_ci95_ms
        assert s.replications == head.replications  # the same seeds
        assert 0 < s.episode_chance < 1 if s.variable else s.episode_chance == 0
    assert v.p99_ms == max(s.p99_ms for s in v.servers)
    assert v.p99_ms_steady == max(s.p99_ms_steady for s in v.servers)
    assert v.cost_ms == pytest.approx(v.p99_ms - v.p99_ms_steady, abs=1e-3)
    assert v.tps == pytest.approx(REQ.target_tps)
    assert f"{v.p99_ms:,.2f} ms" in v.text
    assert f"{v.p99_ms_steady:,.2f} ms" in v.text
    back = load_size_result(to_json(sized))
    assert isinstance(back, MysqlSizeResult)
    assert back.recommendation.variability == v


def test_without_slow_episodes_the_tail_is_shorter_when_they_are_common(
        catalog: Catalog) -> None:
    """A catalog whose gp3 volumes spend half their time in slow episodes: the steady re-run
    (same seeds) has a clearly lower p99 than the verified check; with the built-in share the
    run is made the same way, and a device model without episodes is not run again."""
    gp3 = catalog.latency_profiles["ebs-gp3"]
    slow = replace(catalog, latency_profiles={**catalog.latency_profiles,
                                              "ebs-gp3": replace(gp3, slow_share=0.5)})
    req = MysqlSizeRequest(tps=627, reads=3.25, p99_ms=50.0)
    c = _checked(slow, "c5.large:raid0:4xgp3:30GiB", req)
    head = next(x for x in c.details["des_loads"] if x.load == "headroom")
    off = des_steady(c, slow, req, 1, None)
    assert off is not None
    assert off is not head
    assert off.replications == head.replications
    assert off.p99_ms < 0.8 * head.p99_ms, (off.p99_ms, head.p99_ms)

    store = _checked(catalog, "m5d.2xlarge:store", req)
    assert not store.plan(catalog).variable
    same = des_steady(store, catalog, req, 1, None)
    assert same is next(x for x in store.details["des_loads"] if x.load == "headroom")


def test_an_unchecked_candidate_has_no_steady_check(catalog: Catalog) -> None:
    layout = resolve("c5.large:raid0:2xgp3:30GiB", catalog)
    c = Candidate(layout=layout, role="master", monthly_usd=monthly_usd(layout))
    assert des_steady(c, catalog, REQ, 1, None) is None


def test_the_table_and_the_report_say_it(sized: MysqlSizeResult,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    from advisor.cli.size_cmd import print_size
    from advisor.report.render import render_report

    v = sized.recommendation.variability
    assert v is not None
    print_size(sized)
    text = " ".join(capsys.readouterr().out.split())
    assert "variability" in text
    assert "· variability: with the volumes' slow episodes" in text
    page = render_report(to_json(sized))
    assert "p99 without slow episodes" in page
    assert "Variability: with the volumes" in page
