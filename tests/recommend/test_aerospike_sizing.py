"""Aerospike sizing rules, each with a hand-computed case: primary-index RAM, every check with one
node down (N >= RF + 1), network per direction against the sustained baseline; the search on
small hand-built catalogs; bad input in one line (CLI exit 2, API 422)."""

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from advisor.catalog.load import builtin_catalog
from advisor.catalog.model import Catalog, InstanceType
from advisor.cli.main import main
from advisor.layout import resolve
from advisor.layout.spec import LayoutSpec
from advisor.store import SqlRunStore
from api.app import create_app
from api.service import Settings
from recommend.aerospike_device import RATING_LADDER, act_screen, device_rating
from recommend.aerospike_node import ClusterShape, instance_checks, node_demand, over_limit
from recommend.aerospike_search import size_aerospike
from recommend.request import AerospikeSizeRequest
from workloads.aerospike import ActLoad

GIB = 2**30


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return builtin_catalog()


def small_catalog(catalog: Catalog, **types: InstanceType) -> Catalog:
    return dataclasses.replace(catalog, instance_types=types)


def with_net(inst: InstanceType, gbps: float | None) -> InstanceType:
    return dataclasses.replace(inst, network_baseline_gbps=gbps, network_burst_gbps=None)


# -- index RAM --------------------------------------------------------------------------------


def test_index_ram_is_64_bytes_a_record_copy_on_the_survivors() -> None:
    """100 GiB of 1,024 B records = 104,857,600 records; RF 2 x 64 B = 12.5 GiB of index in the
    cluster; 5 nodes with one down: 4 survivors hold 3.125 GiB each. RAM need = 3.125 + 2 GiB
    reserved = 5.125 GiB of 90 % x 8 GiB = 7.2 GiB: 71.18 %. Data in memory adds 100 x 2 / 4 =
    50 GiB: 55.125 GiB, over."""
    req = AerospikeSizeRequest(reads_per_sec=1000, writes_per_sec=0, data_gb=100,
                               record_bytes=1024, replication_factor=2)
    shape = ClusterShape(nodes=5, racks=1, rf=2)
    d = node_demand(req, shape)
    assert d.index_gib == pytest.approx(3.125)
    inst = with_net(builtin_catalog().instance_types["m5.large"], 10.0)
    ram = instance_checks(req, d, inst)[0]
    assert (ram.resource, ram.need, ram.have) == ("RAM", 5.125, 7.2)
    assert ram.utilisation == pytest.approx(5.125 / 7.2, abs=1e-4)
    assert over_limit((ram,)) is None
    in_memory = dataclasses.replace(req, data_in_memory=True)
    d2 = node_demand(in_memory, shape)
    assert d2.data_in_memory_gib == pytest.approx(50.0)
    ram2 = instance_checks(in_memory, d2, inst)[0]
    assert ram2.need == pytest.approx(55.125)
    assert over_limit((ram2,)) is ram2


def test_readme_example_index_needs_83_gib_a_node_with_one_of_three_down() -> None:
    """The issue's arithmetic: 2,000 GiB / 1,536 B x RF 2 x 64 B = 166.7 GiB of index; 3 nodes,
    one down: 83.3 GiB on each survivor (i3en.2xlarge has 64 GiB: refused)."""
    req = AerospikeSizeRequest(reads_per_sec=100_000, writes_per_sec=50_000, data_gb=2000,
                               replication_factor=2)
    d = node_demand(req, ClusterShape(nodes=3, racks=1, rf=2))
    assert d.index_gib == pytest.approx(2000 / 1536 * 2 * 64 / 2)
    assert d.index_gib == pytest.approx(83.33, abs=0.01)


# -- one node down ----------------------------------------------------------------------------


def test_every_check_is_made_with_one_node_down() -> None:
    """3 nodes at RF 2, headroom 30 %: the 2 survivors each serve 100,000 x 1.3 / 2 = 65,000
    reads/s and master 32,500 writes/s, apply 32,500 replica writes/s, and store 2,000 GiB x 2
    copies / 2 = 2,000 GiB (4,000 GiB of device at 50 % full)."""
    req = AerospikeSizeRequest(reads_per_sec=100_000, writes_per_sec=50_000, data_gb=2000,
                               replication_factor=2)
    shape = ClusterShape(nodes=3, racks=1, rf=2)
    assert (shape.alive, shape.copies, shape.share) == (2, 2, 0.5)
    d = node_demand(req, shape)
    assert (d.reads_per_sec, d.writes_per_sec, d.replica_writes_per_sec) == pytest.approx(
        (65_000, 32_500, 32_500))
    assert d.storage_gib == pytest.approx(4000)
    assert d.ops_per_sec == pytest.approx(130_000)


