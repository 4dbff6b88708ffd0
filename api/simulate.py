"""`POST /v1/simulate`: the body turned into the request `advisor simulate` builds (the same core
call, `workloads.simulate.run_simulate`, then runs it on a worker) under the service's work
limits: at most `max_duration_s` simulated seconds a level; the I/O budget is checked by the core
before it simulates anything."""

from typing import Any

from advisor.options import FieldError


def simulate_request_within(body: dict[str, Any], max_duration_s: float) -> Any:
    """The core's simulate request for a body, or a user error (a bad value, or too long)."""
    from workloads.simulate_request import simulate_request

    req = simulate_request(body)
    if req.duration > max_duration_s:
        raise FieldError("duration", req.duration, f"the API simulates between 0 and "
                         f"{max_duration_s:g} s per level (use the CLI for longer runs)")
    return req
