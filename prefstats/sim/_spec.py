"""The run specification: everything that defines a dataset's rows, checked once when it
is made and trusted from then on (by the planning, the workers and the manifest)."""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import InitVar, dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pyarrow as pa

from prefstats import __version__
from prefstats.errors import OptionError
from prefstats.game.deal import deal
from prefstats.game.variants import Variant
from prefstats.players import adjust
from prefstats.players.builtin import POLICIES, Players, player_key, players_record, resolve_params
from prefstats.players.misere import catchers_code
from prefstats.players.params import parameters, policy_params
from prefstats.sim._manifest import DATASET_KINDS, DEAL_KINDS, signature, size_key
from prefstats.sim._rows import deals_table, pulkas_table
from prefstats.sim._schema import SCHEMA_VERSION
from prefstats.sim.play import _play_deals
from prefstats.sim.pulka import STRIDE, _play_pulkas

#: Most pulkas a dataset holds: ``pulka_id`` is a uint32.
MAX_PULKAS = 1 << 32
#: Bounds of the default deals a chunk (:func:`default_chunk_size`).
MIN_CHUNK, MAX_CHUNK = 10_000, 2_000_000

#: Player parameters as a caller gives them: none (the policy's defaults), some by name
#: (the rest default), or the policy's whole array.
Params = Mapping[str, float] | Sequence[float] | np.ndarray | None


