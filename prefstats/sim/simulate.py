"""Simulation at scale: deal, play and score millions of deals -- or whole pulkas --
into a Parquet dataset.

A run is cut into chunks of ``chunk_size`` rows; chunk ``k`` holds deals (or pulkas)
``k·chunk_size …`` of the seed's stream, played by the built-in players whose random
choices are keyed by the seed and the deal number. So a chunk's rows depend only on
the run's arguments and ``k``: any worker, any backend, any order gives the same
dataset, and a rerun skips the chunks already finished (see :mod:`prefstats.sim.storage`).
A row depends only on its deal's (or pulka's) number, so the chunk size decides how the
rows are cut into files, never what they hold; being part of the run's signature, it is
kept by a rerun. Each worker writes its own chunk file to the dataset's place (a folder,
or a bucket through fsspec) and hands back only the chunk's manifest entry.

>>> import tempfile
>>> from prefstats.game.variants import get_variant
>>> from prefstats.sim.storage import load
>>> out = tempfile.mkdtemp()
>>> m = simulate(get_variant("sochi"), hands=2000, seed=1, out=out, chunk_size=1000,
...              workers=1, progress=False)
>>> len(m["chunks"]), load(out).collect().height
(2, 2000)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefstats.game.variants import Variant
from prefstats.sim._decisions import simulate_decisions
from prefstats.sim._remote import location
from prefstats.sim._runner import run, run_all
from prefstats.sim._spec import Params, RunSpec

__all__ = ["simulate", "simulate_decisions", "simulate_pulkas"]


def simulate(
    variant: Variant,
    *,
    hands: int,
    seed: int,
    out: str | Path,
    chunk_size: int | None = None,
    policy: str = "heuristic",
    params: Params = None,
    misere_catchers: str = "hidden",
    **options: Any,
) -> dict[str, Any]:
    """Simulate ``hands`` deals of ``variant`` into the dataset ``out``.

    A rerun with the same arguments resumes; a dataset made with other arguments is
    refused unless ``force``. Ctrl-C keeps the finished chunks.

    :param variant: the rules (:func:`~prefstats.game.variants.get_variant`).
    :param hands: how many deals.
    :param seed: keys the deals and the players' random choices.
    :param out: a folder or an fsspec URL such as ``s3://bucket/run``.
    :param chunk_size: deals a file; defaults to the dataset's own when ``out`` holds one
        (so a rerun resumes or extends it), else to a size suited to ``hands``.
    :param policy: the built-in player model of every seat.
    :param params: the players' parameters, all of them (an array) or some by name (a
        dict), the rest their defaults.
    :param misere_catchers: ``"hidden"`` (the default): the catchers of a misère play
        without seeing the discard; ``"double_dummy"``: as if they saw it (an upper bound
        on the catch rate, much faster). The manifest records it with the players.
    :param options: ``workers`` (local processes, default all cores), ``backend``
        (``"dask"`` for a Dask cluster at ``scheduler``, a local one when none is given),
        ``force``, ``progress``.
    :returns: the dataset's manifest.

    >>> import tempfile
    >>> from prefstats.game.variants import get_variant
    >>> from prefstats.sim.simulate import simulate
    >>> from prefstats.sim.storage import load
    >>> out = tempfile.mkdtemp()
    >>> _ = simulate(get_variant("sochi"), hands=20, seed=1, out=out, chunk_size=10,
    ...              workers=1, progress=False)
    >>> load(out).collect().height
    20
    """
    spec = RunSpec(variant, hands, seed, chunk_size, policy, params,
                   misere_catchers=misere_catchers)
    return run(spec, out, **options)


def simulate_pulkas(
    variant: Variant,
    *,
    pulkas: int,
    pool_target: int,
    seed: int,
    out: str | Path,
    chunk_size: int = 1000,
    policy: str = "heuristic",
    params: Params = None,
    with_deals: bool = False,
    misere_catchers: str = "hidden",
    **options: Any,
) -> dict[str, Any]:
    """Play whole pulkas into the dataset ``out``, one row per pulka; otherwise as
    :func:`simulate`.

    :param variant: the rules.
    :param pulkas: how many pulkas.
    :param pool_target: the pool each player must write to close the pulka.
    :param seed: keys the deals and the players' random choices.
    :param out: a folder or an fsspec URL.
    :param chunk_size: pulkas a file.
    :param policy: the built-in player model of every seat.
    :param params: the players' parameters (an array, or some by name in a dict).
    :param with_deals: also write every deal of those pulkas, a row a deal with its
        ``pulka_id``, ``deal_no`` and the dealer's place, as the dataset ``out/deals``.
    :param misere_catchers: ``"hidden"`` or ``"double_dummy"``, as in :func:`simulate`.
    :param options: as in :func:`simulate`.
    :returns: the dataset's manifest.

    >>> import tempfile
    >>> from prefstats.game.variants import get_variant
    >>> from prefstats.sim.storage import load
    >>> out = tempfile.mkdtemp()
    >>> _ = simulate_pulkas(get_variant("sochi"), pulkas=2, pool_target=5, seed=1, out=out,
    ...                     workers=1, progress=False)
    >>> load(out).collect().height
    2
    """
    spec = RunSpec(variant, pulkas, seed, chunk_size, policy, params, "pulkas", pool_target,
                   misere_catchers)
    specs = [(spec, "")]
    if with_deals:  # the same players, checked once: only the rows differ
        specs.append((spec.pulka_deals(), "deals"))
    return run_all(location(out), specs, **options)[0]
