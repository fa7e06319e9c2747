#!/usr/bin/env bash
# bench.sh times hbgtrace's table views side by side with `grep -c` (the
# disk-scan floor) on gen_perf.py logs and prints a markdown table: median
# and minimum wall time of N runs, peak RSS, the ratio to grep and to the
# recorded reference (shared/tools/perf-baseline.md).
#
#   scripts/bench.sh             # logs 100M and 1G, 5 runs each
#   scripts/bench.sh 10M 100M    # other sizes (10M, 100M, 1G)
#
# Environment:
#   HBG_PERF_DIR   where the logs are kept (default /tmp/hbgkit-perf);
#                  missing ones are generated there
#   HBG_GEN_PERF   the generator (default ../shared/tools/gen_perf.py)
#   HBG_BENCH_RUNS runs per command (default 5)
#   SIMPLER_TOOLS  simpler's simpler_setup/tools: when set, the reference
#                  (strace_timing.py --rounds-table, hbg_bind_phases.py
#                  --ranks 2) runs side by side on this machine, and the
#                  ratio uses its median; else the recorded times of
#                  perf-baseline.md (another machine) are used, with a note
#   HBG_BENCH_SCALE=0  without SIMPLER_TOOLS, do not time gen_perf.py (see
#                  below)
#
# Without SIMPLER_TOOLS the reference's recorded times come from another
# machine, whose speed differs from this one's. perf-baseline.md also
# records how long that machine took to generate the 10M and 100M logs
# with gen_perf.py, a Python program like the reference. So, for those
# sizes, the generator runs interleaved with the others, and the recorded
# reference is scaled by (generation here ÷ generation recorded): an
# estimate of the reference on this machine, shown in its own columns and
# never in place of a side-by-side run.
#
# Every table is headed by the machine: architecture, CPU count and model,
# Go version and load. The targets are ratios (DESIGN §7) so that they hold
# on any machine; compare only numbers measured side by side.
#
# Runs are interleaved (grep, rounds, phases, tpot, tree, then again) so
# that a burst of load on a shared machine hits every command alike. Take
# the numbers when the machine is quiet (see `uptime`). Wall time is taken
# around the command itself (bash's EPOCHREALTIME); peak RSS comes from one
# more, untimed run of each command under /usr/bin/time.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
perf_dir=${HBG_PERF_DIR:-/tmp/hbgkit-perf}
gen=${HBG_GEN_PERF:-$repo/../shared/tools/gen_perf.py}
runs=${HBG_BENCH_RUNS:-5}
sizes=("$@")
if [ ${#sizes[@]} -eq 0 ]; then
	sizes=(100M 1G)
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "building hbgtrace (CGO_ENABLED=0)..." >&2
(cd "$repo" && CGO_ENABLED=0 go build -o "$work/hbgtrace" ./cmd/hbgtrace)

mkdir -p "$perf_dir"
for size in "${sizes[@]}"; do
	log=$perf_dir/perf-$size.log
	if [ ! -s "$log" ]; then
		if [ ! -f "$gen" ]; then
			echo "bench.sh: $log is missing and there is no generator at $gen (set HBG_GEN_PERF)" >&2
			exit 1
		fi
		echo "generating $log..." >&2
		python3 "$gen" --size "$size" -o "$log" >&2
	fi
done

have_time=false
if [ -x /usr/bin/time ] && /usr/bin/time -f %M -o /dev/null true 2>/dev/null; then
	have_time=true
fi

# Recorded reference wall times (perf-baseline.md, minimum of 3 runs; the
# 1G figures are single runs): strace_timing.py --rounds-table and
# hbg_bind_phases.py --ranks 2. tpot and tree have none recorded.
ref() {
	case "$1/$2" in
	10M/rounds) echo 0.41 ;;
	100M/rounds) echo 4.81 ;;
	1G/rounds) echo 49.23 ;;
	10M/phases) echo 0.11 ;;
	100M/phases) echo 0.44 ;;
	1G/phases) echo 4.21 ;;
	*) echo "" ;;
	esac
}

