"""typer options generated from the request declarations (advisor.options), so a flag, its help,
its default and its bounds are written once, in the core."""

import inspect
from collections.abc import Callable, Iterable
from typing import Annotated, Any

import typer
from rich.markup import escape

from advisor.options import Declared


def _help(d: Declared) -> str:
    """The option's help as `--help` renders it: rich markup, so a '[default: ...]' in the
    declared text is escaped (else rich takes it for a style tag and drops it)."""
    extra = []
    if d.opt.choices:
        extra.append(" | ".join(d.opt.choices))
    bounds = d.opt.bounds_text()
    if bounds and d.opt.text is None:
        extra.append(bounds)
    return escape(d.opt.help + (f" ({'; '.join(extra)})" if extra else ""))


def parameter(d: Declared) -> inspect.Parameter:
    """The typer parameter of one declared option."""
    kwargs: dict[str, Any] = {"help": _help(d)}
    if d.opt.panel:
        kwargs["rich_help_panel"] = d.opt.panel
    if d.opt.text is not None:  # typed on the command line as text (e.g. replicas: 2 or auto)
        annotation: Any = str
        default = d.opt.text[1](d.default)
    else:
        annotation, default = d.type, d.default
    if d.opt.argument:
        return inspect.Parameter(d.name, inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[
            annotation, typer.Argument(show_default=False, metavar=d.name.upper(), **kwargs)])
    if annotation is bool:
        info = typer.Option(d.flag, **kwargs)
    else:
        info = typer.Option(d.flag, show_default=default is not None, **kwargs)
    return inspect.Parameter(d.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                             annotation=Annotated[annotation, info])


def with_options(decls: Iterable[Declared], *fixed: inspect.Parameter) -> Callable[
        [Callable[..., None]], Callable[..., None]]:
    """Give `fn(**values)` a signature typer reads: the declared options, then `fixed` ones
    (output format, files and other adapter-only options)."""
    params = [parameter(d) for d in decls] + list(fixed)

    def wrap(fn: Callable[..., None]) -> Callable[..., None]:
        def command(**values: Any) -> None:
            fn(**values)

        command.__name__ = fn.__name__
        command.__doc__ = fn.__doc__
        command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in params}
        return command

    return wrap


def fixed(name: str, annotation: Any, default: Any) -> inspect.Parameter:
    """An adapter-only parameter (format, --out, --report ...) for `with_options`."""
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                             annotation=annotation)
