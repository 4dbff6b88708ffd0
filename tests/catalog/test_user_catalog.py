"""A user catalog file adds or overrides entries; a malformed one is rejected precisely."""

import copy
import json
import os
import re
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from advisor.catalog import builtin_catalog, extend_catalog
from advisor.errors import CatalogError
from advisor.layout import resolve
from advisor.layout.cost import layout_cost
from advisor.userfiles import CATALOG_ENV, load_catalog

BUILTIN_JSON = json.loads(resources.files("advisor.catalog").joinpath("data", "us-east-1.json")
                          .read_text("utf-8"))
BUILTIN_GP3 = next(v for v in BUILTIN_JSON["volume_types"] if v["name"] == "gp3")

# A user's own instance type (the figures are the user's; nothing here is an AWS fact).
PRIVATE_INSTANCE: dict[str, Any] = {
    "name": "m7a.large", "vcpu": 2, "memory_gib": 8, "hourly_usd": 0.1008, "nitro": True,
    "ebs": {"optimization": "default", "baseline_mbps": 650, "max_mbps": 10000,
            "baseline_mbs": 81.25, "max_mbs": 1250, "baseline_iops": 3600, "max_iops": 40000,
            "burst": True},
    "sources": {"hourly_usd": "private price sheet"},
}


def gp3_priced(usd_per_gib_month: float) -> dict[str, Any]:
    """The built-in gp3 entry with a private storage price, as a user would copy and edit it."""
    return {**copy.deepcopy(BUILTIN_GP3), "storage_usd_per_gib_month": usd_per_gib_month}


def user_file(**entries: Any) -> str:
    return json.dumps({"schema_version": 1, **entries})


def gp3_storage_usd(catalog: Any) -> float:
    return layout_cost(resolve("m5.large:gp3:500GiB", catalog)).storage_usd


@pytest.fixture(autouse=True)
def _no_catalog_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CATALOG_ENV, raising=False)


def test_user_file_adds_an_instance_and_overrides_a_price() -> None:
    """Entries in a user file are added, or replace the built-in entry of the same name."""
    base = builtin_catalog()
    text = user_file(instance_types=[PRIVATE_INSTANCE], volume_types=[gp3_priced(0.07)])
    catalog = extend_catalog(base, "private.json", text)
    assert catalog.instance_types["m7a.large"].hourly_usd == 0.1008
    assert len(catalog.instance_types) == len(base.instance_types) + 1
    assert gp3_storage_usd(catalog) == pytest.approx(500 * 0.07)
    assert catalog.origins == ("built-in us-east-1.json", "private.json")
    assert resolve("m7a.large:gp3:100GiB", catalog).instance == catalog.instance_types[
        "m7a.large"]


def test_extending_leaves_the_builtin_catalog_untouched() -> None:
    """The built-in catalog is shared: a user file never changes it."""
    base = builtin_catalog()
    extend_catalog(base, "private.json", user_file(volume_types=[gp3_priced(0.07)],
                                                   instance_types=[PRIVATE_INSTANCE]))
    assert "m7a.large" not in builtin_catalog().instance_types
    assert gp3_storage_usd(builtin_catalog()) == pytest.approx(500 * 0.08)  # [S12]


def test_load_catalog_reads_files_in_order(tmp_path: Path) -> None:
    """load_catalog([a, b]): built-in, then a, then b; the last one wins."""
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text(user_file(volume_types=[gp3_priced(0.07)]), "utf-8")
    second.write_text(user_file(volume_types=[gp3_priced(0.06)]), "utf-8")
    catalog = load_catalog([first, second])
    assert gp3_storage_usd(catalog) == pytest.approx(500 * 0.06)
    assert catalog.origins == ("built-in us-east-1.json", str(first), str(second))


def test_advisor_catalog_env_is_read_before_explicit_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """$ADVISOR_CATALOG (os.pathsep-separated) applies first; --catalog files override it."""
    env_a, env_b, explicit = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    env_a.write_text(user_file(instance_types=[PRIVATE_INSTANCE]), "utf-8")
    env_b.write_text(user_file(volume_types=[gp3_priced(0.07)]), "utf-8")
    explicit.write_text(user_file(volume_types=[gp3_priced(0.06)]), "utf-8")
    monkeypatch.setenv(CATALOG_ENV, f"{env_a}{os.pathsep}{env_b}")
    from_env = load_catalog()
    assert "m7a.large" in from_env.instance_types
    assert gp3_storage_usd(from_env) == pytest.approx(500 * 0.07)
    both = load_catalog([explicit])
    assert gp3_storage_usd(both) == pytest.approx(500 * 0.06)
    assert both.origins == ("built-in us-east-1.json", str(env_a), str(env_b), str(explicit))
    assert load_catalog(use_env=False).origins == ("built-in us-east-1.json",)


