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

import importlib.abc
import importlib.util
import sys
import types
import warnings
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("prefstats")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"


#: Modules that moved into the layered subpackages, by their old path. Each old path
#: still imports (the same module object) for one release, with a DeprecationWarning
#: naming the new path.
_MOVED = {
    "prefstats.codes": "prefstats.game.codes",
    "prefstats.cards": "prefstats.game.cards",
    "prefstats.deal": "prefstats.game.deal",
    "prefstats.exact": "prefstats.game.exact",
    "prefstats.contracts": "prefstats.game.contracts",
    "prefstats.tricks": "prefstats.game.tricks",
    "prefstats.variants": "prefstats.game.variants",
    "prefstats.auction": "prefstats.game.auction",
    "prefstats.engine": "prefstats.game.engine",
    "prefstats.scoring": "prefstats.game.scoring",
    "prefstats.presets": "prefstats.game.presets",
    "prefstats.knowledge": "prefstats.players.knowledge",
    "prefstats.pimc": "prefstats.players.pimc",
    "prefstats.play": "prefstats.sim.play",
    "prefstats.pulka": "prefstats.sim.pulka",
    "prefstats.storage": "prefstats.sim.storage",
    "prefstats.simulate": "prefstats.sim.simulate",
    "prefstats.rollout": "prefstats.sim.rollout",
    "prefstats.analyze": "prefstats.analysis.analyze",
    "prefstats.fit": "prefstats.analysis.fit",
    "prefstats.strength": "prefstats.analysis.strength",
    "prefstats.tables": "prefstats.analysis.tables",
    "prefstats.rollout_cli": "prefstats.cli.rollout",
    "prefstats.analyze_cli": "prefstats.cli.analyze",
}


class _MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports a moved module's old path as its new module, with a warning."""

    def find_spec(self, fullname, path, target=None):
        if fullname in _MOVED or fullname.rsplit(".", 1)[0] in _MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        old = module.__name__
        parent, _, leaf = old.rpartition(".")
        new = _MOVED[old] if old in _MOVED else f"{_MOVED[parent]}.{leaf}"
        warnings.warn(f"{old} has moved to {new}: import it from there ({old} goes in "
                      "prefstats 0.4)", DeprecationWarning, stacklevel=2)
        # The import system returns what sys.modules holds once this returns: the new module.
        sys.modules[old] = importlib.import_module(new)


sys.meta_path.insert(0, _MovedFinder())


class _Package(types.ModuleType):
    """``prefstats`` itself: an old module path imported (``import prefstats.deal``) must
    not replace the facade's function of the same name (``prefstats.deal``); ``from
    prefstats.deal import deal`` still finds the module."""

    def __setattr__(self, name: str, value) -> None:
        if name in _MODULE_OF and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


#: The facade, by the module that defines each name; each is imported on first use so
#: that ``import prefstats`` stays light.
_LAZY = {
    "prefstats.errors": ("CardError", "ContractError", "DatasetError", "IllegalActionError",
                         "OptionError", "PrefstatsError", "RecordError", "VariantError"),
    "prefstats.game.codes": ("Kind", "Seat", "Strain", "WhistCall"),
    "prefstats.game.cards": ("format_cards", "parse_cards", "suit_lengths"),
    "prefstats.game.deal": ("Deals", "deal"),
    "prefstats.game.contracts": ("Contract", "parse_contract"),
    "prefstats.game.variants": ("Variant", "get_variant", "load_variant"),
    "prefstats.game.scoring": ("ScoreSheet", "load_pulka", "score_batch", "settle"),
    "prefstats.solver": ("card_values", "solve"),
    "prefstats.sim.play": ("play_batch",),
    "prefstats.sim.simulate": ("simulate", "simulate_pulkas"),
    "prefstats.sim.rollout": ("rollout",),
    "prefstats.sim.storage": ("load",),
    "prefstats.analysis.analyze": ("analyze",),
    "prefstats.analysis.tables": ("readable", "to_frame"),
    "prefstats.reports.report": ("report",),
}
_MODULE_OF = {name: module for module, names in _LAZY.items() for name in names}

__all__ = sorted(_MODULE_OF)

#: The public API (tier 1) is the facade and these modules: each lists its names in
#: ``__all__``, each name documented with an example. A module not listed here is
#: private, whatever its name: what it defines imports but may change in any release.
#: ``prefstats.kernels`` is tier 2: the compiled functions numba code may call.
PUBLIC_MODULES = (
    "prefstats.errors",
    "prefstats.game.codes",
    "prefstats.game.cards",
    "prefstats.game.deal",
    "prefstats.game.contracts",
    "prefstats.game.variants",
    "prefstats.game.scoring",
    "prefstats.solver",
    "prefstats.players",
    "prefstats.sim.play",
    "prefstats.sim.simulate",
    "prefstats.sim.storage",
    "prefstats.sim.rollout",
    "prefstats.analysis.analyze",
    "prefstats.analysis.tables",
    "prefstats.reports",
)


def __getattr__(name: str):
    if name in _MODULE_OF:
        import importlib

        value = getattr(importlib.import_module(_MODULE_OF[name]), name)
        globals()[name] = value  # later lookups skip this function
        return value
    raise AttributeError(f"module 'prefstats' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_MODULE_OF})
