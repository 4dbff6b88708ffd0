"""Annual probability of losing a layout's data, and the assumptions stated with it."""

import pytest

from advisor.catalog import builtin_catalog
from advisor.layout import resolve
from advisor.layout.describe import describe
from advisor.layout.durability import REPAIR_WINDOW_HOURS, layout_durability

CATALOG = builtin_catalog()
GP2_AFR = 0.002  # upper bound of AWS's 0.1-0.2 % AFR [S1][S2]
IO2_AFR = 0.00001  # 99.999 % durability [S1][S3]


def durability(spec: str):
    return layout_durability(resolve(spec, CATALOG))


def test_single_volume_loses_data_at_its_afr() -> None:
    """One gp2 volume: the annual loss probability is its AFR [S2]."""
    d = durability("m5.large:gp2:500GiB")
    assert d.annual_loss_probability == pytest.approx(GP2_AFR)
    assert d.ephemeral is False
    assert d.assumptions == ("gp2 annual failure rate 0.200% per volume (AWS)",)


@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_raid0_is_lost_when_any_member_fails(n: int) -> None:
    """RAID 0 of N volumes: 1 - (1 - AFR)^N [S9]."""
    d = durability(f"m5.large:raid0:{n}xgp2:100GiB")
    assert d.annual_loss_probability == pytest.approx(1 - (1 - GP2_AFR) ** n)
    assert f"raid0 loses the array when any of its {n} volumes fails" in d.assumptions


def test_raid1_is_far_safer_than_one_volume() -> None:
    """A mirror is lost only when both halves fail within the repair window (an assumption)."""
    single = durability("m5.large:gp2:100GiB").annual_loss_probability
    mirror = durability("m5.large:raid1:2xgp2:100GiB")
    window = REPAIR_WINDOW_HOURS / 8760
    assert mirror.annual_loss_probability == pytest.approx(2 * GP2_AFR * GP2_AFR * window)
    assert mirror.annual_loss_probability < single / 1000
    assert any("repair window (assumption)" in a for a in mirror.assumptions)


def test_more_mirrors_and_raid10_pairs_order_as_expected() -> None:
    """Three mirrors beat two; RAID 10 of 2 pairs sits between one pair and one volume."""
    one = durability("m5.large:gp2:100GiB").annual_loss_probability
    pair = durability("m5.large:raid1:2xgp2:100GiB").annual_loss_probability
    triple = durability("m5.large:raid1:3xgp2:100GiB").annual_loss_probability
    raid10 = durability("m5.large:raid10:4xgp2:100GiB").annual_loss_probability
    assert triple < pair < raid10 < one
    assert raid10 == pytest.approx(1 - (1 - pair) ** 2)


def test_io2_is_a_hundred_times_more_durable_than_gp2() -> None:
    """io2: 99.999 % durability (AFR 0.001 %) vs gp2's 0.2 % [S1][S3]."""
    assert durability("m5.large:io2:100GiB:1000iops").annual_loss_probability == pytest.approx(
        IO2_AFR)


def test_unpublished_afr_falls_back_and_says_so() -> None:
    """Magnetic AFR is not published (facts §1.1): assumed gp2's bound, stated as such."""
    d = durability("m5.large:standard:100GiB")
    assert d.annual_loss_probability == pytest.approx(GP2_AFR)
    assert d.assumptions[0] == ("standard AFR is not published; assumed 0.2% (gp2's upper "
                                "bound)")


@pytest.mark.parametrize("spec", ["m5d.large:store", "m5d.8xlarge:raid1:2xstore",
                                  "i3.16xlarge:raid10:8xstore", "m1.large:raid0:2xstore"])
def test_instance_store_is_ephemeral_whatever_the_raid(spec: str) -> None:
    """Instance store is lost on stop/terminate/host failure [S8]; RAID does not help."""
    d = durability(spec)
    assert d.ephemeral is True
    assert d.annual_loss_probability == 0.02  # assumed; no published figure (facts §2.3)
    assert d.assumptions == (
        "instance store is ephemeral: every byte is lost on stop, hibernate, terminate or "
        "host failure [S8]; RAID over it does not protect against that",
        "AWS publishes no instance-store failure rate; assumed 2% a year (host failure or "
        "retirement), on top of certain loss at any stop",
        "keep a replica or backups on durable storage",
    )


def test_layout_json_reports_durability() -> None:
    """`advisor layout` JSON carries ephemeral, the probability and its assumptions."""
    out = describe(resolve("m5d.large:store", CATALOG), CATALOG)
    assert (out["ephemeral"], out["annual_loss_probability"]) == (True, 0.02)
    assert len(out["durability_assumptions"]) == 3
    ebs = describe(resolve("m5d.large:gp2:385GiB", CATALOG), CATALOG)
    assert ebs["ephemeral"] is False
    assert ebs["annual_loss_probability"] == pytest.approx(GP2_AFR)


def test_a_probability_in_an_answer_is_not_floating_point_noise() -> None:
    """1 - (1 - 0.002)^2 is 0.003996 in JSON and CSV, not 0.0039959999999999996."""
    d = durability("m5.large:raid0:2xgp3:60GiB")
    assert repr(d.annual_loss_probability) == "0.003996"
