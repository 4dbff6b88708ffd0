"""What a MySQL sizing result must build: the my.cnf holds what the model assumed, the Terraform
parses (python-hcl2; `terraform fmt` and `validate` where terraform is installed) and the boot
scripts pass `bash -n` (and shellcheck where installed)."""

import shutil
import subprocess
from pathlib import Path
from typing import Any

import hcl2
import pytest

from advisor.catalog.model import Catalog
from advisor.errors import InvalidInput
from advisor.userfiles import load_catalog
from recommend.deploy import deployment_plan, mycnf_text
from recommend.terraform import terraform_files
from tests.conftest import require


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(use_env=False)


def result(master: str, replicas: list[str], *, io_model: list[dict[str, Any]] | None = None,
           **request: Any) -> dict[str, Any]:
    """A size result as `size --out` writes it, with what the plan reads."""
    rec = {"deployment": " + ".join([f"master {master}", *(f"1 x replica {r}"
                                                            for r in replicas)]),
           "master": master, "replicas": replicas}
    return {"kind": "size", "workload": "mysql", "request": {"tps": 627, "reads": 3.25,
                                                             **request},
            "recommendation": rec, "io_model": io_model or [], "advisor_version": "t",
            "model_version": 1, "catalog_version": "c"}


def mycnf(text: str) -> dict[str, str]:
    lines = [x for x in text.splitlines() if " = " in x and not x.startswith("#")]
    return dict(x.split(" = ", 1) for x in lines)


def test_the_mycnf_is_what_the_io_model_assumed(catalog: Catalog) -> None:
    """Buffer pool, redo capacity and io_capacity_max from the result's io_model, per role."""
    model = [{"role": "master", "buffer_pool_gib": 2.0, "redo_log_mib": 1024.0,
              "io_capacity_max": 2000},
             {"role": "replica", "buffer_pool_gib": 12.0, "redo_log_mib": 2048.0,
              "io_capacity_max": 2000}]
    plan = deployment_plan(result("c5.large:raid0:2xgp3:60GiB", ["m5.xlarge:gp3:120GiB"],
                                  io_model=model, io_capacity=400), catalog)
    master, replica = (mycnf(s.mycnf.text(header="h")) for s in plan.servers)
    assert master["innodb_buffer_pool_size"] == "2048M"
    assert master["innodb_redo_log_capacity"] == "1024M"
    assert master["innodb_io_capacity"] == "400"
    assert master["innodb_io_capacity_max"] == "2000"
    assert master["innodb_flush_log_at_trx_commit"] == "1"
    assert master["sync_binlog"] == "1"
    assert master["innodb_change_buffering"] == "all"  # mysql-8.0's, as modelled
    assert "read_only" not in master
    assert replica["innodb_buffer_pool_size"] == "12288M"
    assert replica["replica_parallel_workers"] == "4"
    assert replica["log_replica_updates"] == "ON"
    assert replica["read_only"] == "ON"
    assert (master["server_id"], replica["server_id"]) == ("1", "2")


def test_without_an_io_model_the_models_own_rules_give_the_settings(catalog: Catalog) -> None:
    """innodb_dedicated_server: 4 GiB of RAM -> 50 %, 16 GiB -> 75 %; redo vCPUs/2 GiB, at
    least 1 GiB (workloads.mysql)."""
    plan = deployment_plan(result("c5.large:gp3:120GiB", ["m5.4xlarge:gp3:120GiB"]), catalog)
    master, replica = (mycnf(s.mycnf.text(header="h")) for s in plan.servers)
    assert master["innodb_buffer_pool_size"] == "2048M"
    assert master["innodb_redo_log_capacity"] == "1024M"
    assert replica["innodb_buffer_pool_size"] == str(round(64 * 0.75 * 1024)) + "M"
    assert replica["innodb_redo_log_capacity"] == str(8 * 1024) + "M"


def test_mariadb_settings_are_spelled_as_mariadb_spells_them(catalog: Catalog) -> None:
    plan = deployment_plan(result("c5.large:gp3:120GiB", ["c5.large:gp3:120GiB"],
                                  server="mariadb-10.11", semi_sync=True,
                                  flush_log_at_trx_commit=2, sync_binlog=0), catalog)
    master = mycnf(mycnf_text(plan, "master"))
    replica = mycnf(mycnf_text(plan, "replica"))
    assert master["innodb_log_file_size"] == "96M"
    assert "innodb_redo_log_capacity" not in master
    assert "innodb_change_buffering" not in master
    assert master["innodb_flush_log_at_trx_commit"] == "2"
    assert master["sync_binlog"] == "0"
    assert master["rpl_semi_sync_master_enabled"] == "ON"
    assert replica["slave_parallel_threads"] == "0"  # the one SQL thread the model assumed
    assert replica["log_slave_updates"] == "OFF"
    assert replica["rpl_semi_sync_slave_enabled"] == "ON"
    assert "log_bin" not in replica


