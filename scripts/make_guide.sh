#!/bin/sh
# One preset's committed hand charts and guide, remade from scratch:
#   sh scripts/make_guide.sh VARIANT [PLAYERS]
# simulates 200,000 deals (seed 1) into data/<dir> for the page's closing section on what
# the simulated players chose, then makes every chart under the default players and the
# other tables (`prefstats guide --variant`) into reports/<dir>, where <dir> is VARIANT
# (or VARIANT-4p for a 4-player table). PREFSTATS names the CLI (default: prefstats);
# WORKERS the rollout threads (default 2). `make reports` runs it for every preset.
set -eu
variant=$1
players=${2:-}
cli=${PREFSTATS:-prefstats}
dir=$variant
table=""
if [ -n "$players" ]; then
    dir="$variant-${players}p"
    table="--players $players"
fi
# shellcheck disable=SC2086  # $table is empty or two words
$cli simulate --variant "$variant" $table --hands 200000 --seed 1 --chunk-size 25000 \
    --out "data/$dir" --quiet --force
# shellcheck disable=SC2086
$cli guide "data/$dir" --variant "$variant" $table --seed 1 --out "reports/$dir" \
    --workers "${WORKERS:-2}"
