#!/bin/sh
# verdict-under-load.sh [RUNS]: run the tests that assert a statistical
# verdict RUNS times (default 20) with two busy loops beside them, as on a
# shared 2-core machine at load 5-10, and count the passes. Prints the load
# after each run and the CPU model; exits non-zero when any run failed.
set -u
runs=${1:-20}
cd "$(dirname "$0")/../cmd/hbgbench" || exit 1
bin=$(mktemp -d)/hbgbench.test
go test -c -o "$bin" . || exit 1
( while :; do :; done ) & b1=$!
( while :; do :; done ) & b2=$!
trap 'kill $b1 $b2 2>/dev/null; rm -rf "$(dirname "$bin")"' EXIT INT TERM
pattern='TestAbGitRefs$|TestAbFirstTry|TestAbFailOn|TestAbPerRankGatesOnEveryRank|TestAbDefaultPairEndToEnd|TestAbUntilDecided|TestAaUntilDecided|TestAbNArmsSweepFindsTheSlowArm|TestShardsMergeAsOneCampaign'
grep -m1 'model name' /proc/cpuinfo
pass=0
for i in $(seq 1 "$runs"); do
    if out=$("$bin" -test.run "$pattern" -test.count=1 2>&1); then
        pass=$((pass + 1))
    else
        echo "run $i failed:"
        echo "$out" | grep -E '^(--- FAIL|\s+Error)' | head -20
    fi
    echo "run $i: $(cut -d' ' -f1-3 /proc/loadavg)"
done
echo "passed $pass of $runs"
[ "$pass" -eq "$runs" ]
