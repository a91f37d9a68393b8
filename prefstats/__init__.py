"""prefstats: deal, play and score millions of Preferans (преферанс) hands.

The modules follow the flow of a deal: ``cards`` → ``deal`` → ``variants`` /
``contracts`` / ``auction`` → ``tricks`` / ``solver`` → ``scoring`` → ``cli``.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("prefstats")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"


def __getattr__(name: str):
    # prefstats.load(path): imported on first use, so `import prefstats` stays light.
    if name == "load":
        from prefstats.storage import load

        return load
    raise AttributeError(f"module 'prefstats' has no attribute {name!r}")