def test_n_equals_rf_keeps_one_copy_fewer_and_racks_rebuild_inside_the_rack() -> None:
    """N = RF = 2, one down: 1 survivor with 1 copy of everything. 6 nodes in 3 racks (2 a
    rack): the lost node's rack-mate carries 2/1 of a node's 1/6 share = 1/3 (one rack: 1/5)."""
    two = ClusterShape(nodes=2, racks=1, rf=2)
    assert (two.alive, two.copies, two.share) == (1, 1, 1.0)
    assert ClusterShape(nodes=6, racks=3, rf=2).share == pytest.approx(1 / 3)
    assert ClusterShape(nodes=6, racks=1, rf=2).share == pytest.approx(1 / 5)


@pytest.mark.parametrize(("kw", "lowest"), [
    ({}, 3), ({"allow_n_equals_rf": True}, 2), ({"replication_factor": 3}, 4),
    ({"racks": 5}, 5), ({"replication_factor": 1, "allow_n_equals_rf": True}, 2),
])
def test_fewest_nodes_is_rf_plus_one_unless_allowed(kw: dict[str, object], lowest: int) -> None:
    """N >= RF + 1 by default; --allow-n-equals-rf lowers it to RF (never below 2); at least one
    node a rack."""
    base: dict[str, object] = {"reads_per_sec": 1.0, "replication_factor": 2}
    assert AerospikeSizeRequest(**(base | kw)).min_nodes == lowest  # type: ignore[arg-type]


# -- network ----------------------------------------------------------------------------------


def test_network_counts_client_replica_and_migration_traffic_per_direction() -> None:
    """10,000 reads + 5,000 writes/s of 1,000 B, RF 2, 3 nodes, headroom 0, 1 GiB, 1-h
    migration. Survivor: 5,000 reads, 2,500 writes, 2,500 replica writes a second; 148 B a
    message. Out: 5,000 x 1,148 + 2,500 x 148 (write acks) + 2,500 x 1,148 (replicas sent) +
    2,500 x 148 (acks of replicas received) = 9,350,000 B/s; migration 2^30 x 2 / 3 / 2 / 3,600
    = 99,420.4 B/s: 75.595 Mbit/s. In: 740,000 + 2,870,000 + 370,000 + 2,870,000 + 99,420.4 =
    6,949,420.4 B/s = 55.595 Mbit/s. Against 0.05 Gbit/s: 151 %, refused."""
    req = AerospikeSizeRequest(reads_per_sec=10_000, writes_per_sec=5_000, data_gb=1,
                               record_bytes=1000, replication_factor=2, headroom=0,
                               migration_hours=1)
    d = node_demand(req, ClusterShape(nodes=3, racks=1, rf=2))
    mig = GIB * 2 / 3 / 2 / 3600
    assert d.network_out_gbps == pytest.approx((9_350_000 + mig) * 8 / 1e9)
    assert d.network_in_gbps == pytest.approx((6_850_000 + mig) * 8 / 1e9)
    assert d.network_out_gbps == pytest.approx(0.075595, abs=1e-6)
    base = builtin_catalog().instance_types["m5.large"]
    net = instance_checks(req, d, with_net(base, 0.05))[1]
    assert net.resource == "network"
    assert net.utilisation == pytest.approx(1.5119, abs=1e-4)
    assert over_limit((net,)) is net
    unknown = instance_checks(req, d, with_net(base, None))[1]
    assert (unknown.utilisation, unknown.verified) == (None, False)
    assert "UNVERIFIED" in unknown.basis
    assert over_limit((unknown,)) is None  # no figure: reported, never a pass or a fail


