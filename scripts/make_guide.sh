#!/bin/sh
# One preset's committed hand charts, guide and report page, remade from scratch:
#   sh scripts/make_guide.sh VARIANT [PLAYERS]
# simulates 200,000 deals (seed 1) into data/<dir> for the page's closing section on what
# the simulated players chose, makes every chart under the default players and the
# other tables (`prefstats guide --variant`) into reports/<dir>, then plays 3,000 pulkas
# into data/<dir>-pulkas and writes the report page (index.html, led by those charts)
# beside them; <dir> is VARIANT, or VARIANT-4p for a 4-player table. The guide's time,
# each table of players' apart, goes to reports/bench/guide-<dir>.json. PREFSTATS names
# the CLI (default: prefstats); WORKERS the rollout threads (default 2); GUIDE_OPTIONS
# more options for `prefstats guide` (e.g. "--model-n 100"). `make guides` runs it for
# every preset.
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
# shellcheck disable=SC2086  # and $GUIDE_OPTIONS is words
$cli guide "data/$dir" --variant "$variant" $table --seed 1 --out "reports/$dir" \
    --workers "${WORKERS:-2}" --timings "reports/bench/guide-$dir.json" ${GUIDE_OPTIONS:-}
# shellcheck disable=SC2086
$cli simulate-pulkas --variant "$variant" $table --pulkas 3000 --pool-target 20 --seed 1 \
    --out "data/$dir-pulkas" --quiet --force
$cli report "data/$dir" --out "reports/$dir" --pulkas "data/$dir-pulkas"
