"""Reading what a request names: hands, deals, strains and variants, each refused with a
``PrefstatsError`` whose message starts with the field it names."""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Sequence
from pathlib import Path

from prefstats.errors import CardError, OptionError, PrefstatsError, VariantError

#: Strains in the order the double-dummy table lists them (suit indexes 0..3, then NT).
STRAINS = ("♠", "♣", "♦", "♥", "NT")
_STRAIN_NAMES = {"♠": 0, "S": 0, "♣": 1, "C": 1, "♦": 2, "D": 2, "♥": 3, "H": 3,
                 "NT": None, "БК": None}
#: A house variant uploaded to the server: its name is the hash of its text.
_HOUSE = re.compile(r"house-[0-9a-f]{16}")
#: The most bytes a request may send (an uploaded record or variant included).
MAX_UPLOAD = 1 << 20
#: How long an upload (a record, a house variant) is kept after its last upload, in days.
UPLOAD_DAYS = 7
#: The most bytes a folder of uploads holds; the oldest uploads go first.
UPLOAD_BYTES = 64 * MAX_UPLOAD


class TooLarge(PrefstatsError):
    """A request body over :data:`MAX_UPLOAD` bytes."""


def cards(text: str | int, field: str, count: int | None = None) -> int:
    """``text`` (card text, or a mask) as a mask of ``count`` cards, or an error naming
    ``field``."""
    from prefstats.game.cards import format_cards, parse_cards

    try:
        mask = int(text) if isinstance(text, int) else parse_cards(str(text))
    except ValueError as exc:
        raise CardError(f"{field}: {exc}") from None
    if not 0 <= mask < 1 << 32:
        raise CardError(f"{field}: a card mask is a 32-bit number, got {mask}")
    held = mask.bit_count()
    if count is not None and held != count:
        raise CardError(f"{field}: {count} cards needed, got {held} "
                        f"({format_cards(mask) or 'none'})")
    return mask


def deal_cards(hands: Sequence[str | int], talon: str | int | None) -> tuple[list[int], int]:
    """Three ten-card hands and a two-card talon (``None``: the two cards left), no card
    twice, or an error naming the field."""
    from prefstats.game.cards import format_cards

    if len(hands) != 3:
        raise CardError(f"hands: three hands needed, got {len(hands)}")
    masks = [cards(h, f"hands[{i}]", 10) for i, h in enumerate(hands)]
    seen = 0
    for i, mask in enumerate(masks):
        if mask & seen:
            raise CardError(f"hands[{i}]: {format_cards(mask & seen)} dealt twice")
        seen |= mask
    rest = ~seen & 0xFFFFFFFF
    if talon is None or talon == "":
        return masks, rest
    pair = cards(talon, "talon", 2)
    if pair & seen:
        raise CardError(f"talon: {format_cards(pair & seen)} already in a hand")
    return masks, pair


def prune(folder: Path, keep: Path, *, days: float = UPLOAD_DAYS,
          most: int = UPLOAD_BYTES) -> None:
    """Delete the uploads in ``folder`` older than ``days``, then the oldest until it holds
    at most ``most`` bytes; never ``keep`` (the upload just stored)."""
    files = []
    for entry in os.scandir(folder):
        try:
            if entry.is_file() and Path(entry.path) != keep and not entry.name.endswith(".part"):
                info = entry.stat()
                files.append((info.st_mtime, info.st_size, entry.path))
        except FileNotFoundError:  # another request pruned it
            continue
    total = sum(size for _, size, _ in files) + (keep.stat().st_size if keep.is_file() else 0)
    oldest = time.time() - days * 86_400
    for mtime, size, path in sorted(files):
        if mtime < oldest or total > most:
            Path(path).unlink(missing_ok=True)
            total -= size


def strain(text: str | None, field: str = "trump") -> int | None:
    """A strain (``♠``/``S`` .. ``♥``/``H``, ``NT``) as a suit index, ``None`` for NT."""
    key = (text or "").strip().upper()
    if key not in _STRAIN_NAMES:
        raise OptionError(f"{field}: one of ♠ ♣ ♦ ♥ NT (or S C D H), got {text!r}")
    return _STRAIN_NAMES[key]


def variant(name: str, players: int | None, folder: Path):
    """The preset ``name`` at ``players``, or a house variant uploaded to ``folder``."""
    from prefstats.game.variants import get_variant, load_variant

    if _HOUSE.fullmatch(name):
        path = folder / f"{name}.toml"
        if not path.is_file():
            raise VariantError(f"variant: no uploaded variant {name!r} on this server")
        return load_variant(path)
    try:
        return get_variant(name, players=players)
    except VariantError as exc:
        raise VariantError(f"variant: {exc}") from None


def store_variant(text: bytes, folder: Path) -> str:
    """Check an uploaded TOML variant and keep it in ``folder``; its name."""
    from prefstats.game.variants import load_variant

    try:
        decoded = text.decode("utf-8")
    except UnicodeDecodeError:
        raise VariantError("file: a variant is TOML text in UTF-8") from None
    name = f"house-{hashlib.sha256(text).hexdigest()[:16]}"
    folder.mkdir(parents=True, exist_ok=True)
    part = folder / f"{name}.toml.part"
    part.write_text(decoded, encoding="utf-8")
    try:
        load_variant(part)
    except VariantError as exc:
        part.unlink()
        raise VariantError(f"file: {exc}") from None
    part.replace(folder / f"{name}.toml")
    prune(folder, folder / f"{name}.toml")
    return name