def test_cpu_is_operations_over_the_per_vcpu_rate() -> None:
    """130,000 ops/s (65,000 reads + 32,500 writes + 32,500 replica writes) at 10,000 a vCPU
    need 13 vCPU: an 8-vCPU instance is over (162.5 %)."""
    req = AerospikeSizeRequest(reads_per_sec=100_000, writes_per_sec=50_000, data_gb=10,
                               replication_factor=2)
    d = node_demand(req, ClusterShape(nodes=3, racks=1, rf=2))
    inst = dataclasses.replace(builtin_catalog().instance_types["m5.2xlarge"], vcpu=8)
    cpu = instance_checks(req, d, inst)[2]
    assert (cpu.need, cpu.have, cpu.utilisation) == (13.0, 8.0, 1.625)


# -- the search -------------------------------------------------------------------------------


def test_the_search_refuses_two_nodes_and_a_node_whose_survivors_miss_the_index(
        catalog: Catalog) -> None:
    """i3en.2xlarge (64 GiB, 57.6 usable) and i3en.6xlarge (192 GiB): 2,000 GiB at RF 2 needs
    83.3 GiB of index a survivor at 3 nodes, 55.6 at 4. So no 3 x i3en.2xlarge; the answer has
    at least 3 nodes and every survivor holds its index share in RAM."""
    cat = small_catalog(catalog, **{n: with_net(catalog.instance_types[n], 25.0)
                                    for n in ("i3en.2xlarge", "i3en.6xlarge")})
    req = AerospikeSizeRequest(reads_per_sec=20_000, writes_per_sec=10_000, data_gb=2000,
                               replication_factor=2)
    r = size_aerospike(req, cat)
    rec = r.recommendation
    assert rec.nodes >= 3
    ram = next(u for u in rec.resources if u.resource == "RAM")
    index = 2000 / 1536 * 2 * 64 / (rec.nodes - 1)
    assert ram.need == pytest.approx(index + 2, abs=1e-3)
    assert ram.have is not None
    assert ram.need <= ram.have
    assert any(x.deployment == "3 x i3en.2xlarge" and x.reason.startswith("RAM with one node "
               "down") for x in r.rejected)
    assert rec.act is not None
    assert all(s.passed for s in rec.act.slices)
    assert rec.device_rating is not None
    assert rec.device_rating.x is not None


def test_a_type_without_a_network_figure_is_marked_unverified_and_a_slow_one_refused(
        catalog: Catalog) -> None:
    """One type, two catalogs: with a 0.05 Gbit/s baseline 3 nodes are refused for network and
    the answer takes enough nodes to bring each under it; without a figure 3 nodes are sized,
    the network use stated and marked unverified."""
    base = catalog.instance_types["i3.2xlarge"]
    slow = small_catalog(catalog, **{"i3.2xlarge": with_net(base, 0.05)})
    unknown = small_catalog(catalog, **{"i3.2xlarge": with_net(base, None)})
    req = AerospikeSizeRequest(reads_per_sec=20_000, writes_per_sec=10_000, data_gb=200,
                               replication_factor=2, storage="store")
    narrow = size_aerospike(req, slow)
    assert narrow.recommendation.nodes > 3
    used = next(u for u in narrow.recommendation.resources if u.resource == "network")
    assert used.verified
    assert used.utilisation is not None
    assert used.utilisation <= 1
    nodes = narrow.recommendation.nodes
    assert [(x.deployment, x.reason.split(":")[0]) for x in narrow.rejected] == [
        (f"{nodes - 1} x i3.2xlarge", "network with one node down at the headroom load")]
    assert narrow.rejected_total == 1  # node counts below are screened out on the numbers
    r = size_aerospike(req, unknown)
    assert r.recommendation.nodes == 3
    net = next(u for u in r.recommendation.resources if u.resource == "network")
    assert not net.verified
    assert net.have is None
    assert "network unverified" in r.recommendation.binds


def test_ebs_only_and_shadow_devices_are_options(catalog: Catalog) -> None:
    """--storage ebs gives EBS layouts only (durable); shadow adds one gp3 volume per instance-
    store device, billed to the node, and the node is not ephemeral."""
    types = {n: with_net(catalog.instance_types[n], 10.0) for n in ("i3.large", "m5.xlarge")}
    cat = small_catalog(catalog, **types)
    base = AerospikeSizeRequest(reads_per_sec=4000.0, writes_per_sec=2000.0, data_gb=100.0)
    ebs = size_aerospike(dataclasses.replace(base, storage="ebs"), cat).recommendation
    assert not ebs.durability.ephemeral
    assert ":store" not in ebs.layout
    shadow = size_aerospike(dataclasses.replace(base, storage="shadow"), cat).recommendation
    assert ":store" in shadow.layout
    assert not shadow.durability.ephemeral
    assert any(i.item.startswith("shadow gp3") for i in shadow.cost.node_each.items)
    assert any(u.resource == "shadow EBS writes" for u in shadow.resources)


