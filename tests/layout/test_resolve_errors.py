"""A bad layout spec says which part is wrong and why, in one line the user can act on."""

import re

import pytest

from advisor.catalog import builtin_catalog
from advisor.errors import AdvisorError, InvalidLayout, UnknownInstance
from advisor.layout import resolve

CATALOG = builtin_catalog()

# (spec, error class, the message, as a regex that must match it)
BAD_SPECS = [
    # unknown instance, with close names suggested
    ("m5.larg:gp2:100GiB", UnknownInstance,
     r"^layout m5\.larg:gp2:100GiB: unknown instance 'm5\.larg'; did you mean m5\.large\b"),
    # unknown device
    ("m5.large:gp4:100GiB", InvalidLayout,
     r"token 2 'gp4': unknown device: expected one of gp2, gp3, io1, io2, st1, sc1, standard, "
     r"store or local:NAME$"),
    # size outside the type's range: gp2 1 GiB-16 TiB [S1]; io1 from 4 GiB [S1][S3]
    ("m5.large:gp2:20TiB", InvalidLayout, r"gp2 volume size 20TiB is outside 1GiB-16TiB$"),
    ("m5.large:io1:3GiB:100iops", InvalidLayout, r"io1 volume size 3GiB is outside 4GiB-16TiB$"),
    # io1 maximum 64,000 IOPS on Nitro [S3]
    ("m5.8xlarge:io1:1000GiB:70000iops", InvalidLayout,
     r"70000 iops is over the io1 maximum of 64000$"),
    # io1 50:1 IOPS:GiB [S3]: 100 GiB allows 5,000; 6,000 needs 120 GiB
    ("m5.8xlarge:io1:100GiB:6000iops", InvalidLayout,
     r"6000 iops is over the io1 50:1 IOPS:GiB ratio for 100GiB "
     r"\(max 5000; 6000 iops needs at least 120GiB\)$"),
    # io1 32,000 IOPS on non-Nitro instances [S3]
    ("c4.2xlarge:io1:1000GiB:40000iops", InvalidLayout,
     r"40000 iops is over the io1 maximum of 32000 on a non-Nitro instance like c4\.2xlarge$"),
    # gp3: 0.25 MiB/s per IOPS, so 1,000 MiB/s needs 4,000 IOPS [S2]
    ("m5.large:gp3:100GiB:3000iops:1000mbps", InvalidLayout,
     r"1000mbps is over the gp3 ratio of 0\.25 MiB/s per IOPS at 3000 iops "
     r"\(needs at least 4000iops\)$"),
    # gp3 ranges: IOPS from the included 3,000 [S2]; throughput up to 2,000 MiB/s [S10]
    ("m5.large:gp3:100GiB:2000iops", InvalidLayout,
     r"2000 iops is below the gp3 minimum of 3000$"),
    ("m5.large:gp3:100GiB:100mbps", InvalidLayout,
     r"100mbps is below the gp3 included 125 MiB/s$"),
    ("m5.large:gp3:100GiB:16000iops:2500mbps", InvalidLayout,
     r"2500mbps is over the gp3 maximum of 2000 MiB/s$"),
    # store on an EBS-only instance [facts §2.1]
    ("m5.large:store", InvalidLayout, r"^layout m5\.large:store: m5\.large has no instance store "
     r"\(EBS only\); use an EBS volume type or an instance with local disks"),
    # more store devices than the instance has: m5d.large 1, m5d.8xlarge 2 [S7]
    ("m5d.large:raid0:2xstore", InvalidLayout,
     r"m5d\.large has 1 instance-store device; 2xstore asks for 2$"),
    ("m5d.8xlarge:raid10:4xstore", InvalidLayout,
     r"m5d\.8xlarge has 2 instance-store devices; 4xstore asks for 4$"),
    # RAID levels whose device count does not fit
    ("m5.large:raid1:1xgp2:100GiB", InvalidLayout, r"raid1 needs at least 2 mirrors, got 1$"),
    ("m5.large:raid10:3xgp2:100GiB", InvalidLayout,
     r"raid10 needs an even number of at least 4 devices, got 3$"),
    ("m5.large:raid0:1xgp2:100GiB", InvalidLayout, r"raid0 needs at least 2 devices, got 1$"),
    ("m5.large:2xgp2:100GiB", InvalidLayout,
     r"2 devices need a RAID level \(raid0, raid1 or raid10\) before the device$"),
    ("m5.large:raid5:2xgp2:100GiB", InvalidLayout,
     r"token 2 'raid5': RAID level must be raid0, raid1 or raid10$"),
    # io1 on an instance without EBS optimization [S16][S17]
    ("c1.medium:io1:100GiB:1000iops", InvalidLayout,
     r"c1\.medium does not support EBS optimization, so io1 cannot deliver provisioned IOPS"),
    # mixed types
    ("m5.large:raid0:2xgp2:100GiB:gp3", InvalidLayout,
     r"token 5 'gp3': a layout has one device type; 'gp3' after 'gp2' mixes types$"),
    ("m5.large:raid0:2xgp2:100GiB:2xgp3", InvalidLayout,
     r"token 5 '2xgp3': a layout has one device type"),
    # empty tokens and an empty spec
    ("m5.large::gp2:100GiB", InvalidLayout,
     r"empty token \(two ':' in a row or a trailing ':'\)$"),
    ("m5.large:gp2:100GiB:", InvalidLayout, r"empty token"),
    ("", InvalidLayout, r"^layout spec is empty: write e\.g\. m5d\.large:gp2:385GiB$"),
    ("m5.large", InvalidLayout, r"no device after the instance"),
    # GB instead of GiB
    ("m5.large:gp2:100GB", InvalidLayout,
     r"token 3 '100GB': sizes are whole GiB or TiB, e\.g\. 500GiB or 2TiB$"),
    ("m5.large:gp2:1.5TiB", InvalidLayout, r"token 3 '1\.5TiB': expected a size \(500GiB\)"),
    # values that do not apply to the device
    ("m5.large:gp2:100GiB:3000iops", InvalidLayout,
     r"gp2 IOPS are not provisioned \(they follow from the size\); drop 3000iops"),
    ("m5.large:gp2:100GiB:250mbps", InvalidLayout,
     r"gp2 throughput is not provisioned; drop 250mbps \(only gp3 takes it\)$"),
    ("m5d.large:store:100GiB", InvalidLayout,
     r"size cannot be set on instance-store devices \(their size and speed are fixed\)$"),
    ("m5.large:gp2:100GiB:chunk256KiB", InvalidLayout,
     r"a chunk size applies only to raid0 and raid10$"),
    ("m5.large:gp2:100GiB:100GiB", InvalidLayout, r"token 4 '100GiB': size given twice$"),
    # values the device needs
    ("m5.large:gp2", InvalidLayout, r"gp2 needs a volume size, e\.g\. m5\.large:gp2:100GiB$"),
    ("m5.large:io1:100GiB", InvalidLayout,
     r"io1 needs provisioned IOPS, e\.g\. m5\.large:io1:100GiB:3000iops$"),
]


