"""The commands that make datasets: ``simulate`` (deals), ``simulate-pulkas`` (whole
pulkas) and ``simulate-decisions`` (counterfactual decisions). Each turns its options
into the arguments of the Python function of the same job, which builds and checks the
run's spec once."""

from __future__ import annotations

from pathlib import Path

import typer

from prefstats.cli._app import QUIET, WORKERS, _compile_notice, app
from prefstats.errors import OptionError
from prefstats.game.seed import DEFAULT_SEED


def _setup(variant: str | None, config: Path | None, players: int | None,
           param: list[str] | None, backend: str, scheduler: str | None):
    """The variant of a dataset command and its ``--param`` overrides by name, as read
    from the command line (the run's spec checks them; raises OptionError)."""
    from prefstats.game.variants import get_variant, load_variant

    if config is not None and (variant is not None or players is not None):
        raise OptionError("--config names the variant and its players; leave out --variant "
                          "and --players (or put them in the file as base and players)")
    if scheduler is not None and backend != "dask":
        raise OptionError("--scheduler is a dask scheduler's address; it needs --backend dask")
    rules = load_variant(config) if config else get_variant(variant or "sochi", players=players)
    overrides = {}
    for item in param or []:
        name, _, value = item.partition("=")
        try:
            overrides[name.strip()] = float(value)
        except ValueError:
            raise OptionError(f"--param expects NAME=NUMBER, got {item!r}") from None
    return rules, overrides


def _run_simulation(make, command: str, unit: str, out: str, quiet: bool) -> None:
    """Compile what ``command`` needs, run ``make()`` (a simulation) and summarise the
    dataset."""
    _compile_notice(command, quiet)
    manifest = make()
    rows = sum(c["rows"] for c in manifest["chunks"])
    size = sum(c["bytes"] for c in manifest["chunks"])
    typer.echo(f"{out}: {rows:,} {unit} in {len(manifest['chunks'])} chunk(s), "
               f"{size / max(rows, 1):.1f} bytes a row on disk")


_VARIANT = typer.Option(None, help="Preset: sochi (the default), leningrad, rostov, classic "
                        "or gusarik.")
_CONFIG = typer.Option(None, exists=True, dir_okay=False, readable=True,
                       help="A variant TOML file (base preset plus overrides), instead of "
                       "--variant and --players.")
_PLAYERS = typer.Option(None, help="Players at the table: 3, 4 or 5 (default: the preset's; "
                        "gusarik is 2).")
_SEED = typer.Option(DEFAULT_SEED, min=0, help="Seed: the same seed deals the same hands.")
_OUT = typer.Option(..., help="Dataset folder or fsspec URL, e.g. s3://bucket/run "
                    "(created; a rerun resumes).")
_BACKEND = typer.Option("local", help="local (joblib processes) or dask.")
_SCHEDULER = typer.Option(None, help="Dask scheduler address, e.g. tcp://host:8786 "
                          "(default: a local cluster); needs --backend dask.")
_POLICY = typer.Option("heuristic", help="Built-in players: heuristic, random, or pimc (the "
                       "heuristic with searched card play in closed deals; --param samples=K).")
_PARAM = typer.Option(None, help="Player parameter NAME=VALUE (repeatable); each has a "
                      "range, see prefstats.players.params.")
_FORCE = typer.Option(False, help="Start over, replacing an existing dataset.")
_CATCHERS = typer.Option("hidden", help="The misère catchers: hidden (they cannot see the "
                         "discard, the default) or double_dummy (as if they saw it: an upper "
                         "bound on the catch rate, much faster).")


