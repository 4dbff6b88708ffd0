"""The `advisor` command line: typer adapters over the core calls."""
