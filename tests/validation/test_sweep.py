"""BRIEF §8 item 3 curve by curve (tests/validation/sweep.py): each claim the published sweep
makes about a curve, checked on the simulated curve. Claims the model misses are strict xfails
with the reason, so they show in every run and fail the day they start to pass."""

import pytest

from tests.validation.sweep import CURVES, curve_claims

KNOWN_MISSES = {
    ("io1", "rndwr"): "io1 as fast as gp2 at one thread rises linearly to the documented 30,000 "
                      "IOPS instance cap by 18 threads; the run plateaued near 23,000",
    ("local", "rndrd"): "16 KiB reads take ~0.16 ms at QD1, so 4 threads reach ~31,000 "
                        "(21 % page-cache hits) of the ~79,000 at 128 threads that AWS's floor "
                        "gives the device; saturating at 4 would need a read capacity far "
                        "under the floor",
}


def _params() -> list[object]:
    out = []
    for layout_id, mode in CURVES:
        for i in range(len(curve_claims(layout_id, mode))):
            reason = KNOWN_MISSES.get((layout_id, mode))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            out.append(pytest.param(layout_id, mode, i, marks=marks,
                                    id=f"{layout_id}-{mode}-{i}"))
    return out


@pytest.mark.slow
@pytest.mark.parametrize(("layout_id", "mode", "index"), _params())
def test_item3_curve_claim(layout_id: str, mode: str, index: int) -> None:
    """The simulated curve meets the published claim about it (rates within 15 %)."""
    claim = curve_claims(layout_id, mode)[index]
    out = claim.evaluate()
    assert out.ok, f"{layout_id} {mode}: {claim.what}: simulated {out.value:,.4g}, published " \
                   f"{out.expectation}"


def test_every_curve_of_item3_is_swept() -> None:
    """Four layouts x four sysbench modes: 16 curves, each with the claims the source makes."""
    assert len(CURVES) == 16
    assert sum(len(curve_claims(*c)) for c in CURVES) == 11