@app.command("simulate")
def simulate_command(
    variant: str | None = _VARIANT,
    config: Path | None = _CONFIG,
    players: int | None = _PLAYERS,
    hands: int = typer.Option(100_000, help="Deals to simulate."),
    seed: int = _SEED,
    out: str = _OUT,
    chunk_size: int | None = typer.Option(None, min=1, help="Deals per chunk file (default: "
                                          "the dataset's own, else an eighth of --hands, "
                                          "10,000 to 2,000,000)."),
    workers: int | None = WORKERS,
    backend: str = _BACKEND,
    scheduler: str | None = _SCHEDULER,
    policy: str = _POLICY,
    param: list[str] | None = _PARAM,
    misere_catchers: str = _CATCHERS,
    force: bool = _FORCE,
    quiet: bool = QUIET,
) -> None:
    """Simulate deals of a variant into a Parquet dataset (one row per deal)."""
    from prefstats.sim.simulate import simulate

    def make():
        rules, params = _setup(variant, config, players, param, backend, scheduler)
        return simulate(rules, hands=hands, seed=seed, out=out, chunk_size=chunk_size,
                        policy=policy, params=params,
                        misere_catchers=misere_catchers, workers=workers, backend=backend,
                        scheduler=scheduler, force=force, progress=False if quiet else None)

    _run_simulation(make, "simulate", "deals", out, quiet)


@app.command("simulate-pulkas")
def simulate_pulkas_command(
    variant: str | None = _VARIANT,
    config: Path | None = _CONFIG,
    players: int | None = _PLAYERS,
    pulkas: int = typer.Option(10_000, help="Pulkas to play to the end."),
    pool_target: int = typer.Option(20, help="Pool each player plays to (the pulka size)."),
    seed: int = _SEED,
    out: str = _OUT,
    chunk_size: int = typer.Option(1000, help="Pulkas per chunk file."),
    workers: int | None = WORKERS,
    backend: str = _BACKEND,
    scheduler: str | None = _SCHEDULER,
    policy: str = _POLICY,
    param: list[str] | None = _PARAM,
    with_deals: bool = typer.Option(False, help="Also write every deal, into OUT/deals."),
    misere_catchers: str = _CATCHERS,
    force: bool = _FORCE,
    quiet: bool = QUIET,
) -> None:
    """Play whole pulkas (dealer rotation, raspasy progression, help, closing) into a
    Parquet dataset, one row per pulka with each place's result in whists."""
    from prefstats.sim.simulate import simulate_pulkas

    def make():
        rules, params = _setup(variant, config, players, param, backend, scheduler)
        return simulate_pulkas(rules, pulkas=pulkas, pool_target=pool_target, seed=seed,
                               out=out, chunk_size=chunk_size, policy=policy, params=params,
                               with_deals=with_deals, misere_catchers=misere_catchers,
                               workers=workers, backend=backend,
                               scheduler=scheduler, force=force,
                               progress=False if quiet else None)

    _run_simulation(make, "simulate-pulkas", "pulkas", out, quiet)


@app.command("simulate-decisions")
def simulate_decisions_command(
    variant: str | None = _VARIANT,
    config: Path | None = _CONFIG,
    players: int | None = _PLAYERS,
    hands: int = typer.Option(10_000, help="Deals: the first HANDS of the seed's stream."),
    decisions: str = typer.Option("first_call,whist", help="Comma-separated decisions: "
                                  "first_call, whist, max_bid, contract."),
    seed: int = _SEED,
    out: str = _OUT,
    chunk_size: int = typer.Option(20_000, help="Deals per chunk file."),
    workers: int | None = WORKERS,
    backend: str = _BACKEND,
    scheduler: str | None = _SCHEDULER,
    policy: str = _POLICY,
    param: list[str] | None = _PARAM,
    misere_catchers: str = _CATCHERS,
    force: bool = _FORCE,
    quiet: bool = QUIET,
) -> None:
    """Counterfactual decisions into a Parquet dataset: each deal played once per option
    of each decision at every seat, one row per (deal, seat, decision, option) reached,
    with the option's value in whists (the same deals as `simulate` with this seed)."""
    from prefstats.sim.simulate import simulate_decisions

    def make():
        rules, params = _setup(variant, config, players, param, backend, scheduler)
        return simulate_decisions(rules, hands=hands, seed=seed, out=out,
                                  decisions=[d.strip() for d in decisions.split(",")],
                                  chunk_size=chunk_size, policy=policy, params=params,
                                  misere_catchers=misere_catchers, workers=workers,
                                  backend=backend, scheduler=scheduler, force=force,
                                  progress=False if quiet else None)

    _run_simulation(make, "simulate-decisions", "decision rows", out, quiet)
