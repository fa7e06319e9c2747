#!/bin/sh
# capture-ab.sh PAIRS DIR BASE_CMD HEAD_CMD: capture logs on the card in
# the shape `hbgbench compare --paired` reads (docs/ab.md "Captured logs,
# paired").
#
# Runs BASE_CMD and HEAD_CMD PAIRS times each, alternating, one pair of runs
# a round: base then head in odd rounds, head then base in even ones, so
# that what drifts during the session falls on both arms alike. Each run's
# standard output and standard error are its log, DIR/base-ROUND.log or
# DIR/head-ROUND.log; the command also finds the log's path in $LOG and the
# round in $ROUND. Every log is listed, in the order it ran, in
# DIR/manifest.txt ("ROUND ARM LOG" lines), which records the order:
#
#   hbgbench compare --paired --manifest DIR/manifest.txt
#
# A run that fails stops the capture (exit 1, naming the run): its log is
# kept to read, and the manifest holds the rounds before it. DIR is created;
# an existing manifest in it is refused, so a capture never mixes with an
# earlier one. Example, on the card:
#
#   scripts/capture-ab.sh 10 /data/ab-pr42 \
#       'cd ~/simpler-main && python examples/run.py --rounds 20' \
#       'cd ~/simpler-pr42 && python examples/run.py --rounds 20'
set -u
if [ $# -ne 4 ]; then
    echo "usage: capture-ab.sh PAIRS DIR BASE_CMD HEAD_CMD" >&2
    exit 2
fi
pairs=$1 dir=$2 base=$3 head=$4
case $pairs in
'' | *[!0-9]* | 0) echo "capture-ab.sh: PAIRS $pairs: want a number from 1" >&2; exit 2 ;;
esac
mkdir -p "$dir" || exit 1
manifest=$dir/manifest.txt
if [ -e "$manifest" ]; then
    echo "capture-ab.sh: $manifest exists: capture into a new directory" >&2
    exit 1
fi
echo "# captured by capture-ab.sh on $(hostname) from $(date -u '+%Y-%m-%d %H:%M UTC'): ROUND ARM LOG" >"$manifest"
run() { # round arm command
    LOG=$dir/$2-$1.log ROUND=$1
    export LOG ROUND
    if ! sh -c "$3" >"$LOG" 2>&1; then
        echo "capture-ab.sh: round $1, $2 failed: see $LOG" >&2
        exit 1
    fi
    echo "$1 $2 $2-$1.log" >>"$manifest"
}
i=1
while [ "$i" -le "$pairs" ]; do
    if [ $((i % 2)) -eq 1 ]; then
        run "$i" base "$base"
        run "$i" head "$head"
    else
        run "$i" head "$head"
        run "$i" base "$base"
    fi
    echo "capture-ab.sh: round $i of $pairs done" >&2
    i=$((i + 1))
done
echo "capture-ab.sh: $pairs pairs in $dir; now: hbgbench compare --paired --manifest $manifest" >&2
