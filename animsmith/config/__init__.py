"""The TOML contract: what a project declares about its clips, rig and groups.

``read_contract(path, schema) -> Contract`` reads and validates the file strictly
(docs/config.md documents every key). Without a path it loads ``./animsmith.toml`` when
present, else the built-in defaults (:func:`default_contract`). ``schema`` is what the
checks declare (:class:`ContractSchema`): the keys of the group tables and of
``[checks.<id>]``; ``animsmith.checks.load_contract(path)`` reads a contract against the
registry's declarations.

A bad file raises :class:`~animsmith.errors.ConfigError`: one line
``bad config <path>: <key.path>: <problem>`` per problem, every problem of
the file at once (``ConfigError.lines``; top-level keys, then rig, clips,
gait groups, sync groups, engine, checks, each table's unknown keys first); an
unknown key names the closest valid key (``difflib``) when there is one.

Modules: :mod:`~animsmith.config.model` (the contract's dataclasses),
:mod:`~animsmith.config.load` (finding and reading the file, TOML),
:mod:`~animsmith.config.parser` (the tables), :mod:`~animsmith.config.values` (one value's
type and range, key paths, hints), :mod:`~animsmith.config.schema` (what the checks declare).

Tables
------
* ``[rig]``: ``profile`` (string, default ``"auto"``), ``roles`` {role: bone
  name}, ``required_bones`` (list of bone names), ``units`` (``"metres"``,
  ``"centimetres"``, ``"millimetres"``, ``"inches"``, US spellings and the symbols
  ``"m"``, ``"cm"``, ``"mm"``, ``"in"`` too, or a positive number of metres per unit;
  default metres: ``core.units``), ``legs`` {leg name: {``foot``, ``side``
  (``left``/``right``), ``pair`` (0 = the rear pair, default 0), optional ``toe``}}
  (``core.legs``).
* ``[clips."<name or glob>"]``: :class:`ClipExpect` fields. Effective
  expectation of a clip = every matching glob entry overlaid in order of
  specificity (fewer literal characters first; equal specificity in file
  order), then the exact-name entry, then (for a clip of a file) the keys naming
  that file: ``"file.glb"``, ``"file.glb#<glob>"`` (by specificity), ``"file.glb#clip"``
  last (:attr:`Contract.file_clips`; the file read as a group member's). A field left
  unset does not override.
* ``[gait_groups.<name>]``, ``[sync_groups.<name>]`` (with an optional
  ``[sync_groups.<name>.time_complement]``): ``clips`` (the members) and the keys the
  group checks declare (``gait-group``, ``sync-group``, ``time-complement``: their
  ``TABLE_KEYS``, listed in docs/checks.md), each a :class:`GroupEntry` attribute.
* ``[engine]``: ``profile`` (required in the table: ``bevy`` | ``threejs`` | ``godot``)
  and ``version`` (optional, one the profile knows; its rules were read from that
  version): arms the ``engine-addressability`` check (:mod:`animsmith.engine`).
* ``[checks.<id>]``: ``enabled`` (bool), ``severity`` (``error`` |
  ``warning`` | ``note``; ``warn`` is accepted for ``warning``, ``off`` means
  ``enabled = false``) and the check's own keys (its ``CONFIG``).

Group members: ``"clip"`` (a clip name in the linted files), ``"file.glb"``
(a single-clip file) or ``"file.glb#clip"``; file paths are relative to the
config file's folder (:class:`MemberRef`).
"""

from animsmith.config.load import CONFIG_MAX_BYTES, DEFAULT_CONFIG_NAME, contract_from_toml, find_config, read_contract
from animsmith.config.model import (
    CheckSettings,
    ClipExpect,
    Contract,
    EngineConfig,
    GroupEntry,
    MemberRef,
    RigConfig,
    TableValues,
    default_contract,
    glob_specificity,
    is_glob,
)
from animsmith.config.parser import TOP_KEYS
from animsmith.config.schema import MEMBERS_DOC, MEMBERS_KEY, CheckKeys, ContractSchema, GroupTable, Key

__all__ = [
    "CONFIG_MAX_BYTES", "DEFAULT_CONFIG_NAME", "contract_from_toml", "find_config", "read_contract",
    "CheckSettings", "ClipExpect", "Contract", "EngineConfig", "GroupEntry", "MemberRef", "RigConfig",
    "TableValues", "default_contract", "glob_specificity", "is_glob", "TOP_KEYS",
    "MEMBERS_DOC", "MEMBERS_KEY", "CheckKeys", "ContractSchema", "GroupTable", "Key",
]
