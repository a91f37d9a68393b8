"""prefstats: deal, play and score millions of Preferans (преферанс) hands.

``import prefstats as ps`` gives the everyday names, each imported from its module on
first use so that the import stays light::

    >>> import prefstats as ps
    >>> deals = ps.deal(1000, seed=1)
    >>> ps.format_cards(int(deals.hands[0, 0]))  # doctest: +SKIP

The package is layered, data flowing one way and imports going only downward:
``game`` (cards, deals, contracts, rules, auction, engine, scoring) → ``solver`` →
``players`` → ``sim`` (play, pulkas, storage, rollouts) → ``analysis`` → ``reports`` →
``cli``. ``pyproject.toml`` states the contract and ``make test`` checks it.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("prefstats")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"


#: What is public, the one list: tier 1 is each module here, with the names the facade
#: (``import prefstats as ps``) takes from it. A tier-1 module lists its API in
#: ``__all__``, each name documented with an example doctest runs. The reference pages,
#: the API page and the API tests are made from this table: making a module public is
#: one line here. Tier 2 is :data:`KERNELS`; any other module is private, whatever its
#: name: what it defines imports but may change in any release.
PUBLIC: dict[str, tuple[str, ...]] = {
    "prefstats.errors": ("CardError", "ContractError", "DatasetError", "IllegalActionError",
                         "OptionError", "PrefstatsError", "RecordError", "VariantError"),
    "prefstats.game.codes": ("Kind", "Seat", "Strain", "WhistCall"),
    "prefstats.game.cards": ("format_cards", "parse_cards", "suit_lengths"),
    "prefstats.game.deal": ("Deals", "deal"),
    "prefstats.game.contracts": ("Contract", "parse_contract"),
    "prefstats.game.variants": ("Variant", "get_variant", "load_variant"),
    "prefstats.game.scoring": ("ScoreSheet", "load_pulka", "score_batch", "settle"),
    "prefstats.solver": ("card_values", "solve"),
    "prefstats.players": (),
    "prefstats.sim.play": ("play_batch",),
    "prefstats.sim.simulate": ("simulate", "simulate_pulkas"),
    "prefstats.sim.storage": ("load",),
    "prefstats.sim.rollout": ("rollout",),
    "prefstats.analysis.analyze": ("analyze",),
    "prefstats.analysis.tables": ("readable", "to_frame"),
    "prefstats.reports": ("report",),
}

#: Tier 2: the compiled functions numba code may call, stable within a minor version.
KERNELS = "prefstats.kernels"

#: The tier-1 modules, in the order of :data:`PUBLIC`.
PUBLIC_MODULES = tuple(PUBLIC)

_MODULE_OF = {name: module for module, names in PUBLIC.items() for name in names}

__all__ = sorted(_MODULE_OF)


def __getattr__(name: str):
    if name in _MODULE_OF:
        import importlib

        value = getattr(importlib.import_module(_MODULE_OF[name]), name)
        globals()[name] = value  # later lookups skip this function
        return value
    raise AttributeError(f"module 'prefstats' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_MODULE_OF})