@pytest.mark.parametrize(("spec", "error", "message"), BAD_SPECS,
                         ids=[s or "<empty>" for s, _, _ in BAD_SPECS])
def test_bad_spec_is_rejected_with_one_actionable_line(
        spec: str, error: type[AdvisorError], message: str) -> None:
    """A bad spec raises its domain error with one line naming what is wrong and why."""
    with pytest.raises(error, match=message) as info:
        resolve(spec, CATALOG)
    assert "\n" not in str(info.value)
    assert isinstance(info.value, AdvisorError)  # the CLI turns these into exit code 2


def test_unknown_instance_without_close_names_suggests_nothing() -> None:
    """An instance name far from every catalog name gets no 'did you mean'."""
    with pytest.raises(UnknownInstance, match=r"unknown instance 'zz9\.huge'$"):
        resolve("zz9.huge:gp2:100GiB", CATALOG)


def test_errors_name_the_spec_as_written_or_canonical() -> None:
    """Every rejection message starts with the layout it rejects."""
    for spec, error, _ in BAD_SPECS:
        if not spec:
            continue
        with pytest.raises(error) as info:
            resolve(spec, CATALOG)
        assert re.match(r"^layout '?[a-z0-9]", str(info.value)), str(info.value)


def test_gp2_on_instance_without_ebs_optimization_resolves_with_warning() -> None:
    """c1.medium takes gp2 (no provisioned IOPS to guarantee) but warns [S16][S17]."""
    layout = resolve("c1.medium:gp2:100GiB", CATALOG)
    assert layout.warnings == (
        "c1.medium has no EBS optimization: EBS traffic shares the instance's network link "
        "and no dedicated bandwidth is guaranteed",)


def test_hdd_instance_store_warns_about_first_write_penalty() -> None:
    """m1.large's HDD instance store needs initialization before use [S7]."""
    layout = resolve("m1.large:raid0:2xstore", CATALOG)
    assert layout.warnings == (
        "m1.large instance store is HDD with a first-write penalty: pre-warm it by writing "
        "every block before use",)
