"""A deployment plan as text: Terraform (main.tf, variables.tf, outputs.tf) and one cloud-init
shell script per server that assembles its array, makes XFS, mounts it on the MySQL datadir and
writes the my.cnf the model assumed. Pure text generation: `advisor export terraform` and
`size --terraform` write the files.

EBS volumes are attached after the instance boots, so the script waits for them, finding each by
its volume ID (Nitro instances expose it as the NVMe serial, /dev/disk/by-id/
nvme-Amazon_Elastic_Block_Store_vol...; Xen instances as /dev/xvdX). Terraform passes the IDs in
`ADVISOR_VOLUMES`, on the line it puts before the script in user_data. Instance-store arrays are
assembled from the NVMe instance-storage devices, at every boot (a systemd unit): a stop/start
gives the instance blank devices.
"""

from recommend.deploy import MOUNT_POINT, DeploymentPlan, ServerPlan

Attr = tuple[str, str]  # name, HCL value text (one line or several)


def terraform_files(plan: DeploymentPlan) -> dict[str, str]:
    """File name -> text for the Terraform directory."""
    files = {"main.tf": main_tf(plan), "variables.tf": variables_tf(plan),
             "outputs.tf": outputs_tf(plan)}
    for s in plan.servers:
        files[f"cloud-init-{s.name}.sh"] = cloud_init(plan, s)
        files[f"my.cnf.{s.name}"] = s.mycnf.text(header=f"{plan.header}\n{s.name}: {s.layout}")
    return files


def _string(text: str) -> str:
    """An HCL string literal (no template sequences: `${` and `%{` are escaped)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("${", "$${").replace(
        "%{", "%%{")
    return f'"{escaped}"'


def _block(header: str, items: list[Attr | str], indent: int = 0) -> str:
    """An HCL block; consecutive one-line attributes get their `=` aligned as `terraform fmt`
    does. A `str` item is a nested block's text (already indented)."""
    pad = " " * (indent + 2)
    out = [" " * indent + header + " {"]
    group: list[Attr] = []

    def flush() -> None:
        width = max((len(k) for k, _ in group), default=0)
        out.extend(f"{pad}{k.ljust(width)} = {v}" for k, v in group)
        group.clear()

    for item in items:
        if isinstance(item, str):
            flush()
            out.append(item)
        elif "\n" in item[1]:
            flush()
            out.append(f"{pad}{item[0]} = {item[1]}")
        else:
            group.append(item)
    flush()
    out.append(" " * indent + "}")
    return "\n".join(out)


def _map(items: list[Attr], indent: int) -> str:
    """A multi-line object value `{ k = v ... }` at `indent` (the attribute's own)."""
    width = max(len(k) for k, _ in items)
    body = [f"{' ' * (indent + 2)}{k.ljust(width)} = {v}" for k, v in items]
    return "{\n" + "\n".join(body) + "\n" + " " * indent + "}"


def _comment(text: str) -> str:
    return "\n".join(f"# {line}".rstrip() for line in text.splitlines())


def main_tf(plan: DeploymentPlan) -> str:
    parts = [_comment(f"Written by advisor from a sizing result.\n{plan.header}"),
             _block("terraform", [
                 ("required_version", _string(">= 1.3")),
                 _block("required_providers", [("aws", _map([
                     ("source", _string("hashicorp/aws")), ("version", _string(">= 5.0"))],
                     4))], 2)]),
             _block('provider "aws"', [("region", "var.region")]),
             _comment("The subnet decides the availability zone: the volumes are made there.")
             + "\n" + _block('data "aws_subnet" "db"', [("id", "var.subnet_id")])]
    for s in plan.servers:
        parts.append(_instance(plan, s))
        for i, v in enumerate(s.volumes, 1):
            vol = f"{s.name}_data_{i}"
            attrs: list[Attr | str] = [
                ("availability_zone", "data.aws_subnet.db.availability_zone"),
                ("type", _string(v.volume_type)), ("size", str(v.size_gib))]
            if v.iops is not None:
                attrs.append(("iops", str(v.iops)))
            if v.throughput_mibps is not None:
                attrs.append(("throughput", str(v.throughput_mibps)))
            attrs.append(("tags", _map([("Name", _string(f"advisor-{s.name}-data-{i}")),
                                        ("Server", _string(s.name))], 2)))
            parts.append(_block(f'resource "aws_ebs_volume" "{vol}"', attrs))
            parts.append(_block(f'resource "aws_volume_attachment" "{vol}"', [
                ("device_name", _string(v.device_name)),
                ("volume_id", f"aws_ebs_volume.{vol}.id"),
                ("instance_id", f"aws_instance.{s.name}.id")]))
    return "\n\n".join(parts) + "\n"


