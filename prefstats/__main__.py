"""``python -m prefstats``: the ``prefstats`` command, for environments without its script."""

from prefstats.cli import main

if __name__ == "__main__":
    main()
