"""Stored runs (SQLAlchemy): an edge of the application, never imported by the core."""

from advisor.store.runs import (
    DATABASE_ENV,
    KINDS,
    MemoryRunStore,
    RunStore,
    SqlRunStore,
    StoredRun,
    StoreError,
    default_url,
    masked,
)

__all__ = [
    "DATABASE_ENV", "KINDS", "MemoryRunStore", "RunStore", "SqlRunStore", "StoreError",
    "StoredRun", "default_url", "masked",
]
