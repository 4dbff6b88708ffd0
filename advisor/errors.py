"""Domain errors: raised by the core with a message a user can act on, translated at the edges.

The CLI turns every `AdvisorError` into one line and exit code 2; the API into a 422 with the same
text. `InfeasibleSlo` is the exception: it is a valid question with a "no" answer (exit code 1).
"""


def one_line(exc: BaseException, limit: int = 160) -> str:
    """A third party's error message (a library's, a driver's) as one line of at most `limit`
    characters, for quoting inside our own one-line messages."""
    return " ".join(str(exc).split())[:limit]


class AdvisorError(Exception):
    """Base of every error the user caused and can fix."""


class InvalidInput(AdvisorError):
    """A request parameter is out of range or malformed."""


class CatalogError(AdvisorError):
    """A catalog file is malformed; the message names the file, the entry and the field."""


class UnknownInstance(AdvisorError):
    """The instance type is not in the catalog."""


class UnknownDevice(AdvisorError):
    """The device (volume type, `store` or `local:PROFILE`) is not in the catalog."""


class InvalidLayout(AdvisorError):
    """A layout spec does not parse or violates a limit of its instance or volume type."""


class InfeasibleSlo(AdvisorError):
    """No candidate meets the SLO: a valid question whose answer is no.

    `best_p99_ms` and `best` (a deployment) state the lowest p99 the search found, when it has
    one, so that an edge can answer in one line; the message lists the closest candidates.
    `over_budget` (`over_budget_text`) names, when deployments meet the SLO only above the
    request's budget, the cheapest of them: then the budget is the answer, not the latency."""

    def __init__(self, message: str, *, best_p99_ms: float | None = None,
                 best: str | None = None, over_budget: str | None = None) -> None:
        super().__init__(message)
        self.best_p99_ms = best_p99_ms
        self.best = best
        self.over_budget = over_budget


def over_budget_text(kind: str, monthly_usd: float, budget_usd: float, what: str) -> str:
    """What the SLO costs when nothing within the budget meets it: the cheapest `kind`
    (deployment, cluster) that does, `what` it is (`InfeasibleSlo.over_budget`)."""
    return (f"the cheapest {kind} that meets it costs ${monthly_usd:,.2f}/month, over "
            f"${budget_usd:,.2f}: {what}")
