"""Datasets of counterfactual decisions: for the deals a seed's ``simulate`` plays, each
decision forced to every option at every seat (the rows of :func:`rollout`'s paired
branches), made, resumed and checked like every dataset."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from prefstats.errors import OptionError
from prefstats.game.auction import dummy_seat
from prefstats.game.deal import deal
from prefstats.game.variants import Variant
from prefstats.players.builtin import player_key
from prefstats.sim._runner import run
from prefstats.sim._spec import Params, RunSpec
from prefstats.sim.rollout import CHUNK, branch_values, default_options, option_codes

#: Decisions a dataset stores when none are named.
DATASET_DECISIONS = ("first_call", "whist")


@dataclass(frozen=True, eq=False)
class DecisionSpec(RunSpec):
    """A dataset of counterfactual decisions (``kind="decisions"``): for deals ``0 ..
    size`` of the seed's stream -- the deals ``simulate`` plays with that seed -- each
    of ``decisions`` forced to every option the variant has (:func:`default_options`)
    at every playing seat, one row per (deal, seat, decision, option) where the seat
    reached the decision. Made, resumed, checked and locked by
    :func:`prefstats.sim._runner.run` like every dataset."""

    kind: str = "decisions"
    decisions: tuple[str, ...] = DATASET_DECISIONS

    def __post_init__(self, given_params: Params) -> None:
        super().__post_init__(given_params)
        if self.kind != "decisions":
            raise OptionError(f"a DecisionSpec is of kind 'decisions', got {self.kind!r}")
        if not self.decisions or len(set(self.decisions)) != len(self.decisions):
            raise OptionError(f"decisions: name each decision once, got {list(self.decisions)}")
        for decision in self.decisions:
            option_codes(self.variant, decision, default_options(self.variant, decision))

    @cached_property
    def described(self) -> dict[str, Any]:
        return {**super().described, "decisions": {
            d: default_options(self.variant, d) for d in self.decisions}}

    def rows(self, start: int, count: int) -> pa.Table:
        """The rows of deals ``start .. start + count`` (see :func:`decisions_table`)."""
        return decisions_table(self.variant, deal(count, seed=self.seed, start=start),
                               self.decisions, seed=self.seed, policy=self.policy,
                               params=self.params, misere_catchers=self.misere_catchers)


def decisions_table(variant, deals, decisions: Sequence[str], *, seed: int,
                    policy: str = "heuristic", params: np.ndarray | None = None,
                    misere_catchers: str = "hidden") -> pa.Table:
    """Long form, ordered by deal, decision, seat and option: ``deal_id`` (the deal's
    number in the seed's stream), ``seat``, ``decision``, ``option``, ``legal``,
    ``value`` (whists to the seat, null where not legal), ``kind`` and ``contract`` (the
    branch's deal kind and contract codes, as the deals' columns; ``contract`` -1 where
    none or not legal), for every (deal, seat) that reached the decision;
    ``misere_catchers`` as in :func:`rollout`."""
    key = int(player_key(seed))
    parts = []
    for decision in decisions:
        options = np.asarray(default_options(variant, decision), dtype=object)
        k = len(options)
        for seat in [s for s in range(3) if s != dummy_seat(variant)]:
            for a in range(0, len(deals), CHUNK):
                part = deals[a:a + CHUNK]
                legal, value, kind, contract, reached = branch_values(
                    variant, part, seat, decision, list(options), key, policy, params,
                    misere_catchers=misere_catchers)
                rows = np.flatnonzero(reached)
                parts.append({"deal_id": np.repeat(np.asarray(part.index)[rows], k),
                              "seat": np.full(len(rows) * k, seat),
                              "decision": np.full(len(rows) * k, decision, dtype=object),
                              "option": np.tile(options, len(rows)),
                              "legal": legal[rows].reshape(-1),
                              "value": value[rows].reshape(-1),
                              "kind": kind[rows].reshape(-1),
                              "contract": contract[rows].reshape(-1)})
    col = {c: np.concatenate([p[c] for p in parts]) for c in parts[0]}
    order = np.argsort(col["deal_id"], kind="stable")
    col = {c: v[order] for c, v in col.items()}
    value = col["value"].astype(np.float32)
    return pa.table({
        "deal_id": pa.array(col["deal_id"].astype(np.uint64)),
        "seat": pa.array(col["seat"].astype(np.uint8)),
        "decision": pa.array(col["decision"], type=pa.string()).dictionary_encode(),
        "option": pa.array(col["option"], type=pa.string()),
        "legal": pa.array(col["legal"].astype(bool)),
        "value": pa.array(value, mask=np.isnan(value)),
        "kind": pa.array(col["kind"].astype(np.uint8)),
        "contract": pa.array(np.where(col["legal"], col["contract"], -1).astype(np.int8)),
    })


def simulate_decisions(variant: Variant, *, hands: int, seed: int, out: str | Path,
                       decisions: Sequence[str] = DATASET_DECISIONS, chunk_size: int = 20_000,
                       policy: str = "heuristic", params: Params = None,
                       misere_catchers: str = "hidden", **options: Any) -> dict[str, Any]:
    """Write the dataset of :class:`DecisionSpec` into the folder ``out``: the first
    ``hands`` deals of ``seed``'s stream, each of ``decisions`` forced to every option
    at every seat. ``options`` are those of :func:`prefstats.sim._runner.run` (workers,
    backend, force, progress); a rerun resumes or extends, as for ``simulate``. Returns
    the manifest.

    >>> import tempfile
    >>> from prefstats.game.variants import get_variant
    >>> from prefstats.sim.storage import load
    >>> out = tempfile.mkdtemp()
    >>> _ = simulate_decisions(get_variant("sochi"), hands=2, seed=1, out=out,
    ...                        decisions=["whist"], workers=1, progress=False)
    >>> sorted(set(load(out).collect()["option"]))
    ['pass', 'whist']
    """
    spec = DecisionSpec(variant, hands, seed, chunk_size, policy, params,
                        misere_catchers=misere_catchers, decisions=tuple(decisions))
    return run(spec, out, **options)

