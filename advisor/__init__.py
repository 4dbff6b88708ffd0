"""advisor: database-workload simulator and storage sizing advisor for AWS."""

__version__ = "0.1.0"
MODEL_VERSION = "1"
