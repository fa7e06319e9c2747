#!/usr/bin/env bash
# hostile-inputs.sh runs every hbgtrace view, and `hbgbench compare`, on
# the hostile inputs of issue 36 and on the 100 MB gen_perf.py log, each
# under `/usr/bin/time -v`, and prints a markdown table: wall time, peak
# RSS, exit status and the first line of stderr (the bound's error, when
# one is met). The inputs are generated in a temporary directory, never
# in the checkout, and removed at the end:
#
#   bomb     one chip.run over 26,000,000 identical chip.run.step spans in
#            one invocation, gzip-compressed (about 7 MB, 2 GB expanded)
#   nested   one chip.run over 1,000,000 identical nested spans (129 MB)
#   flat     1,000,000 chip.run spans, one invocation each (134 MB)
#   passes   1,000,000 `bind phase=` lines, each a bind pass (160 MB)
#   line     one line of 200 MB
#   perf     the 100 MB gen_perf.py log ($HBG_PERF_DIR/perf-100M.log)
#
#   scripts/hostile-inputs.sh            # every input, every view
#   scripts/hostile-inputs.sh bomb line  # some inputs
#
# Environment: HBG_PERF_DIR (default /tmp/hbgkit-perf), HBG_GEN_PERF (the
# generator, default ../shared/tools/gen_perf.py), HBG_TIMEOUT (seconds a
# command may take, default 300: a hang shows as exit 124).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
perf_dir=${HBG_PERF_DIR:-/tmp/hbgkit-perf}
gen=${HBG_GEN_PERF:-$repo/../shared/tools/gen_perf.py}
limit=${HBG_TIMEOUT:-300}
inputs=("$@")
[ ${#inputs[@]} -gt 0 ] || inputs=(bomb nested flat passes line perf)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "building hbgtrace and hbgbench (CGO_ENABLED=0)..." >&2
(cd "$repo" && CGO_ENABLED=0 go build -o "$work/hbgtrace" ./cmd/hbgtrace &&
	CGO_ENABLED=0 go build -o "$work/hbgbench" ./cmd/hbgbench)

head='[mono_ns=1][T0x7f3c9a302c80][TIMING] emit_host_span: [STRACE] v=1 pid=7 tid=7'
run_span="$head inv=1 hid=abc depth=0 name=chip.run ts=1000 dur=900000000000"
step_span="$head inv=1 hid=abc depth=1 name=chip.run.step ts=2000 dur=900"

# make INPUT prints the path of the input, generating it first.
make_input() {
	local f
	set +o pipefail # yes(1) ends on SIGPIPE
	case "$1" in
	bomb)
		f=$work/bomb.log.gz
		[ -s "$f" ] || { echo "$run_span"; yes "$step_span" | head -n 26000000; } | gzip -1 >"$f"
		;;
	nested)
		f=$work/nested.log
		[ -s "$f" ] || { echo "$run_span"; yes "$step_span" | head -n 1000000; } >"$f"
		;;
	flat)
		f=$work/flat.log
		[ -s "$f" ] || awk -v h="$head" 'BEGIN { for (i = 1; i <= 1000000; i++)
			printf "%s inv=%d hid=abc depth=0 name=chip.run ts=%d dur=900\n", h, i, 1000 * i }' >"$f"
		;;
	passes)
		f=$work/passes.log
		[ -s "$f" ] || awk 'BEGIN { for (i = 1; i <= 1000000; i++)
			printf "[mono_ns=%d][T0x7f3cb1408c80][TIMING] host_phase_trace_end: [host_phase_trace.cpp:393] bind phase=args start_ns=%d dur_ns=413 ntensor=92 staged=1 bytes=8\n", i, 1000 * i }' >"$f"
		;;
	line)
		f=$work/line.log
		[ -s "$f" ] || { echo "$run_span"; head -c 200000000 /dev/zero | tr '\0' x; echo; } >"$f"
		;;
	perf)
		f=$perf_dir/perf-100M.log
		if [ ! -s "$f" ]; then
			mkdir -p "$perf_dir"
			python3 "$gen" --size 100M -o "$f" >&2
		fi
		;;
	*)
		echo "hostile-inputs.sh: unknown input $1 (bomb, nested, flat, passes, line, perf)" >&2
		exit 2
		;;
	esac
	echo "$f"
}

views=(rounds phases tpot tree trace swimlane pprof pprof-inv gaps overlap orch compare)

# cmd VIEW INPUT prints the command line of VIEW on INPUT.
cmd_of() {
	local o=$work/out
	case "$1" in
	trace | swimlane) echo "$work/hbgtrace $1 $2 -o $o.json" ;;
	pprof) echo "$work/hbgtrace pprof $2 -o $o.pb.gz" ;;
	pprof-inv) echo "$work/hbgtrace pprof --per-invocation $2 -o $o.pb.gz" ;;
	compare) echo "$work/hbgbench compare --base $2 --head $2" ;;
	*) echo "$work/hbgtrace $1 $2" ;;
	esac
}

echo "x86_64, $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)), $(go version | cut -d' ' -f3); $(date -u '+%Y-%m-%d %H:%M') UTC; load $(cut -d' ' -f1-3 /proc/loadavg) before"
echo
echo "| input | command | wall s | peak RSS MB | exit | stderr (first line) |"
echo "|---|---|---:|---:|---:|---|"
for in in "${inputs[@]}"; do
	echo "generating $in..." >&2
	path=$(make_input "$in")
	size=$(du -h "$path" | cut -f1)
	for v in "${views[@]}"; do
		echo "  $v on $in..." >&2
		set +e
		# shellcheck disable=SC2046
		timeout "$limit" /usr/bin/time -v -o "$work/time.txt" $(cmd_of "$v" "$path") >/dev/null 2>"$work/err.txt"
		code=$?
		set -e
		wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt" |
			awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }')
		rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt" | awk '{ printf "%.0f", $1 / 1024 }')
		msg=$(grep -v '^Command exited with non-zero status' "$work/err.txt" | head -1 | cut -c1-160 |
			sed "s|$work/||g; s/|/\\\\|/g" || true)
		echo "| $in ($size) | \`$v\` | ${wall:-–} | ${rss:-–} | $code | ${msg:-} |"
		rm -f "$work"/out.*
	done
done
echo
echo "load $(cut -d' ' -f1-3 /proc/loadavg) after"
