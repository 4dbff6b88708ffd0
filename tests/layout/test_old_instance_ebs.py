"""Old instances' EBS ceilings (issue 11, item 4): m1.large's optional EBS optimization gives
S6's 500 Mbps / 4,000 IOPS (assumed enabled, said in its notes); c1.medium has none, so its EBS
traffic is capped by the shared network link (an assumption, tagged unsourced) and provisioned
IOPS volumes are refused."""

import pytest

from advisor.catalog.load import builtin_catalog
from advisor.errors import InvalidLayout
from advisor.layout.capacity import limits_of
from advisor.layout.model import resolve

CATALOG = builtin_catalog()


def _instance_caps(spec: str) -> tuple[dict[str, float], str]:
    """The instance's sustained EBS caps by unit, and their names."""
    lim = limits_of(resolve(spec, CATALOG), CATALOG)
    return ({x.unit: x.sustained for x in lim.instance_limits},
            " ".join(x.name for x in lim.instance_limits))


def test_m1_large_has_its_ebs_optimized_ceiling() -> None:
    caps, names = _instance_caps("m1.large:gp3:100GiB")
    assert caps["iops"] == 4000
    assert caps["mibps"] == pytest.approx(62.5 * 1e6 / 2**20)
    assert "shared-network" not in names
    notes = " ".join(CATALOG.instance_types["m1.large"].notes)
    assert "assume EBS optimization is enabled" in notes


def test_c1_medium_ebs_is_capped_by_its_network_link() -> None:
    c1 = CATALOG.instance_types["c1.medium"]
    assert c1.network_baseline_gbps is not None
    caps, names = _instance_caps("c1.medium:gp3:100GiB")
    assert caps["mibps"] == pytest.approx(c1.network_baseline_gbps * 1e9 / 8 / 2**20)
    assert caps["iops"] == pytest.approx(c1.network_baseline_gbps * 1e3 / 8 * 64)
    assert "c1.medium shared-network" in names
    assert resolve("c1.medium:gp3:100GiB", CATALOG).warnings  # no EBS optimization, said
    with pytest.raises(InvalidLayout, match="does not support EBS optimization"):
        resolve("c1.medium:io1:100GiB:3000iops", CATALOG)
