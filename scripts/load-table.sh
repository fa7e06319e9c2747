#!/bin/sh
# load-table.sh [DIR]: issue 37's load table. The A/A false-call rate and
# the detection of +5% and +10% of hbgbench's three campaign designs at
# three added loads, measured side by side in one sitting on the embedded
# harness (E2: embedded:mirror=retained,epoch=e2 on both arms).
#
#   designs  fixed  the default fixed design (no flag)
#            seq    --until-decided (default looks, --stop-within, 40 rounds)
#            tuned  the block and block statistic `aa --tune` recommends,
#                   tuned once per load on an A/A campaign under that load
#                   (never on the campaigns it then judges)
#   loads    0, NPROC and 2×NPROC busy processes (--load): none, one and
#            two per core
#   effects  A/A (AA campaigns per cell, default 50) and the head slower
#            by +5% and +10% (DET campaigns per cell, default 20), the
#            delay calibrated on the primary metric's own block statistic:
#            ControlPlane's block minimum of a first A/A campaign
#
# Every repetition runs each (load, design) cell's A/A campaign; every
# other-but-one repetition (DET of AA) also runs its +5% and +10%, so the
# detection campaigns are spread over the whole sitting, not its start.
# Cells rotate within a repetition, so the machine's own load falls on
# all of them alike. One line per campaign goes to DIR/campaigns.tsv
# (default: a new directory under /tmp, kept, so a long sitting can be read
# while it runs) and the table is printed at the end by load-table.py.
# AA, DET and LOADS ("0 2 4") override the defaults; needs jq and python3.
#
# Given a DIR of a sitting that stopped early (its header, binary, tuned
# designs and campaigns.tsv), it goes on from the repetition after the
# last one recorded, with the same binary, calibration and tuned designs,
# so the detection campaigns keep their spread.
set -u
aa=${AA:-50}
det=${DET:-20}
np=$(nproc)
loads=${LOADS:-0 $np $((2 * np))}
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$(mktemp -d /tmp/load-table.XXXXXX)}
mkdir -p "$dir" || exit 1
bin=$dir/hbgbench
base=embedded:mirror=retained,epoch=e2
tsv=$dir/campaigns.tsv
rep=0
if [ -s "$tsv" ] && [ -x "$bin" ] && [ -f "$dir/header" ]; then
    rep=$(awk -F'\t' 'NR > 1 && $1 + 0 > m { m = $1 + 0 } END { print m + 0 }' "$tsv")
    d5=$(sed -n 's/.*+5% delay_us=\([0-9]*\).*/\1/p' "$dir/header")
    d10=$(sed -n 's/.*+10% delay_us=\([0-9]*\).*/\1/p' "$dir/header")
    echo "# continued after repetition $rep at $(date -u +%FT%TZ), same binary, calibration and tuned designs" | tee -a "$dir/header"
else
    (cd "$here" && go build -o "$bin" ./cmd/hbgbench) || exit 1
    {
        echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $np CPUs, $(date -u +%FT%TZ)"
        echo "# base $base; A/A $aa per cell, +5% and +10% $det per cell; loads $loads"
    } | tee "$dir/header"

    "$bin" ab --base "$base" --head "$base" --rounds 6 --seed 1 --journal "$dir/calib.jsonl" \
        --format json >"$dir/calib.json" 2>/dev/null || exit 1
    cp=$(jq '[.metrics[] | select(.primary)][0].level[0]' "$dir/calib.json")
    d5=$(jq -n "$cp * 0.05 | round")
    d10=$(jq -n "$cp * 0.10 | round")
    echo "# ControlPlane block minimum ${cp} µs: +5% delay_us=$d5, +10% delay_us=$d10" | tee -a "$dir/header"

    # The tuned design per load: aa --tune under that load, its recommendation.
    for l in $loads; do
        "$bin" aa "$base" --tune --load "$l" --seed 7 --journal "$dir/tune-$l.jsonl" \
            --format json >"$dir/tune-$l.json" 2>"$dir/tune-$l.err" || { tail -3 "$dir/tune-$l.err"; exit 1; }
        flags=$(jq -r 'select(.candidates) | .candidates[.best] | "--block \(.block) --block-stat \(.block_stat)"' "$dir/tune-$l.json")
        [ -n "$flags" ] || { echo "no tuned design at load $l" >&2; exit 1; }
        echo "$flags" >"$dir/tuned-$l"
        echo "# tuned at load $l: $flags" | tee -a "$dir/header"
    done

    printf 'rep\tload\tdesign\teffect\tverdict\trounds\tdelta\twall_s\tloadavg\n' >"$tsv"
fi
while [ "$rep" -lt "$aa" ]; do
    rep=$((rep + 1))
    effects=aa
    # DET of the AA repetitions, spread evenly: rep·DET crosses a multiple of AA.
    [ $((rep * det / aa)) -gt $(((rep - 1) * det / aa)) ] && effects="aa 5 10"
    for effect in $effects; do
        for l in $loads; do
            for design in fixed seq tuned; do
                case $design in
                fixed) flags= ;;
                seq) flags=--until-decided ;;
                tuned) flags=$(cat "$dir/tuned-$l") ;;
                esac
                head=$base
                [ "$effect" = 5 ] && head="$base,delay_us=$d5"
                [ "$effect" = 10 ] && head="$base,delay_us=$d10"
                out="$dir/c-$rep-$effect-$l-$design"
                start=$(date +%s.%N)
                # shellcheck disable=SC2086 # flags is a word list
                "$bin" ab --base "$base" --head "$head" --load "$l" --seed "$((1000 * rep + l))" \
                    --journal "$out.jsonl" $flags --format json >"$out.json" 2>"$out.err" ||
                    echo "campaign $rep $effect load $l $design failed: $(tail -1 "$out.err")" >&2
                wall=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $start }")
                jq -r --arg r "$rep" --arg l "$l" --arg d "$design" --arg e "$effect" --arg w "$wall" \
                    --arg la "$(cut -d' ' -f1 /proc/loadavg)" '
                    ([.metrics[] | select(.primary)][0]) as $m |
                    [$r, $l, $d, $e, $m.verdict, .complete_rounds, ($m.delta // "nan"), $w, $la] | @tsv' \
                    "$out.json" >>"$tsv" 2>/dev/null
                rm -f "$out.jsonl" "$out.json"
            done
        done
    done
    echo "repetition $rep of $aa: load $(cut -d' ' -f1-3 /proc/loadavg)"
done
python3 "$here/scripts/load-table.py" "$dir"
