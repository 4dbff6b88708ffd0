"""`advisor size --workload aerospike`: the per-node resources, what binds, the ACT rating of the
device, the cluster rules and the assumptions behind the figures."""

from advisor.cli.common import console, new_table, num_column, text_column
from recommend.result import AerospikeCluster, AerospikeSizeResult


def _num(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:,.2f}"


def print_node_resources(rec: AerospikeCluster) -> None:
    """One row a resource: what the busiest node needs with one node down, of what it has."""
    if not rec.resources:
        return
    table = new_table(f"Per node ({rec.failure}; headroom load)", title_justify="left")
    text_column(table, "resource")
    for col in ("needs", "has", "use"):
        num_column(table, col)
    text_column(table, "unit")
    text_column(table, "how", wrap=True)
    for u in rec.resources:
        use = "unverified" if not u.verified else "-" if u.utilisation is None \
            else f"{u.utilisation:.0%}"
        table.add_row(u.resource, _num(u.need), _num(u.have), use, u.unit, u.basis)
    console.print(table)
    console.print(f"  · binds: {rec.binds}", markup=False, highlight=False, soft_wrap=True)
    if rec.device_rating is not None:
        console.print(f"  · ACT rating the model predicts: {rec.device_rating.text}",
                      markup=False, highlight=False, soft_wrap=True)


def print_rules(r: AerospikeSizeResult) -> None:
    for line in r.cluster_rules:
        console.print(f"  · {line}", markup=False, highlight=False, soft_wrap=True)


def print_assumptions(r: AerospikeSizeResult) -> None:
    if r.assumptions:
        console.print("[bold]Figures and assumptions[/bold]")
    for line in r.assumptions:
        console.print(f"  · {line}", markup=False, highlight=False, soft_wrap=True)


def print_alternative_ratings(r: AerospikeSizeResult) -> None:
    """The device rating and what binds for each alternative."""
    for a in r.alternatives:
        rating = a.device_rating.text if a.device_rating else "-"
        console.print(f"  · {a.nodes} x {a.layout}: binds {a.binds}; {rating}", markup=False,
                      highlight=False, soft_wrap=True)