def test_device_rating_is_the_highest_rung_passing(catalog: Catalog) -> None:
    """The rating passes ACT's thresholds at its rung and fails at the next (analytic screen)."""
    r = device_rating(resolve_spec("i3.large:store", catalog), catalog)
    assert r.x is not None
    assert r.x in RATING_LADDER
    layout = resolve("i3.large:store", catalog)
    assert act_screen(layout, catalog, ActLoad.at_x(r.x, 1))[0]
    nxt = RATING_LADDER[RATING_LADDER.index(r.x) + 1]
    assert not act_screen(layout, catalog, ActLoad.at_x(nxt, 1))[0]
    gp3 = device_rating(resolve_spec("m5.large:gp3:100GiB", catalog), catalog)
    assert gp3.x is None or gp3.x < r.x


def resolve_spec(spec: str, catalog: Catalog) -> LayoutSpec:
    return resolve(spec, catalog).spec


# -- bad input --------------------------------------------------------------------------------

BAD = [
    (["--replication-factor", "0"], "--replication-factor 0: must be at least 1"),
    (["--replication-factor", "9"], "--replication-factor 9: at most 8"),
    (["--record-bytes", "0"], "--record-bytes 0: must be at least 1"),
    (["--record-bytes", str(8 * 2**20 + 1)], "--record-bytes 8388609: at most 8,388,608"),
    (["--reads-per-sec", "0", "--writes-per-sec", "0"],
     "--reads-per-sec 0: aerospike needs reads and/or writes per second"),
]


@pytest.mark.parametrize(("argv", "line"), BAD)
def test_bad_input_exits_2_with_one_line(capsys: pytest.CaptureFixture[str], argv: list[str],
                                         line: str) -> None:
    """RF 0 or above 8, a record of 0 B or over 8 MiB, no reads and no writes: exit 2, one line."""
    args = ["size", "--workload", "aerospike", "--reads-per-sec", "1000", *argv]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.strip() == f"error: {line}"


@pytest.mark.parametrize(("argv", "line"), BAD)
def test_bad_input_is_422_with_the_same_line(tmp_path: Path, catalog: Catalog, argv: list[str],
                                             line: str) -> None:
    """The API refuses the same values with 422 and the CLI's line, the field as the body
    names it."""
    body: dict[str, object] = {"workload": "aerospike", "reads_per_sec": 1000}
    for flag, value in zip(argv[::2], argv[1::2], strict=True):
        body[flag[2:].replace("-", "_")] = float(value) if "per_sec" in flag else int(value)
    app = create_app(Settings(), store=SqlRunStore(f"sqlite:///{tmp_path / 'r.sqlite3'}"),
                     catalog=catalog)
    with TestClient(app) as client:
        r = client.post("/v1/size", json=body)
    assert r.status_code == 422
    first, rest = line.split(" ", 1)
    assert r.json() == {"detail": f"{first[2:].replace('-', '_')} {rest}"}


# -- the same fields everywhere ---------------------------------------------------------------


