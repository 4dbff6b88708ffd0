"""The compiled kernel keeps its own copy of RAID fan-out and of what an I/O costs each limit (numba
cannot call the Python ones); these tests pin that copy to the one home of each rule,
`advisor.layout.raid.fanout` and `RateLimit.charge` / `DeviceSpeed.seconds_per_io`, which the
capacity table, the candidate grid and the analytic engine use.

One logical I/O is submitted to the kernel on a fresh plan, chunk-aligned (the analytic model
splits an I/O into equal pieces, which a chunk-aligned I/O of a whole number of chunks is); the
units every limit was charged must be what the Python rules give.
"""

import numpy as np
import pytest

from advisor.layout import resolve
from advisor.layout.capacity import limits_of
from advisor.layout.raid import fanout
from advisor.sim import kernel
from advisor.sim.plan import compile_plan
from advisor.userfiles import load_catalog

CATALOG = load_catalog()
KIB = 1024
LAYOUTS = [
    "m5.8xlarge:gp3:500GiB:16000iops",
    "m5.8xlarge:raid0:2xgp3:500GiB",
    "m5.8xlarge:raid0:4xgp3:500GiB",
    "m5.8xlarge:raid0:8xgp3:500GiB",
    "m5.8xlarge:raid1:2xgp3:500GiB",
    "m5.8xlarge:raid10:4xgp3:500GiB",
    "m5.8xlarge:raid0:2xst1:2TiB",  # HDD throughput: charged in whole 1 MiB units
    "m5.8xlarge:raid10:4xio2:500GiB:20000iops",
    "i3.4xlarge:raid0:2xstore",  # device limiters: seconds per I/O
    "m5d.8xlarge:raid1:2xstore",
]
SIZES_KIB = [4, 16, 64, 256, 512, 1024, 2048]


def _kernel_charges(spec: str, *, write: bool, size_kib: int) -> dict[str, float]:
    """Units the kernel charges each named limit (summed over members) for one I/O."""
    plan = compile_plan(resolve(spec, CATALOG), CATALOG)
    limi, limf, devf, devm = plan.packed()
    lims = np.zeros((plan.n_limits, 6))
    lims[:, 1] = plan.lim_init
    lims[:, 4] = -1.0
    mems = np.zeros((plan.members, 6))
    mems[:, 1] = -1.0  # no previous I/O: a random one
    mems[:, 4] = -1.0
    tmp = np.zeros((3, plan.members + 1), dtype=np.int64)
    kernel._submit(0.0, 1 if write else 0, size_kib * KIB, 0, 1, 0, plan.raid,
                   plan.members, plan.chunk_bytes, plan.chain, limi, limf, lims, devf, devm,
                   mems, tmp)
    out: dict[str, float] = {}
    for l, name in enumerate(plan.limit_names):
        key = name.split(" device ")[0] + " device" if " device " in name else name
        out[key] = out.get(key, 0.0) + float(lims[l, 3])
    return out


def _python_charges(spec: str, *, write: bool, size_kib: int) -> dict[str, float]:
    """The same, from the one home of each rule."""
    layout = resolve(spec, CATALOG)
    lim = limits_of(layout, CATALOG)
    fan = fanout(layout.spec.raid, layout.spec.count, write=write, size=size_kib,
                 chunk=layout.spec.chunk_kib)
    out = {x.name: fan.member_ios * x.charge(fan.piece_size)
           for x in (*lim.member_limits, *lim.instance_limits)}
    if lim.device is not None:
        kind = "instance-store" if layout.ephemeral else "local"
        out[f"{kind} device"] = fan.member_ios * lim.device.seconds_per_io(
            write=write, size_kib=fan.piece_size)
    return out


@pytest.mark.parametrize("spec", LAYOUTS)
@pytest.mark.parametrize("write", [False, True], ids=["read", "write"])
def test_the_kernel_charges_every_limit_what_the_layout_rules_say(spec: str, write: bool) -> None:
    """For reads and writes of 4 KiB to 2 MiB, the kernel's member I/Os and the units they
    spend at every limit equal fan-out x charge computed in Python."""
    for size_kib in SIZES_KIB:
        got = _kernel_charges(spec, write=write, size_kib=size_kib)
        want = _python_charges(spec, write=write, size_kib=size_kib)
        assert got == pytest.approx(want, rel=1e-12), (spec, size_kib)


def test_the_kernel_uses_the_plans_raid_codes() -> None:
    """The RAID codes compiled into the kernel are the ones the plan writes."""
    from advisor.layout.raid import RAID_CODES

    compiled = {None: kernel.NONE, "raid0": kernel.RAID0, "raid1": kernel.RAID1}
    assert compiled == {level: RAID_CODES[level] for level in compiled}
    for spec in LAYOUTS:
        layout = resolve(spec, CATALOG)
        assert compile_plan(layout, CATALOG).raid == RAID_CODES[layout.spec.raid]