def _ami_name(plan: DeploymentPlan, arch: str) -> str:
    """The AMI variable of servers of `arch`: `ami_id` when every server shares one
    architecture, else `ami_id_x86_64` and `ami_id_arm64` (an AMI is built for one architecture,
    and EC2 refuses to launch it on another: a Graviton master beside an x86 replica needs two)."""
    return "ami_id" if len({s.arch for s in plan.servers}) == 1 else f"ami_id_{arch}"


def ami_variables(plan: DeploymentPlan) -> dict[str, list[ServerPlan]]:
    """Each AMI variable -> the servers that boot it, by name."""
    out: dict[str, list[ServerPlan]] = {}
    for s in plan.servers:
        out.setdefault(_ami_name(plan, s.arch), []).append(s)
    return dict(sorted(out.items()))


def _instance(plan: DeploymentPlan, s: ServerPlan) -> str:
    script = f'file("${{path.module}}/cloud-init-{s.name}.sh")'
    if s.volumes:
        pairs = " ".join(f"${{aws_ebs_volume.{s.name}_data_{i}.id}}={v.device_name}"
                         for i, v in enumerate(s.volumes, 1))
        user_data = ("join(\"\\n\", [\n    \"#!/bin/bash\",\n"
                     f"    \"export ADVISOR_VOLUMES='{pairs}'\",\n    {script},\n  ])")
    else:
        user_data = script
    attrs: list[Attr | str] = [
        ("ami", f"var.{_ami_name(plan, s.arch)}"),
        ("instance_type", _string(s.instance_type)),
        ("subnet_id", "var.subnet_id"), ("key_name", "var.key_name"),
        ("vpc_security_group_ids", "var.security_group_ids")]
    if s.ebs_optimized:
        attrs.append(("ebs_optimized", "true"))
    attrs += [("user_data", user_data), ("user_data_replace_on_change", "true"),
              ("tags", _map([("Name", _string(f"advisor-{s.name}")), ("Role", _string(s.role)),
                             ("Layout", _string(s.layout))], 2))]
    return (_comment(f"{s.name}: {s.layout}") + "\n"
            + _block(f'resource "aws_instance" "{s.name}"', attrs))


def variables_tf(plan: DeploymentPlan) -> str:
    def var(name: str, type_: str, about: str, default: str | None = None) -> str:
        attrs: list[Attr | str] = [("type", type_), ("description", _string(about))]
        if default is not None:
            attrs.append(("default", default))
        return _block(f'variable "{name}"', attrs)

    return "\n\n".join([
        var("region", "string", "AWS region (the sizing's prices are this region's)",
            _string(plan.region)),
        *(var(name, "string", f"{_arch_words(servers)} AMI of {_names(servers)} (Linux with "
              "systemd; the MySQL or MariaDB server the sizing assumed, or installed after "
              "boot)") for name, servers in ami_variables(plan).items()),
        var("subnet_id", "string", "subnet of every server (its availability zone holds the "
            "volumes)"),
        var("key_name", "string", "EC2 key pair name for SSH"),
        var("security_group_ids", "list(string)", "security groups of the servers", "[]"),
    ]) + "\n"