names=(grep rounds phases tpot tree)
tools=${SIMPLER_TOOLS:-}

# Recorded generation times of gen_perf.py (perf-baseline.md, 3-run
# protocol), the yardstick of the scaled reference.
gen_ref() {
	case "$1" in
	10M) echo 0.27 ;;
	100M) echo 1.19 ;;
	*) echo "" ;;
	esac
}
scale=false
if [ -z "$tools" ] && [ "${HBG_BENCH_SCALE:-1}" != 0 ] && [ -f "$gen" ] && command -v python3 >/dev/null; then
	scale=true
fi
if [ -n "$tools" ]; then
	if [ ! -f "$tools/strace_timing.py" ] || [ ! -f "$tools/hbg_bind_phases.py" ]; then
		echo "bench.sh: SIMPLER_TOOLS=$tools holds no strace_timing.py and hbg_bind_phases.py" >&2
		exit 1
	fi
	names+=(ref-rounds ref-phases)
fi
command_of() {
	case "$1" in
	ref-rounds) echo "strace_timing.py --rounds-table" ;;
	ref-phases) echo "hbg_bind_phases.py --ranks 2" ;;
	gen) echo "python3 gen_perf.py --size $size" ;;
	grep) echo "grep -c \\[STRACE\\]" ;;
	rounds) echo "hbgtrace rounds" ;;
	phases) echo "hbgtrace phases --ranks 2" ;;
	tpot) echo "hbgtrace tpot" ;;
	tree) echo "hbgtrace tree" ;;
	esac
}

# now prints the time in microseconds: bash's EPOCHREALTIME (no fork), or
# date.
now() {
	if [ -n "${EPOCHREALTIME:-}" ]; then
		local t=${EPOCHREALTIME/[.,]/}
		echo "$t"
	else
		echo $(($(date +%s%N) / 1000))
	fi
}

# run_one NAME LOG [rss]: one timed run, appending milliseconds to
# NAME.ms; with rss, an untimed run under /usr/bin/time instead, appending
# its peak RSS in KiB to NAME.rss.
run_one() {
	local name=$1 log=$2 start end
	local -a cmd
	case "$name" in
	grep) cmd=(grep -c '\[STRACE\]' "$log") ;;
	rounds) cmd=("$work/hbgtrace" rounds "$log") ;;
	phases) cmd=("$work/hbgtrace" phases --ranks 2 "$log") ;;
	tpot) cmd=("$work/hbgtrace" tpot "$log") ;;
	tree) cmd=("$work/hbgtrace" tree "$log") ;;
	ref-rounds) cmd=(python3 "$tools/strace_timing.py" "$log" --rounds-table) ;;
	ref-phases) cmd=(python3 "$tools/hbg_bind_phases.py" "$log" --ranks 2) ;;
	gen) cmd=(python3 "$gen" --size "$size" -o "$work/gen.log") ;;
	esac
	# Output goes to a file, not /dev/null: GNU grep stops at the first
	# match when its output is /dev/null.
	if [ "${3:-}" = rss ]; then
		/usr/bin/time -f %M -o "$work/rss" "${cmd[@]}" >"$work/out" 2>&1
		cat "$work/rss" >>"$work/$name.rss"
		return
	fi
	start=$(now)
	"${cmd[@]}" >"$work/out" 2>&1
	end=$(now)
	echo "$(((end - start) / 1000)).$(printf '%03d' $(((end - start) % 1000)))" >>"$work/$name.ms"
	rm -f "$work/gen.log"
}

