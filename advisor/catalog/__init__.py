"""The catalog: EBS volume types, EC2 instance types and device latency profiles, as data."""

from advisor.catalog.load import builtin_catalog, extend_catalog
from advisor.catalog.model import (
    Catalog,
    EbsLimits,
    InstanceStore,
    InstanceType,
    LatencyDist,
    LatencyProfile,
    LocalDevice,
    VolumeType,
)

__all__ = ["Catalog", "EbsLimits", "InstanceStore", "InstanceType", "LatencyDist",
           "LatencyProfile", "LocalDevice", "VolumeType", "builtin_catalog", "extend_catalog"]