def default_chunk_size(hands: int) -> int:
    """Deals a chunk when none is asked for: an eighth of the run, at least 10,000 and at
    most 2,000,000. Two workers share 20,000 deals; a billion make 500 files. It depends
    on the size alone, never on the workers, so any machine cuts a run alike."""
    return max(MIN_CHUNK, min(MAX_CHUNK, -(-hands // 8)))


@dataclass(frozen=True, eq=False)
class RunSpec:
    """Everything that defines a dataset's rows: ``size`` deals (``kind="deals"``),
    pulkas played to ``pool_target`` (``kind="pulkas"``, a row a pulka) or the deals of
    those pulkas (``kind="pulka-deals"``, a row a deal). ``given_params``: the players'
    parameters as given (:data:`Params`); the spec holds the policy's whole array as
    ``params``. ``chunk_size`` ``None``: the dataset's own when it resumes one, else
    :func:`default_chunk_size`.
    ``misere_catchers``: the model of the misère catchers
    (:func:`~prefstats.sim.play.play_batch`), recorded with the players in the manifest.
    Made once, by :func:`check_run_spec`; nothing downstream checks it again."""

    variant: Variant
    size: int
    seed: int
    chunk_size: int | None = 100_000
    policy: str = "heuristic"
    given_params: InitVar[Params] = None
    kind: str = "deals"
    pool_target: int | None = None
    misere_catchers: str = "hidden"
    params: np.ndarray = field(init=False, repr=False)

    def __post_init__(self, given_params: Params) -> None:
        object.__setattr__(self, "params", check_run_spec(self, given_params))

    @property
    def chunk(self) -> int:
        """The deals (or pulkas) a chunk covers, once settled (a spec made without a chunk
        size gets one when its run is planned)."""
        if self.chunk_size is None:
            raise OptionError("the chunk size is settled when the run is planned")
        return self.chunk_size

    @property
    def n_chunks(self) -> int:
        return -(-self.size // self.chunk)

    def with_chunk_size(self, chunk_size: int) -> RunSpec:
        """This spec cut into chunks of ``chunk_size`` (a dataset's own, or the default:
        already sound), without checking the rest again."""
        return self._changed(chunk_size=chunk_size)

    def pulka_deals(self) -> RunSpec:
        """The deals of this spec's pulkas (``kind="pulka-deals"``, a row a deal), with
        the same arguments, checked already."""
        if self.kind != "pulkas":
            raise OptionError(f"only a spec of pulkas has pulka deals, not one of {self.kind}")
        return self._changed(kind="pulka-deals")

    def _changed(self, **fields: Any) -> RunSpec:
        spec = copy.copy(self)
        for cached in ("variant_toml", "described", "signature"):
            vars(spec).pop(cached, None)
        for name, value in fields.items():
            object.__setattr__(spec, name, value)
        return spec

    @cached_property
    def variant_toml(self) -> str:
        """The variant as the manifest keeps it."""
        return self.variant.to_toml()

    @cached_property
    def described(self) -> dict[str, Any]:
        """The content-defining arguments, as the manifest records them."""
        spec = {
            "kind": self.kind,
            "schema_version": SCHEMA_VERSION,
            "package_version": __version__,
            "variant": tomllib.loads(self.variant_toml),
            "players": {"policy": self.policy,
                        "params": dict(zip(parameters(self.policy), self.params.tolist(),
                                           strict=True)),
                        "fit": adjust.fit_id(self.variant),
                        "misere_catchers": self.misere_catchers},
            "seed": self.seed,
            size_key({"kind": self.kind}): self.size,
            "chunk_size": self.chunk_size,
        }
        if self.pool_target is not None:
            spec["pool_target"] = self.pool_target
        return spec

    def describe(self) -> dict[str, Any]:
        """The content-defining arguments, as the manifest records them."""
        return self.described

    @cached_property
    def signature(self) -> str:
        """The run's signature (:func:`~prefstats.sim._manifest.signature`), which every
        chunk file of the dataset carries."""
        return signature(self.described)

    def players(self) -> Players:
        """The spec's players as the compiled drivers take them (checked with the spec)."""
        return players_record(self.variant, self.policy, self.params,
                              key=player_key(self.seed), catchers=self.misere_catchers)

    def rows(self, start: int, count: int) -> pa.Table:
        """The rows of deals (or pulkas) ``start .. start + count`` of the run, played by
        the drivers' unchecked entries: the spec is checked."""
        if self.kind == "deals":
            deals = deal(count, seed=self.seed, start=start)
            states = _play_deals(deals, self.players())
            return deals_table(states, deals.index, self.variant)
        ids = np.arange(start, start + count, dtype=np.int64)
        result = _play_pulkas(self.variant, ids, seed=self.seed,
                              pool_target=self.pool_target,  # type: ignore[arg-type]
                              players=self.players(), with_deals=self.kind == "pulka-deals")
        if self.kind == "pulkas":
            return pulkas_table(result, ids)
        row, number, dealer = result["deal_places"].T
        table = deals_table(result["deal_states"], ids[row] * STRIDE + number, self.variant,
                            dealer=dealer)
        table = table.add_column(0, "deal_no", pa.array(number.astype(np.uint16)))
        return table.add_column(0, "pulka_id", pa.array(ids[row].astype(np.uint32)))


def check_run_spec(spec: RunSpec, params: Params) -> np.ndarray:
    """Refuse a spec with an unsound argument (:class:`OptionError` naming it); returns
    its players' ``params`` as the policy's whole array."""
    if spec.size < 1 or (spec.chunk_size is not None and spec.chunk_size < 1):
        raise OptionError(f"the number of {spec.kind} and chunk_size must be positive, "
                          f"got {spec.size}, {spec.chunk_size}")
    if spec.kind not in DATASET_KINDS:
        raise OptionError(f"kind must be one of {DATASET_KINDS}, got {spec.kind!r}")
    if (spec.kind not in DEAL_KINDS) != (spec.pool_target is not None):
        raise OptionError("pool_target is needed for pulkas, and only for them")
    if spec.pool_target is not None and spec.pool_target < 1:
        raise OptionError(f"pool_target must be positive, got {spec.pool_target}")
    if spec.kind != "deals" and spec.size > MAX_PULKAS:
        raise OptionError(f"at most {MAX_PULKAS:,} pulkas a dataset, got {spec.size:,}")
    if spec.seed < 0:
        raise OptionError(f"seed must be non-negative, got {spec.seed}")
    catchers_code(spec.misere_catchers)
    if spec.policy not in POLICIES:
        raise OptionError(f"unknown policy {spec.policy!r}; choose from {POLICIES}")
    if isinstance(params, Mapping):
        if params and not parameters(spec.policy):
            raise OptionError(f"player parameters apply to the heuristic and pimc players, "
                              f"not {spec.policy!r}")
        return policy_params(spec.policy, **params)
    given = None if params is None or not len(params) else np.asarray(params, np.float64)
    return np.array(resolve_params(spec.policy, given), dtype=np.float64)