def test_missing_file_is_named(tmp_path: Path) -> None:
    """A catalog file that does not exist is a one-line error naming it."""
    path = tmp_path / "nope.json"
    with pytest.raises(CatalogError, match=rf"^{re.escape(str(path))}: catalog file not found$"):
        load_catalog([path])


def _without(entry: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k != key}


def _store(profile: str) -> dict[str, Any]:
    return {**PRIVATE_INSTANCE, "store": {"count": 1, "size_gb": 100, "kind": "nvme",
                                          "latency_profile": profile}}


MALFORMED = [
    ("bad JSON", '{"schema_version": 1,', r"not valid JSON \(line 1: "),
    ("not an object", "[]", r"the top level must be an object$"),
    ("wrong schema_version", json.dumps({"schema_version": 2}),
     r"field schema_version: 2 is not supported \(this advisor reads version 1\)$"),
    ("no schema_version", json.dumps({"instance_types": []}),
     r"field schema_version: Field required$"),
    ("missing field", user_file(instance_types=[_without(PRIVATE_INSTANCE, "vcpu")]),
     r"instance type m7a\.large: field vcpu: Field required$"),
    ("missing nested field",
     user_file(instance_types=[{**PRIVATE_INSTANCE, "ebs": {"optimization": "default"}}]),
     r"instance type m7a\.large: field ebs\.baseline_mbps: Field required$"),
    ("unknown field", user_file(instance_types=[{**PRIVATE_INSTANCE, "vcpus": 2}]),
     r"instance type m7a\.large: field vcpus: Extra inputs are not permitted$"),
    ("negative hourly price",
     user_file(instance_types=[{**PRIVATE_INSTANCE, "hourly_usd": -0.1}]),
     r"instance type m7a\.large: field hourly_usd: Input should be greater than or equal to 0$"),
    ("negative storage price", user_file(volume_types=[gp3_priced(-0.08)]),
     r"volume type gp3: field storage_usd_per_gib_month: Input should be greater than or "
     r"equal to 0$"),
    ("negative throughput price",
     user_file(volume_types=[{**gp3_priced(0.08), "throughput_usd_per_mibps_month": -0.04}]),
     r"volume type gp3: field throughput_usd_per_mibps_month: Input should be greater than "
     r"or equal to 0$"),
    ("negative IOPS price",
     user_file(volume_types=[{**gp3_priced(0.08), "iops_usd_tiers": [[80000, -0.005]]}]),
     r"volume type gp3: field iops_usd_tiers\.0\.1: Input should be greater than or equal "
     r"to 0$"),
    ("unknown latency profile",
     user_file(volume_types=[{**gp3_priced(0.08), "latency_profile": "ebs-gp9"}]),
     r"volume type gp3: field latency_profile: unknown profile 'ebs-gp9' \(known: ebs-gp2, "),
    ("unknown store latency profile", user_file(instance_types=[_store("nvme-9th-gen")]),
     r"instance type m7a\.large: field (store\.)?latency_profile: unknown profile "
     r"'nvme-9th-gen'"),
    ("bad instance name", user_file(instance_types=[{**PRIVATE_INSTANCE, "name": "M7 large"}]),
     r"instance type M7 large: field name: String should match pattern"),
    ("entry without a name", user_file(volume_types=[{"title": "x"}]),
     r"volume type #0: field name: Field required$"),
]


@pytest.mark.parametrize(("case", "text", "message"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_file_names_file_entry_and_field(case: str, text: str, message: str,
                                                   tmp_path: Path) -> None:
    """A malformed catalog file is rejected in one line naming the file, entry and field."""
    path = tmp_path / "private.json"
    path.write_text(text, "utf-8")
    with pytest.raises(CatalogError, match=rf"^{re.escape(str(path))}: {message}") as info:
        load_catalog([path])
    assert "\n" not in str(info.value)
