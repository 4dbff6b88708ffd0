"""`advisor export terraform RESULT.json -o DIR`: what a sizing result must build, as Terraform, a
cloud-init script per server and the my.cnf the model assumed. `size --terraform DIR` and
`size --mycnf FILE` write the same files from the result they just made."""

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from advisor.cli.common import CatalogOpt, console, err_console, load
from advisor.errors import InvalidInput

HELP = """Write what a MySQL sizing result must build.

  advisor size --tps 627 --reads 3.25 --out result.json
  advisor export terraform result.json -o infra/

DIR gets main.tf (an aws_instance per server with the recommended type, an aws_ebs_volume +
aws_volume_attachment per volume), variables.tf (region, ami_id, subnet_id, key_name,
security_group_ids; ami_id_x86_64 and ami_id_arm64 instead of ami_id when the servers mix x86 and
Graviton types), outputs.tf, cloud-init-SERVER.sh (assembles the mdadm array with the
layout's level and chunk, makes XFS, mounts /var/lib/mysql, writes the my.cnf) and my.cnf.SERVER
(the settings the model assumed: buffer pool, redo capacity, io_capacity, flush settings, replica
workers). DIR must be new or empty unless --force; files are written to a temporary directory
first, so a failure leaves nothing half-written.

Exit codes: 0 written; 2 bad input (not a MySQL size result, DIR not empty...)."""

ForceOpt = Annotated[bool, typer.Option("--force", help="write into a DIR that is not empty "
                                        "(its files of the same names are replaced)")]

export_app = typer.Typer(help="Export a result as something to build (Terraform, my.cnf).",
                         no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(export_app, name="export")
    export_app.command("terraform", help=HELP)(terraform)


def terraform(
    result: Annotated[Path, typer.Argument(help="a `size` result (size --out FILE)",
                                           show_default=False)],
    out: Annotated[Path, typer.Option("--out", "-o", help="the Terraform directory to write",
                                      show_default=False)],
    force: ForceOpt = False,
    mycnf: Annotated[Path | None, typer.Option(help="also write the master's my.cnf here")] = None,
    catalog: CatalogOpt = None,
) -> None:
    from advisor.userfiles import read_json_object

    check_terraform_dir(out, force=force)
    check_mycnf(mycnf)
    data = read_json_object(result, what="size result")
    write_deployment(data, load(catalog), terraform_dir=out, mycnf=mycnf, force=force)


def check_terraform_dir(path: Path | None, *, force: bool) -> None:
    """Refuse a Terraform directory before any work: not a directory, or one with files in it
    (without --force), or whose parent does not exist."""
    if path is None:
        return
    if path.exists() or path.is_symlink():
        if not path.is_dir() or path.is_symlink():
            raise InvalidInput(f"{path}: exists and is not a directory")
        if any(path.iterdir()) and not force:
            raise InvalidInput(f"{path}: exists and is not empty (--force writes into it)")
    elif not path.parent.is_dir():
        raise InvalidInput(f"{path}: cannot make the directory ({path.parent} does not exist)")


def check_mycnf(path: Path | None) -> None:
    from advisor.userfiles import check_output

    check_output(path, what="my.cnf")


def write_deployment(data: Mapping[str, Any], catalog: Any, *, terraform_dir: Path | None,
                     mycnf: Path | None, force: bool, quiet: bool = False) -> None:
    """Plan once from the result, then write the directory and/or the my.cnf."""
    from recommend.deploy import deployment_plan, mycnf_text
    from recommend.terraform import terraform_files

    plan = deployment_plan(data, catalog)
    say = err_console if quiet else console  # beside JSON/CSV on stdout: on stderr
    files = terraform_files(plan) if terraform_dir is not None else {}
    if terraform_dir is not None:
        write_terraform_dir(terraform_dir, files, force=force)
        say.print(f"wrote {terraform_dir}: {', '.join(sorted(files))}", markup=False,
                  highlight=False, soft_wrap=True)
    if mycnf is not None:
        from advisor.userfiles import write_text

        write_text(mycnf, mycnf_text(plan), what="my.cnf")
        say.print(f"wrote {mycnf} (the master's my.cnf)", markup=False, highlight=False)


def write_terraform_dir(path: Path, files: Mapping[str, str], *, force: bool) -> None:
    """All `files` in `path`, or none (`userfiles.write_directory`); the boot scripts
    executable."""
    from advisor.userfiles import write_directory

    check_terraform_dir(path, force=force)
    write_directory(path, files, executable=[n for n in files if n.endswith(".sh")],
                    what="Terraform directory")
