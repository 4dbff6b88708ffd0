"""The precheck reads a server's cost at every limit without building its mix's service times
(`server_cost`); it must be, to the bit, the cost of the mix the screen builds (`server_mix`), or
the precheck and the screen would judge one candidate two ways."""

import numpy as np
import pytest

from advisor.layout import resolve
from advisor.sim.plan import compile_plan
from advisor.userfiles import load_catalog
from recommend.mysql_search import server_cost, server_for, server_mix
from recommend.request import size_request
from workloads.mysql_shape import PRESETS

CATALOG = load_catalog()
SPECS = ("m5.large:gp2:200GiB", "c6g.large:gp3:120GiB", "r6i.xlarge:raid0:2xgp3:60GiB",
         "m6g.large:raid10:4xgp3:100GiB", "c5.large:io1:650GiB:10000iops",
         "m5d.large:store", "r5.large:raid0:4xgp2:100GiB", "m5.large:st1:500GiB")


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_cost_alone_is_the_mix_cost_to_the_bit(spec: str, preset: str) -> None:
    layout = resolve(spec, CATALOG)
    req = size_request({"workload": "mysql", "preset": preset, "data_gb": 50})
    for role in ("master", "replica"):
        for tps in (50.0, 627.0, 3000.0):
            server = server_for(req, layout, role, 1, tps, None)
            alone = compile_plan(layout, CATALOG)  # the cost first, on a plan of its own
            cost = server_cost(alone, server)
            # The cheap path builds no service times on the plan it reads.
            assert not any(k[0] == "foreground" for k in alone.rate_free)
            mix = server_mix(compile_plan(layout, CATALOG), server)
            np.testing.assert_array_equal(cost, mix.cost, err_msg=f"{role} at {tps} tps")
            # ... and after the mix was built on the same plan (its memo shared).
            shared = compile_plan(layout, CATALOG)
            full = server_mix(shared, server)
            np.testing.assert_array_equal(server_cost(shared, server), full.cost)
