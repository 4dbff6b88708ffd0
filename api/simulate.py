"""`POST /v1/simulate`: the body turned into the request `advisor simulate` builds, run by the same
core call (`workloads.simulate.run_simulate`) under the service's work limits: at most
`max_duration_s` simulated seconds a level and `io_budget` simulated I/Os a request."""

from pydantic import BaseModel

from advisor.catalog.model import Catalog
from advisor.options import FieldError
from workloads.results import SimulateResult


def run_simulate(body: BaseModel, catalog: Catalog, *, io_budget: float,
                 max_duration_s: float) -> SimulateResult:
    """The simulate result for `body`, or a user error (bad value, or over the work limits)."""
    from workloads.simulate import run_simulate as core
    from workloads.simulate_request import simulate_request

    req = simulate_request(body.model_dump())
    if req.duration > max_duration_s:
        raise FieldError("duration", req.duration, f"the API simulates between 0 and "
                         f"{max_duration_s:g} s per level (use the CLI for longer runs)")
    return core(req, catalog, io_budget=io_budget)
