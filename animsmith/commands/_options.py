"""What several commands read from their flags the same way: the per-command ``--config``
and which contract it names, the ``--format text|json`` choice, number flags that must be
finite, ``--select``/``--allow`` id lists, the rig settings ``measure`` and ``inspect``
take from the contract and ``--profile``, and the key rate a rewritten clip gets.

The group's own options (the global ``--config``, ``--version``) stay in ``animsmith.cli``,
which imports the commands; a command imports this module, never ``animsmith.cli`` and
never another command. Light at import (click only), as ``animsmith --help`` loads no
command.
"""

from __future__ import annotations

from typing import List, Optional

import click

#: the key rate of a rewritten clip when neither ``--fps`` nor the contract's effective ``[clips.*]
#: fps`` for that clip of its file (a name key or a key naming the file) gives one
DEFAULT_FPS = 30.0


def config_option(f):
    """Per-command ``--config`` (same meaning as the group option; this one wins)."""
    return click.option(
        "--config",
        "config_path",
        type=click.Path(dir_okay=False),
        default=None,
        help="TOML contract (overrides the global --config; default ./animsmith.toml when present).",
    )(f)


def effective_config_path(ctx: click.Context, local_path):
    """The command's --config, else the group's --config, else None (``""`` is a given, bad path)."""
    if local_path is not None:
        return local_path
    root = ctx.find_root()
    return (root.obj or {}).get("config_path")


def format_option(dest: str):
    """``--format text|json`` (default text), stored as ``dest``: the choice of every command
    whose output is a text table or report and the same facts as one JSON document."""
    return click.option("--format", dest, type=click.Choice(["text", "json"]), default="text", show_default=True)


class FiniteFloat(click.ParamType):
    """A finite number above ``minimum`` (or at least it, ``inclusive``): one message for
    every such flag (``--fps``, ``--speed``, ``--cycles``, ``--contact-height-m``)."""

    name = "float"

    def __init__(self, minimum: float = 0.0, inclusive: bool = False):
        self.minimum = minimum
        self.inclusive = inclusive

    def convert(self, value, param, ctx):
        import math

        try:
            x = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(x) or x < self.minimum or (x == self.minimum and not self.inclusive):
            self.fail(f"must be a finite number {'>=' if self.inclusive else '>'} {self.minimum:g}, got {value}", param, ctx)
        return x


def split_ids(values) -> List[str]:
    """The check ids of a repeatable ``ID,..`` flag (``--select a,b --select c``), in order."""
    out: List[str] = []
    for v in values or ():
        out += [p.strip() for p in str(v).split(",") if p.strip()]
    return out


def load_rig_contract(ctx: click.Context, config_path: Optional[str], profile_flag: Optional[str]):
    """(profile, role overrides, config path, contract) for measure/inspect.

    The contract comes from ``animsmith.checks.load_contract`` (--config, else
    ./animsmith.toml when present, else built-in defaults); ``--profile`` wins
    over its ``[rig] profile``.
    """
    from animsmith.checks import load_contract
    from animsmith.config import find_config
    from animsmith.core.roles import PROFILE_ALIASES

    path = find_config(effective_config_path(ctx, config_path))
    contract = load_contract(path)
    profile = contract.rig.profile or "auto"
    if profile_flag is not None:  # --profile "" is an unknown profile, not "none given"
        if profile_flag.strip().lower() not in PROFILE_ALIASES:
            raise click.BadParameter(
                f"unknown rig profile {profile_flag!r} (one of: {', '.join(sorted(PROFILE_ALIASES))})",
                param_hint="--profile",
            )
        profile = profile_flag
    return profile, dict(contract.rig.roles), path, contract


def clip_fps(contract, clip_name: str, file: Optional[str], fps_flag: Optional[float]) -> float:
    """--fps, else the effective ``[clips.*] fps`` of clip ``clip_name`` of ``file``, else 30."""
    if fps_flag is not None:
        return float(fps_flag)
    expect = contract.expect_for(clip_name, file) if contract is not None else None
    fps = None if expect is None else expect.fps
    return float(fps) if fps else DEFAULT_FPS