def test_cli_api_and_stored_run_carry_the_same_node_resources(
        tmp_path: Path, catalog: Catalog, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`advisor size --workload aerospike ... --racks 2 --storage store --format json`, POST
    /v1/size with the same body and the stored run: equal JSON (timing aside), each with the
    per-node resources, what binds, the device rating, the cluster rules and assumptions; the
    stored run's HTML report shows the per-node table."""
    monkeypatch.delenv("ADVISOR_CATALOG", raising=False)
    argv = ["size", "--workload", "aerospike", "--reads-per-sec", "20000", "--writes-per-sec",
            "10000", "--data-gb", "200", "--racks", "2", "--storage", "store", "--format",
            "json"]
    assert main(argv) == 0
    cli = json.loads(capsys.readouterr().out)
    body = {"workload": "aerospike", "reads_per_sec": 20000, "writes_per_sec": 10000,
            "data_gb": 200, "racks": 2, "storage": "store"}
    app = create_app(Settings(), store=SqlRunStore(f"sqlite:///{tmp_path / 'r.sqlite3'}"),
                     catalog=catalog)
    with TestClient(app) as client:
        api = client.post("/v1/size", json=body).json()
        stored = client.get(f"/v1/runs/{api['run_id']}").json()["result"]
        html = client.get(f"/v1/runs/{api['run_id']}/report").text

    def same(d: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in d.items() if k != "run_id"} | {
            "search": {k: v for k, v in d["search"].items() if k != "seconds"}}

    assert same(api) == same(cli) == same(stored)
    rec = cli["recommendation"]
    assert rec["nodes"] % 2 == 0
    assert {u["resource"] for u in rec["resources"]} == {
        "device (ACT)", "device I/O", "capacity", "RAM", "network", "CPU"}
    assert rec["binds"]
    assert rec["device_rating"]["text"].startswith(rec["layout"])
    assert any("2 racks" in line for line in cli["cluster_rules"])
    assert any("64 B per record" in line for line in cli["assumptions"])
    assert "Per node, one node down" in html


def test_a_kept_verdict_gives_the_same_answer_without_simulating(
        catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a memo of the event simulation's verdicts, a repeated sizing returns the same result
    and runs no simulation (the verdict is keyed by all it depends on)."""
    cat = small_catalog(catalog, **{"i3.large": with_net(catalog.instance_types["i3.large"],
                                                          10.0)})
    req = AerospikeSizeRequest(reads_per_sec=4000, writes_per_sec=2000, data_gb=100)
    memo: dict[str, Any] = {}
    first = size_aerospike(req, cat, memo=memo)
    assert len(memo) == first.search.verified
    assert first.search.verified >= 1

    def no_simulation(*args: object, **kwargs: object) -> None:
        raise AssertionError("simulated again")

    monkeypatch.setattr("recommend.aerospike_search.simulate_act", no_simulation)
    assert size_aerospike(req, cat, memo=memo) == first
    other_seed = dataclasses.replace(req, seed=2)
    with pytest.raises(AssertionError, match="simulated again"):
        size_aerospike(other_seed, cat, memo=memo)


@pytest.mark.slow
def test_a_load_no_device_passes_stops_at_the_work_bound(catalog: Catalog) -> None:
    """8 MiB records: no 8 MiB read completes in 1 ms, so ACT fails everywhere; the search stops
    after its analytic-screen bound and says so in the one line."""
    from advisor.errors import InfeasibleSlo

    req = AerospikeSizeRequest(reads_per_sec=1000, writes_per_sec=1000, data_gb=1,
                               record_bytes=8 << 20)
    with pytest.raises(InfeasibleSlo, match=r"of reads over 1 ms .* the search stopped after 120 "
                       r"analytic screens"):
        size_aerospike(req, catalog)


@pytest.mark.slow
def test_a_budget_is_kept_and_below_every_cluster_says_what_the_slo_costs(
        catalog: Catalog) -> None:
    """--max-monthly-usd was accepted and ignored for Aerospike (the README's sizing with a
    $100 budget recommended $2,254.82 a month). Now no answer or alternative is over the
    budget, and below every cluster that meets the SLO the refusal names the cheapest one."""
    from advisor.errors import InfeasibleSlo

    base = {"reads_per_sec": 100_000, "writes_per_sec": 50_000, "data_gb": 2000,
            "replication_factor": 2}
    free = size_aerospike(AerospikeSizeRequest(**base), catalog)
    cheapest = free.recommendation.monthly_usd
    with pytest.raises(InfeasibleSlo) as info:
        size_aerospike(AerospikeSizeRequest(**base, max_monthly_usd=100), catalog)
    assert info.value.over_budget is not None
    assert info.value.over_budget.startswith(
        f"the cheapest cluster that meets it costs ${cheapest:,.2f}/month, over $100.00: ")
    capped = max([a.monthly_usd for a in free.alternatives], default=cheapest)
    budget = (cheapest + capped) / 2 if capped > cheapest else cheapest
    within = size_aerospike(AerospikeSizeRequest(**base, max_monthly_usd=budget), catalog)
    assert within.recommendation.monthly_usd == cheapest
    assert all(a.monthly_usd <= budget for a in within.alternatives)