def _plain(value: Any) -> Any:
    """python-hcl2 8 keeps string literals' quotes (in block labels too): drop them."""
    if isinstance(value, str) and len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items() if k != "__is_block__"}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def parsed_terraform(files: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in ("main.tf", "variables.tf", "outputs.tf"):
        for key, value in _plain(hcl2.loads(files[name])).items():
            out.setdefault(key, []).extend(value)
    return out


def resources(tf: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {name: body for r in tf.get("resource", []) for k, v in r.items() if k == kind
            for name, body in v.items()}


def test_the_terraform_parses_and_holds_every_server_and_volume(catalog: Catalog) -> None:
    plan = deployment_plan(result("c5.large:raid0:2xgp3:60GiB:4000iops:250mbps",
                                  ["m5.xlarge:raid10:4xio2:100GiB:5000iops"]), catalog)
    tf = parsed_terraform(terraform_files(plan))
    instances = resources(tf, "aws_instance")
    assert {n: i["instance_type"] for n, i in instances.items()} == {
        "master": "c5.large", "replica_1": "m5.xlarge"}
    volumes = resources(tf, "aws_ebs_volume")
    assert len(volumes) == 6
    assert len(resources(tf, "aws_volume_attachment")) == 6
    m1 = volumes["master_data_1"]
    assert (m1["type"], m1["size"], m1["iops"], m1["throughput"]) == ("gp3", 60, 4000, 250)
    r4 = volumes["replica_1_data_4"]
    assert (r4["type"], r4["size"], r4["iops"]) == ("io2", 100, 5000)
    assert "throughput" not in r4  # io2 has no throughput setting
    names = {k for v in tf["variable"] for k in v}
    assert {"ami_id", "subnet_id", "key_name", "region"} <= names
    assert resources(tf, "aws_volume_attachment")["replica_1_data_4"]["device_name"] == "/dev/sdi"


def test_each_server_boots_an_ami_of_its_own_architecture(catalog: Catalog) -> None:
    """An AMI is built for one architecture and EC2 refuses it on another: a Graviton master
    beside an x86 replica gets two AMI variables, each instance the one of its architecture;
    servers of one architecture share `ami_id`, whose description names it."""
    mixed = parsed_terraform(terraform_files(deployment_plan(result(
        "m6g.large:raid0:2xgp3:60GiB", ["c5.xlarge:gp3:120GiB", "c6g.xlarge:gp3:120GiB"]),
        catalog)))
    assert {n: i["ami"] for n, i in resources(mixed, "aws_instance").items()} == {
        "master": "${var.ami_id_arm64}", "replica_1": "${var.ami_id_x86_64}",
        "replica_2": "${var.ami_id_arm64}"}
    variables = {k: v for d in mixed["variable"] for k, v in d.items()}
    assert "ami_id" not in variables
    assert variables["ami_id_arm64"]["description"].startswith(
        "An arm64 (Graviton) AMI of master (m6g.large), replica_2 (c6g.xlarge)")
    assert variables["ami_id_x86_64"]["description"].startswith(
        "An x86_64 AMI of replica_1 (c5.xlarge)")
    one = parsed_terraform(terraform_files(deployment_plan(result(
        "m6g.large:raid0:2xgp3:60GiB", ["c6g.xlarge:gp3:120GiB"]), catalog)))
    assert {i["ami"] for i in resources(one, "aws_instance").values()} == {"${var.ami_id}"}
    variables = {k: v for d in one["variable"] for k, v in d.items()}
    assert variables["ami_id"]["description"].startswith("An arm64 (Graviton) AMI of master")


def test_the_boot_script_assembles_the_layouts_array(catalog: Catalog) -> None:
    plan = deployment_plan(result("c5.large:raid10:4xgp3:60GiB:chunk256KiB", []), catalog)
    script = terraform_files(plan)["cloud-init-master.sh"]
    for line in ("KIND=ebs", "DEVICES_EXPECTED=4", "RAID_LEVEL=10", "CHUNK_KIB=256",
                 "DATA_MEMBERS=2", "MOUNT_POINT=/var/lib/mysql"):
        assert f"\n{line}" in script
    assert "mdadm --create" in script
    assert "innodb_buffer_pool_size = 2048M" in script


def test_instance_store_arrays_are_assembled_from_the_nvme_devices_at_boot(
        catalog: Catalog) -> None:
    plan = deployment_plan(result("i3.8xlarge:raid0:4xstore", ["i3.8xlarge:raid0:4xstore"],
                                  allow_ephemeral=True), catalog)
    files = terraform_files(plan)
    tf = parsed_terraform(files)
    assert resources(tf, "aws_ebs_volume") == {}
    assert "ADVISOR_VOLUMES" not in files["main.tf"]
    script = files["cloud-init-master.sh"]
    assert "\nKIND=store" in script
    assert "\nDEVICES_EXPECTED=4" in script
    assert "nvme-Amazon_EC2_NVMe_Instance_Storage_" in script
    assert "advisor-storage.service" in script


@pytest.mark.parametrize(("data", "message"), [
    ({"kind": "replay"}, "a size result is needed"),
    ({"kind": "size", "workload": "aerospike"}, "MySQL results only"),
    ({"kind": "size", "workload": "mysql"}, "no recommendation or request"),
])
def test_a_result_that_is_not_a_mysql_sizing_is_refused(catalog: Catalog, data: dict[str, Any],
                                                         message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        deployment_plan(data, catalog)


def test_a_layout_the_catalog_does_not_hold_is_refused(catalog: Catalog) -> None:
    with pytest.raises(InvalidInput, match="the result's master layout"):
        deployment_plan(result("x9.huge:gp3:100GiB", []), catalog)


@pytest.fixture(scope="module")
def written(catalog: Catalog, tmp_path_factory: pytest.TempPathFactory) -> Path:
    plan = deployment_plan(result("c5.large:raid0:2xgp3:60GiB", ["i3.large:store"],
                                  allow_ephemeral=True), catalog)
    out = tmp_path_factory.mktemp("tf")
    for name, text in terraform_files(plan).items():
        (out / name).write_text(text)
    return out


def test_the_boot_scripts_pass_bash_n(written: Path) -> None:
    for script in written.glob("*.sh"):
        subprocess.run(["bash", "-n", str(script)], check=True)


def test_the_boot_scripts_pass_shellcheck(written: Path) -> None:
    require("shellcheck", shutil.which("shellcheck") is not None,
            "Debian: apt-get install shellcheck (scripts/test installs it as root)")
    for script in written.glob("*.sh"):
        done = subprocess.run(["shellcheck", str(script)], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout


def _terraform(written: Path, *args: str) -> subprocess.CompletedProcess[str]:
    rc = written / ".terraformrc"
    rc.write_text("")
    return subprocess.run(["terraform", *args], cwd=written, capture_output=True, text=True,
                          env={"PATH": "/usr/local/bin:/usr/bin:/bin", "TF_CLI_CONFIG_FILE":
                               str(rc), "TF_IN_AUTOMATION": "1", "HOME": str(written)},
                          timeout=300)


def test_terraform_fmt_finds_nothing_to_change(written: Path) -> None:
    """`terraform fmt -check` parses every file and fails on any layout it would rewrite."""
    if shutil.which("terraform") is None:
        pytest.skip("terraform is not installed")
    done = _terraform(written, "fmt", "-check", "-diff", "-no-color")
    assert done.returncode == 0, done.stdout + done.stderr


def test_terraform_validate_passes(written: Path) -> None:
    """Needs the AWS provider: `terraform init` downloads it (skipped when it cannot)."""
    if shutil.which("terraform") is None:
        pytest.skip("terraform is not installed")
    init = _terraform(written, "init", "-backend=false", "-input=false", "-no-color")
    if init.returncode != 0:
        why = next((x.strip() for x in init.stderr.splitlines() if "Error" in x or "Failed" in x),
                   init.stderr.strip()[:200])
        pytest.skip(f"terraform init could not install the AWS provider (offline?): {why}")
    done = _terraform(written, "validate", "-no-color")
    assert done.returncode == 0, done.stdout + done.stderr


def test_an_instance_store_that_is_not_nvme_is_refused(catalog: Catalog) -> None:
    """m1.large's two HDDs: the boot script finds NVMe instance-storage devices only."""
    with pytest.raises(InvalidInput, match="hdd; the boot script assembles NVMe instance "
                       "stores only"):
        deployment_plan(result("m1.large:raid0:2xstore", ["m1.large:raid0:2xstore"],
                               allow_ephemeral=True), catalog)


@pytest.mark.parametrize("broken", [
    {"replicas": 2}, {"replicas": "abc"}, {"master": ["c5.large:gp3:100GiB"]},
])
def test_a_recommendation_of_the_wrong_shape_is_refused_in_one_line(
        catalog: Catalog, broken: dict[str, Any]) -> None:
    """The result is the user's file: replicas that are not a list of specs (a number; a string,
    which would be read as one replica per letter) are refused, not a traceback."""
    data = result("c5.large:raid0:2xgp3:60GiB", [])
    data["recommendation"].update(broken)
    with pytest.raises(InvalidInput, match="no master/replicas layout specs"):
        deployment_plan(data, catalog)


@pytest.mark.parametrize("value", ["big", {"x": 1}, float("nan"), -1, True])
def test_an_io_model_figure_that_is_not_a_number_is_refused_naming_it(
        catalog: Catalog, value: Any) -> None:
    model = [{"role": "master", "buffer_pool_gib": value}]
    with pytest.raises(InvalidInput, match="master io_model buffer_pool_gib"):
        deployment_plan(result("c5.large:raid0:2xgp3:60GiB", [], io_model=model), catalog)
