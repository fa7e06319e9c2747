#!/usr/bin/env bash
# bench-writers.sh times the views that write a document or a profile
# (hbgtrace trace, swimlane and pprof) side by side with `grep -c` and with
# the floor of writing a file as large as their output (`cat` of a copy of
# it), for two builds of hbgtrace: a git revision (before) and the work
# tree (after). It prints a markdown table: median and minimum wall time
# of N runs, peak RSS, the ratio of the median to grep's, and checks that
# both builds wrote the same bytes (pprof: the uncompressed profile).
#
#   scripts/bench-writers.sh              # 100M log, before = HEAD~1
#   scripts/bench-writers.sh 5468d7f 10M  # another revision and log size
#
# Environment: HBG_PERF_DIR (default /tmp/hbgkit-perf), HBG_GEN_PERF (the
# generator, default ../shared/tools/gen_perf.py), HBG_BENCH_RUNS (default
# 5). Runs are interleaved (every command once, then again) so that a
# burst of load on a shared machine hits every command alike; the load
# average is printed before and after. Wall time is taken around the
# command (bash's EPOCHREALTIME); peak RSS from one more, untimed run
# under /usr/bin/time.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
before=${1:-HEAD~1}
size=${2:-100M}
perf_dir=${HBG_PERF_DIR:-/tmp/hbgkit-perf}
gen=${HBG_GEN_PERF:-$repo/../shared/tools/gen_perf.py}
runs=${HBG_BENCH_RUNS:-5}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "building hbgtrace at $before and at the work tree (CGO_ENABLED=0)..." >&2
mkdir "$work/src"
git -C "$repo" archive "$before" | tar -x -C "$work/src"
(cd "$work/src" && CGO_ENABLED=0 go build -o "$work/before" ./cmd/hbgtrace)
(cd "$repo" && CGO_ENABLED=0 go build -o "$work/after" ./cmd/hbgtrace)

log=$perf_dir/perf-$size.log
if [ ! -s "$log" ]; then
	mkdir -p "$perf_dir"
	echo "generating $log..." >&2
	python3 "$gen" --size "$size" -o "$log" >&2
fi

views=(trace swimlane pprof)
ext() { case "$1" in pprof) echo pb.gz ;; *) echo json ;; esac; }

# The floor: the output of each view, copied once, then written by cat.
for v in trace swimlane; do
	"$work/after" "$v" "$log" -o "$work/floor-$v.json" >/dev/null 2>&1
done

# rounds (after) is the parse floor: the fastest view that reads every
# span, writing a small table.
names=(grep rounds)
for v in trace swimlane; do names+=("cat-$v"); done
for v in "${views[@]}"; do names+=("$v-before" "$v-after"); done

cmd_of() {
	case "$1" in
	grep) echo "grep -c \\[STRACE\\] $log" ;;
	rounds) echo "$work/after rounds $log" ;;
	cat-*) echo "cat $work/floor-${1#cat-}.json" ;;
	*-before | *-after)
		local v=${1%-*} b=${1##*-}
		echo "$work/$b $v $log -o $work/out-$1.$(ext "$v")"
		;;
	esac
}

now() { local t=${EPOCHREALTIME/[.,]/}; echo "$t"; }

# run_one NAME [rss]: one timed run appending seconds to NAME.s, or
# with rss an untimed run under /usr/bin/time appending KiB to NAME.rss.
# Output goes to a file: GNU grep stops at the first match when its
# output is /dev/null, and cat to /dev/null writes nothing.
run_one() {
	local name=$1 start end
	local -a cmd
	read -r -a cmd <<<"$(cmd_of "$name")"
	if [ "${2:-}" = rss ]; then
		/usr/bin/time -f %M -o "$work/rss" "${cmd[@]}" >"$work/stdout" 2>&1
		cat "$work/rss" >>"$work/$name.rss"
		return
	fi
	start=$(now)
	"${cmd[@]}" >"$work/stdout" 2>&1
	end=$(now)
	awk -v us=$((end - start)) 'BEGIN {printf "%.3f\n", us / 1e6}' >>"$work/$name.s"
}

median() { sort -n "$1" | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
minimum() { sort -n "$1" | head -1; }

load() { awk '{print $1, $2, $3}' /proc/loadavg; }
load_before=$(load)
for name in "${names[@]}"; do run_one "$name" rss; done
for _ in $(seq "$runs"); do
	for name in "${names[@]}"; do run_one "$name"; done
done
load_after=$(load)

echo "# trace, swimlane and pprof beside grep -c and cat ($size log, before = $before)"
echo
echo "$(uname -m), $(nproc) CPUs ($(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)), $(go version | awk '{print $3}'); $(date -u '+%Y-%m-%d %H:%M UTC'); load $load_before before, $load_after after; $runs runs each, interleaved"
echo
echo "| command | median s | min s | peak RSS MiB | × grep (median) |"
echo "|---|---:|---:|---:|---:|"
grep_med=$(median "$work/grep.s")
for name in "${names[@]}"; do
	med=$(median "$work/$name.s")
	rss=$(awk '{printf "%.0f", $1/1024}' "$work/$name.rss")
	case "$name" in
	grep) label="\`grep -c '\\[STRACE\\]'\`" ;;
	rounds) label="\`rounds\` (after; the parse floor)" ;;
	cat-*) label="\`cat\` of ${name#cat-}'s output ($(du -m "$work/floor-${name#cat-}.json" | cut -f1) MB)" ;;
	*) label="\`${name%-*}\` ${name##*-}" ;;
	esac
	echo "| $label | $med | $(minimum "$work/$name.s") | $rss | $(awk -v m="$med" -v g="$grep_med" 'BEGIN {printf "%.1f×", m/g}') |"
done
echo
for v in "${views[@]}"; do
	a=$work/out-$v-before.$(ext "$v") b=$work/out-$v-after.$(ext "$v")
	if [ "$v" = pprof ]; then
		cmp -s <(gzip -dc "$a") <(gzip -dc "$b") && same=identical || same=DIFFERENT
	else
		cmp -s "$a" "$b" && same=identical || same=DIFFERENT
	fi
	echo "- \`$v\`: the outputs of both builds are $same"
done
