"""`advisor catalog` and `advisor layout`: the BRIEF §6 command-line contract.

The tests call `advisor.cli.main.main(argv)`, the console-script entry point, because it is where
errors become one line and an exit code (typer's CliRunner would bypass that translation).
"""

import json
from pathlib import Path

import pytest

from advisor.catalog import builtin_catalog
from advisor.cli.main import main
from advisor.userfiles import CATALOG_ENV

BRIEF6_EXAMPLES = [
    "m5d.large:gp2:385GiB",
    "m5d.large:store",
    "m5d.8xlarge:raid1:2xstore",
    "m5.8xlarge:io1:1000GiB:50000iops",
    "c4.2xlarge:raid0:5xgp2:100GiB",
    "m5.8xlarge:raid10:4xgp3:500GiB:6000iops:250mbps",
]
PRIVATE_INSTANCE = {  # a user's own entry; its figures are the user's, not AWS facts
    "name": "m7a.large", "vcpu": 2, "memory_gib": 8, "hourly_usd": 0.1008, "nitro": True,
    "ebs": None,
}


@pytest.fixture(autouse=True)
def _no_catalog_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CATALOG_ENV, raising=False)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `advisor ARGV...`."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code: int, out: str, err: str) -> None:
    assert code == 2
    assert out == ""
    assert err.startswith("error: ")
    assert err.count("\n") == 1, err
    assert err.endswith("\n")
    assert "Traceback" not in err


