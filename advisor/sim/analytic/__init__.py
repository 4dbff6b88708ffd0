"""The analytic (fluid) engine: capacity from the binding limit, queueing approximations for
latency, credit-bucket drain in closed form. Microseconds per level, any horizon.

Model: every limit is a pacing server; a request's cost at each limit follows from the I/O mix and
RAID fan-out; the request then waits for the device's service time (a delay). Closed loop: mean
value analysis with a deterministic-service residual correction; open loop: M/D/1 waits, or a
linearly growing backlog past saturation. Buckets drain at (use - earn) until empty, then the limit
falls to its sustained rate: the run is a sequence of phases.

Modules by concern: `dist` (quantile-grid distributions and their sums), `mix` (the I/O mix and
per-I/O cost), `mva` (binding capacity, mean value analysis), `phases` (credit drain) and
`engine` (the entry points below).
"""

from advisor.sim.analytic.engine import (
    PhaseLatency,
    SteadyState,
    analytic_level,
    combine_dists,
    mix_level,
    phase_dists,
    phase_latency,
    read_fraction_over,
    saturation_iops,
    steady_phase,
    steady_state,
    steady_state_with,
)
from advisor.sim.analytic.mix import IoSpec, Mix, RequestClass, build_mix, pattern_mix

__all__ = ["IoSpec", "Mix", "PhaseLatency", "RequestClass", "SteadyState", "analytic_level",
           "build_mix", "combine_dists", "mix_level", "pattern_mix", "phase_dists",
           "phase_latency",
           "read_fraction_over", "saturation_iops", "steady_phase", "steady_state",
           "steady_state_with"]