def _arch_words(servers: list[ServerPlan]) -> str:
    arch = servers[0].arch
    return "An arm64 (Graviton)" if arch == "arm64" else f"An {arch}"


def _names(servers: list[ServerPlan]) -> str:
    return ", ".join(f"{s.name} ({s.instance_type})" for s in servers)


def outputs_tf(plan: DeploymentPlan) -> str:
    return "\n\n".join(_block(f'output "{s.name}_private_ip"', [
        ("value", f"aws_instance.{s.name}.private_ip")]) for s in plan.servers) + "\n"


def cloud_init(plan: DeploymentPlan, s: ServerPlan) -> str:
    """The server's boot script (bash): storage, file system, mount, my.cnf."""
    kind = "ebs" if s.volumes else "store"
    raid = s.raid.removeprefix("raid") if s.raid else ""
    mycnf = s.mycnf.text(header=f"{plan.header}\n{s.name}: {s.layout}")
    if "ADVISOR_MYCNF" in mycnf:  # the heredoc's end marker must not occur inside it
        raise ValueError("my.cnf text holds the heredoc marker")
    header = _comment(f"advisor: storage and my.cnf of {s.name} ({s.layout})\n{plan.header}")
    return f"""#!/bin/bash
{header}
#
# cloud-init runs this once as user data; an instance-store server also runs it at every boot
# (advisor-storage.service), because a stop/start gives it blank devices: the database must then
# be restored (for instance cloned from a replica). Initialise and start MySQL after it: a server
# already running from the datadir it mounts over must be stopped first.
set -euo pipefail

MOUNT_POINT={MOUNT_POINT}
KIND={kind}  # ebs: volumes found by ID; store: the NVMe instance-storage devices
DEVICES_EXPECTED={s.devices}
RAID_LEVEL={raid}  # empty: one device, no array
CHUNK_KIB={s.chunk_kib}
DATA_MEMBERS={s.data_members}
WAIT_S=600
# "vol-0123...=/dev/sdf ...": set by the line Terraform puts before this script
ADVISOR_VOLUMES=${{ADVISOR_VOLUMES:-}}
DEVICES=()
TARGET=

log() {{ echo "advisor-storage: $*" >&2; }}

install_tools() {{
    if command -v mdadm >/dev/null && command -v mkfs.xfs >/dev/null; then return 0; fi
    if command -v apt-get >/dev/null; then
        apt-get update -q
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q mdadm xfsprogs
    elif command -v dnf >/dev/null; then
        dnf install -y mdadm xfsprogs
    elif command -v yum >/dev/null; then
        yum install -y mdadm xfsprogs
    else
        log "no apt-get, dnf or yum: install mdadm and xfsprogs in the AMI"
        exit 1
    fi
}}

ebs_device() {{
    # $1 volume ID, $2 the name it was attached as: the block device it shows up as
    local link=/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_${{1//-/}}
    if [[ -e $link ]]; then readlink -f "$link"; return 0; fi
    local xen=/dev/xvd${{2#/dev/sd}}
    if [[ -b $xen ]]; then echo "$xen"; return 0; fi
    if [[ -b $2 ]]; then echo "$2"; return 0; fi
    return 1
}}

find_devices() {{
    DEVICES=()
    local pair dev link
    if [[ $KIND == ebs ]]; then
        for pair in $ADVISOR_VOLUMES; do
            dev=$(ebs_device "${{pair%%=*}}" "${{pair#*=}}") || return 1
            DEVICES+=("$dev")
        done
    else
        for link in /dev/disk/by-id/nvme-Amazon_EC2_NVMe_Instance_Storage_*; do
            [[ -e $link && $link != *-part* && $link != *_1 ]] || continue
            DEVICES+=("$(readlink -f "$link")")
        done
        if (( ${{#DEVICES[@]}} > 0 )); then
            mapfile -t DEVICES < <(printf '%s\\n' "${{DEVICES[@]}}" | sort -u)
        fi
    fi
    (( ${{#DEVICES[@]}} == DEVICES_EXPECTED ))
}}

wait_devices() {{
    local waited=0
    until find_devices; do
        if (( waited >= WAIT_S )); then
            log "found ${{#DEVICES[@]}} of $DEVICES_EXPECTED devices after ${{WAIT_S}} s"
            exit 1
        fi
        sleep 5
        waited=$((waited + 5))
    done
    log "devices: ${{DEVICES[*]}}"
}}

assemble() {{
    TARGET=${{DEVICES[0]}}
    [[ -n $RAID_LEVEL ]] || return 0
    TARGET=/dev/md/advisor-data
    [[ -e $TARGET ]] && return 0
    if mdadm --assemble "$TARGET" "${{DEVICES[@]}}" 2>/dev/null; then return 0; fi
    mdadm --create "$TARGET" --run --level="$RAID_LEVEL" --chunk="${{CHUNK_KIB}}K" \\
        --raid-devices="${{#DEVICES[@]}}" "${{DEVICES[@]}}"
    local conf=/etc/mdadm/mdadm.conf
    [[ -d /etc/mdadm ]] || conf=/etc/mdadm.conf
    mdadm --detail --scan >>"$conf"
}}

make_fs() {{
    local fs
    fs=$(blkid -s TYPE -o value "$TARGET" || true)
    if [[ $fs == xfs ]]; then return 0; fi
    if [[ -n $fs ]]; then
        log "$TARGET holds a $fs file system: left alone (not XFS, not made by this script)"
        exit 1
    fi
    if [[ -n $RAID_LEVEL && $RAID_LEVEL != 1 ]]; then
        # stripe unit = the chunk, stripe width = the members holding distinct data
        mkfs.xfs -f -d "su=${{CHUNK_KIB}}k,sw=${{DATA_MEMBERS}}" "$TARGET"
    else
        mkfs.xfs -f "$TARGET"
    fi
}}

mount_fs() {{
    local uuid
    uuid=$(blkid -s UUID -o value "$TARGET")
    mkdir -p "$MOUNT_POINT"
    if ! grep -q "UUID=$uuid " /etc/fstab; then
        echo "UUID=$uuid $MOUNT_POINT xfs noatime,nofail 0 2" >>/etc/fstab
    fi
    mountpoint -q "$MOUNT_POINT" || mount "$MOUNT_POINT"
    if id mysql >/dev/null 2>&1; then chown mysql:mysql "$MOUNT_POINT"; fi
}}

write_mycnf() {{
    local dir=/etc/mysql/conf.d
    if [[ -d /etc/my.cnf.d ]]; then dir=/etc/my.cnf.d; fi
    if [[ -d /etc/mysql/mariadb.conf.d ]]; then dir=/etc/mysql/mariadb.conf.d; fi
    mkdir -p "$dir"
    cat >"$dir/99-advisor.cnf" <<'ADVISOR_MYCNF'
{mycnf}ADVISOR_MYCNF
    log "wrote $dir/99-advisor.cnf"
}}

boot_unit() {{
    [[ $KIND == store ]] || return 0
    [[ -e /etc/systemd/system/advisor-storage.service ]] && return 0
    install -m 0755 "$0" /usr/local/sbin/advisor-storage
    cat >/etc/systemd/system/advisor-storage.service <<'UNIT'
[Unit]
Description=advisor: assemble the instance-store array and mount the MySQL datadir
After=local-fs.target
Before=mysql.service mysqld.service mariadb.service

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/advisor-storage
RemainAfterExit=yes

[Install]
WantedBy=multi-user.target
UNIT
    systemctl daemon-reload
    systemctl enable advisor-storage.service
}}

install_tools
wait_devices
assemble
make_fs
mount_fs
write_mycnf
boot_unit
"""