def test_catalog_instances_json_lists_the_catalog(capsys: pytest.CaptureFixture[str]) -> None:
    """`catalog instances --format json` lists every type (the 43 of facts §2.1 among them)."""
    code, out, err = run(capsys, "catalog", "instances", "--format", "json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert (data["region"], data["origins"]) == ("us-east-1", ["built-in us-east-1.json"])
    assert len(data["instances"]) == len(builtin_catalog().instance_types) >= 200
    by_name = {i["name"]: i for i in data["instances"]}
    assert by_name["m5d.large"]["hourly_usd"] == 0.113  # [S11]
    assert by_name["m5d.large"]["store"]["count"] == 1  # 1 x 75 GB NVMe [S7]
    # EBS optimization unsupported [S16][S17]: EBS rides the network link, an assumed ceiling
    assert by_name["c1.medium"]["ebs"]["optimization"] == "unsupported"


def test_catalog_volumes_json_lists_all_7(capsys: pytest.CaptureFixture[str]) -> None:
    """`catalog volumes --format json` lists the 7 EBS volume types of facts §1."""
    code, out, err = run(capsys, "catalog", "volumes", "--format", "json")
    assert (code, err) == (0, "")
    volumes = json.loads(out)["volumes"]
    assert sorted(v["name"] for v in volumes) == ["gp2", "gp3", "io1", "io2", "sc1", "st1",
                                                   "standard"]
    gp3 = next(v for v in volumes if v["name"] == "gp3")
    assert gp3["storage_usd_per_gib_month"] == 0.08  # [S12]
    assert gp3["iops_usd_tiers"] == [[80000, 0.005]]  # [S12]


def test_catalog_volumes_table_prints(capsys: pytest.CaptureFixture[str]) -> None:
    """The table format (default) prints every volume type for people and exits 0."""
    code, out, err = run(capsys, "catalog", "volumes")
    assert (code, err) == (0, "")
    for name in ("gp2", "gp3", "io1", "io2", "st1", "sc1", "standard"):
        assert name in out


def test_catalog_instances_table_shows_every_name_in_full(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The instances table (default format) names every instance readably at 80 columns."""
    code, out, err = run(capsys, "catalog", "instances", "--format", "json")
    names = [i["name"] for i in json.loads(out)["instances"]]
    code, out, err = run(capsys, "catalog", "instances")
    assert (code, err) == (0, "")
    assert [name for name in names if name not in out] == []


@pytest.mark.parametrize("spec", BRIEF6_EXAMPLES)
def test_layout_json_has_the_brief_keys(spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`layout SPEC --format json` carries the stable keys of BRIEF §6."""
    code, out, err = run(capsys, "layout", spec, "--format", "json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert {"spec", "capacity_gib", "ephemeral", "annual_loss_probability", "limits",
            "cost"} <= set(data)
    assert {"monthly_usd", "instance_usd", "storage_usd", "items"} <= set(data["cost"])
    assert data["spec"] == spec
    assert data["ephemeral"] is spec.endswith("store")
    assert data["cost"]["monthly_usd"] == pytest.approx(
        data["cost"]["instance_usd"] + data["cost"]["storage_usd"], abs=0.01)


def test_layout_json_values_for_brief_measurement_setup(
        capsys: pytest.CaptureFixture[str]) -> None:
    """m5d.large with 385 GiB gp2 (BRIEF §8 #1): 385 GiB, $0.113 x 730 + 385 x $0.10."""
    code, out, _ = run(capsys, "layout", "m5d.large:gp2:385GiB", "-f", "json")
    data = json.loads(out)
    assert code == 0
    assert data["capacity_gib"] == 385
    assert data["cost"]["instance_usd"] == 82.49  # $0.113/h [S11] x 730 h
    assert data["cost"]["storage_usd"] == 38.50  # $0.10/GB-month [S12]
    assert data["annual_loss_probability"] == pytest.approx(0.002)  # gp2 AFR bound [S2]


def test_layout_table_prints(capsys: pytest.CaptureFixture[str]) -> None:
    """The layout table names the spec, its monthly cost and its sections, and exits 0."""
    code, out, err = run(capsys, "layout", "m5.large:raid0:4xgp3:500GiB:16000iops")
    assert (code, err) == (0, "")
    # 4 x (500 x $0.08 + 13,000 x $0.005) [S12] + $0.096 x 730 [S11]
    assert out.startswith("m5.large:raid0:4xgp3:500GiB:16000iops  usable 2,000 GiB  ·  "
                          "$490.08/month")
    for section in ("Limits", "Capacity (random I/O) and the limit that binds", "Monthly cost"):
        assert section in out


@pytest.mark.parametrize("spec", [*BRIEF6_EXAMPLES, "m1.large:raid0:2xstore", "m1.large:store",
                                  "m5.large:st1:500GiB", "i4i.large:store", "r7g.large:sc1:500GiB"])
def test_every_kind_of_layout_prints_as_a_table(spec: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Every kind of storage the catalog has prints its table: the HDD instance store of the
    published m1.large runs has no sustained rate, only a seek time per disk (it crashed the
    table: KeyError 'sustained')."""
    code, out, err = run(capsys, "layout", spec)
    assert (code, err) == (0, "")
    assert out.startswith(spec)
    for section in ("Limits", "Capacity (random I/O) and the limit that binds", "Monthly cost"):
        assert section in out


@pytest.mark.parametrize(("spec", "reason"), [
    ("m5.larg:gp2:100GiB", "did you mean m5.large"),
    ("m5.8xlarge:io1:1000GiB:70000iops", "over the io1 maximum of 64000"),
    ("m5.8xlarge:io1:100GiB:6000iops", "50:1 IOPS:GiB ratio"),
    ("m5.large:store", "has no instance store"),
    ("m5.large:gp2:100GB", "sizes are whole GiB or TiB"),
    ("m5.large::gp2", "empty token"),
])
def test_bad_spec_exits_2_with_one_line(spec: str, reason: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A bad spec: exit code 2 and exactly one line on stderr saying why, no traceback."""
    code, out, err = run(capsys, "layout", spec, "--format", "json")
    assert_one_line_error(code, out, err)
    assert reason in err


def test_bogus_format_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    """`--format bogus` is a usage error: exit 2, one line."""
    code, out, err = run(capsys, "layout", "m5.large:gp2:100GiB", "--format", "bogus")
    assert_one_line_error(code, out, err)
    assert "--format" in err
    assert "bogus" in err


def test_missing_spec_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    """`advisor layout` without a SPEC: exit 2, one line pointing at --help."""
    code, out, err = run(capsys, "layout")
    assert_one_line_error(code, out, err)
    assert err.startswith("error: Missing argument 'spec'.")
    assert "layout --help)" in err


def test_unknown_command_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    """An unknown subcommand is a usage error too."""
    assert_one_line_error(*run(capsys, "catalog", "disks"))


def test_catalog_option_adds_entries(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`--catalog FILE` adds the user's entries to what the commands see."""
    path = tmp_path / "private.json"
    path.write_text(json.dumps({"schema_version": 1, "instance_types": [PRIVATE_INSTANCE]}))
    code, out, _ = run(capsys, "catalog", "instances", "--format", "json", "--catalog", str(path))
    assert code == 0
    data = json.loads(out)
    assert len(data["instances"]) == len(builtin_catalog().instance_types) + 1
    assert data["origins"] == ["built-in us-east-1.json", str(path)]
    code, out, _ = run(capsys, "layout", "m7a.large:gp2:100GiB", "-f", "json",
                       "--catalog", str(path))
    assert code == 0
    assert json.loads(out)["cost"]["instance_usd"] == pytest.approx(0.1008 * 730, abs=0.005)


def test_advisor_catalog_env_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """$ADVISOR_CATALOG works like --catalog."""
    path = tmp_path / "private.json"
    path.write_text(json.dumps({"schema_version": 1, "instance_types": [PRIVATE_INSTANCE]}))
    monkeypatch.setenv(CATALOG_ENV, str(path))
    code, out, _ = run(capsys, "catalog", "instances", "--format", "json")
    assert code == 0
    assert "m7a.large" in {i["name"] for i in json.loads(out)["instances"]}


def test_malformed_catalog_exits_2_naming_the_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A malformed --catalog file: exit 2, one line naming the file, entry and field."""
    path = tmp_path / "private.json"
    path.write_text(json.dumps({"schema_version": 1, "instance_types": [
        {**PRIVATE_INSTANCE, "hourly_usd": -1}]}))
    code, out, err = run(capsys, "layout", "m5.large:gp2:100GiB", "--catalog", str(path))
    assert_one_line_error(code, out, err)
    assert err.startswith(f"error: {path}: instance type m7a.large: field hourly_usd: ")