# median and minimum of a file of numbers.
median() { sort -n "$1" | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
minimum() { sort -n "$1" | head -1; }

echo "# hbgtrace side by side with grep -c"
echo
echo "$(uname -m), $(nproc) CPUs ($(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || echo unknown)), $(go version | awk '{print $3}'), load $(awk '{print $1, $2, $3}' /proc/loadavg 2>/dev/null || echo unknown); $runs runs each, interleaved"
echo
header="| log | command | median s | min s | peak RSS MiB | × grep (median) | reference s | reference ÷ hbgtrace |"
rule="|---|---|---:|---:|---:|---:|---:|---:|"
if $scale; then
	header="$header scaled reference s | scaled ÷ hbgtrace |"
	rule="$rule---:|---:|"
fi
echo "$header"
echo "$rule"
factors=()
for size in "${sizes[@]}"; do
	log=$perf_dir/perf-$size.log
	rm -f "$work"/*.ms "$work"/*.rss
	size_names=("${names[@]}")
	factor=""
	if $scale && [ -n "$(gen_ref "$size")" ]; then
		size_names+=(gen)
	fi
	for name in "${size_names[@]}"; do
		"$have_time" && run_one "$name" "$log" rss
	done
	for _ in $(seq "$runs"); do
		for name in "${size_names[@]}"; do
			run_one "$name" "$log"
		done
	done
	grep_ms=$(median "$work/grep.ms")
	if [ -f "$work/gen.ms" ]; then
		factor=$(awk -v a="$(median "$work/gen.ms")" -v r="$(gen_ref "$size")" 'BEGIN { printf "%.2f", a / 1000 / r }')
		factors+=("$size: generation $(awk -v a="$(median "$work/gen.ms")" 'BEGIN { printf "%.2f", a / 1000 }') s here against $(gen_ref "$size") s recorded, factor $factor")
	fi
	for name in "${size_names[@]}"; do
		med=$(median "$work/$name.ms")
		lo=$(minimum "$work/$name.ms")
		rss="–"
		if $have_time; then
			rss=$(awk '{ if ($1 > m) m = $1 } END { printf "%.0f", m / 1024 }' "$work/$name.rss")
		fi
		ratio=$(awk -v a="$med" -v b="$grep_ms" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')
		[ "$name" = gen ] && ratio="–"
		r=$(ref "$size" "$name")
		if [ -n "$tools" ]; then
			# The reference measured here, side by side.
			case "$name" in
			rounds | phases) r=$(awk -v a="$(median "$work/ref-$name.ms")" 'BEGIN { printf "%.3f", a / 1000 }') ;;
			*) r="" ;;
			esac
		fi
		vs="–"
		scaled="–"
		svs="–"
		if [ -n "$r" ]; then
			vs=$(awk -v r="$r" -v a="$med" 'BEGIN { printf "%.0f×", r / (a / 1000) }')
			if [ -n "$factor" ]; then
				scaled=$(awk -v r="$r" -v f="$factor" 'BEGIN { printf "%.2f", r * f }')
				svs=$(awk -v r="$scaled" -v a="$med" 'BEGIN { printf "%.0f×", r / (a / 1000) }')
			fi
		else
			r="–"
		fi
		extra=""
		if $scale; then
			extra=" $scaled | $svs |"
		fi
		printf '| %s | `%s` | %.3f | %.3f | %s | %s | %s | %s |%s\n' "$size" "$(command_of "$name")" \
			"$(awk -v a="$med" 'BEGIN { print a / 1000 }')" "$(awk -v a="$lo" 'BEGIN { print a / 1000 }')" "$rss" "$ratio" "$r" "$vs" "$extra"
	done
done
echo
if [ -n "$tools" ]; then
	echo "Reference: measured side by side on this machine from $tools."
else
	echo "Reference: the recorded times of shared/tools/perf-baseline.md, taken on another machine; set SIMPLER_TOOLS to simpler's simpler_setup/tools to run it side by side here."
fi
if [ ${#factors[@]} -gt 0 ]; then
	echo
	echo "Scaled reference: the recorded time × (gen_perf.py's generation time here ÷ the one recorded beside the reference), an estimate of the reference on this machine, not a run of it:"
	for f in "${factors[@]}"; do
		echo "- $f"
	done
fi
