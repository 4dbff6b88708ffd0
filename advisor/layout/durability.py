"""Annual probability of losing the data of a layout, with the assumptions behind it."""

from dataclasses import dataclass

from advisor.layout.model import Layout

REPAIR_WINDOW_HOURS = 24.0  # replace a failed volume and resync the mirror
HOURS_PER_YEAR = 8760.0
# AWS publishes no failure rate for instance store or for the host under it. Assumed: 2 % of
# instances a year lose their store to host failure or retirement (plus every stop/terminate).
INSTANCE_STORE_HOST_LOSS = 0.02
# Magnetic (standard) AFR is unpublished; assumed equal to gp2's upper bound.
FALLBACK_AFR = 0.002


@dataclass(frozen=True, slots=True, kw_only=True)
class Durability:
    annual_loss_probability: float
    ephemeral: bool
    assumptions: tuple[str, ...]


def _pair_loss(afr: float, copies: int) -> float:
    """A mirror set is lost when all copies fail within one repair window of each other."""
    window = REPAIR_WINDOW_HOURS / HOURS_PER_YEAR
    return copies * afr * (afr * window) ** (copies - 1)


def layout_durability(layout: Layout) -> Durability:
    n, raid = layout.spec.count, layout.spec.raid
    if layout.ephemeral:
        return Durability(
            annual_loss_probability=INSTANCE_STORE_HOST_LOSS, ephemeral=True,
            assumptions=(
                "instance store is ephemeral: every byte is lost on stop, hibernate, terminate "
                "or host failure [S8]; RAID over it does not protect against that",
                f"AWS publishes no instance-store failure rate; assumed "
                f"{INSTANCE_STORE_HOST_LOSS:.0%} a year (host failure or retirement), on top of "
                "certain loss at any stop",
                "keep a replica or backups on durable storage"))
    if layout.local is not None:
        return Durability(annual_loss_probability=0.0, ephemeral=False,
                          assumptions=("a calibrated local device: durability not modelled",))
    vt = layout.volume_type
    assert vt is not None
    assumptions = []
    afr = vt.annual_failure_rate
    if afr is None:
        afr = FALLBACK_AFR
        assumptions.append(f"{vt.name} AFR is not published; assumed {FALLBACK_AFR:.1%} (gp2's "
                           "upper bound)")
    else:
        assumptions.append(f"{vt.name} annual failure rate {afr:.3%} per volume (AWS)")
    if raid in (None, "raid0"):
        p = 1 - (1 - afr) ** n
        if raid == "raid0":
            assumptions.append(f"raid0 loses the array when any of its {n} volumes fails")
    else:
        copies = n if raid == "raid1" else 2
        sets = 1 if raid == "raid1" else n // 2
        p_set = _pair_loss(afr, copies)
        p = 1 - (1 - p_set) ** sets
        assumptions.append(f"{raid}: a mirror set is lost only when all {copies} copies fail "
                           f"within a {REPAIR_WINDOW_HOURS:g} h repair window (assumption), "
                           "failures independent")
    return Durability(annual_loss_probability=probability(p), ephemeral=False,
                      assumptions=tuple(assumptions))


def probability(p: float) -> float:
    """`p` to 8 significant digits: the failure rates it comes from have one or two, and
    1 - (1 - 0.002)^2 is 0.003996, not 0.0039959999999999996, in a JSON or CSV answer."""
    return float(f"{p:.8g}")
