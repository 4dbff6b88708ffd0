"""The HTTP API (FastAPI): a thin adapter over the same core calls as the CLI."""
