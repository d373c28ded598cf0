#!/usr/bin/env bash
# Fuzzes every surface that reads bytes from outside (Sources/RingsideFuzz/Targets.swift): builds
# RingsideFuzz with coverage, AddressSanitizer and libFuzzer's driver into .build/fuzz, then runs each
# target for RUNS executions, starting from the seeds in Fuzz/corpus/<target>/ (new inputs go to a
# scratch folder; a crash leaves .build/fuzz/crash-<target>-* and fails the script: copy it into
# Fuzz/corpus/<target>/ once fixed, so that the plain build replays it in the tests).
# usage: bash scripts/fuzz.sh [RUNS] [TARGET...]     (RUNS default 20000; bench/fuzz.sh runs 10^6)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20000}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(http2 request jwt certificate scenario control transcript payload escape)

# libFuzzer without its main(): RingsideFuzz has its own and calls LLVMFuzzerRunDriver (SwiftPM
# renames an executable's entry point, so libFuzzer's main would collide with it).
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
runtime=$(ls "$toolchain"/lib/clang/*/lib/linux/libclang_rt.fuzzer_no_main-"$(uname -m)".a | head -1)
swift build --product RingsideFuzz --build-path .build/fuzz -Xswiftc -DFUZZING -Xswiftc -sanitize=address \
  -Xswiftc -sanitize-coverage=edge,trace-cmp,inline-8bit-counters,pc-table \
  -Xlinker "$runtime" -Xlinker -lstdc++ 2>&1 | grep -Ev '^\[|Compiling|Write|Emitting|Linking|warning: Cannot export' || true
binary=.build/fuzz/debug/RingsideFuzz
[[ -x $binary ]] || { echo "fuzz: the build failed" >&2; exit 1; }

export RINGSIDE_CERTS=$PWD/certs-test
# Swift's runtime keeps metadata for the process's life: not leaks worth failing on.
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1
status=0
for target in "${targets[@]}"; do
  scratch=$(mktemp -d)
  started=$(date +%s)
  if "$binary" "$target" -runs="$runs" -max_len=65536 -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix=.build/fuzz/crash-"$target"- "$scratch" "Fuzz/corpus/$target" >"$scratch.log" 2>&1; then
    executed=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$scratch.log" | grep -o '[0-9]*$' || echo "?")
    coverage=$(grep -o 'cov: [0-9]*' "$scratch.log" | tail -1 || true)
    echo "fuzz $target: $executed executions in $(($(date +%s) - started)) s, $coverage, no crash"
  else
    echo "fuzz $target: FAILED — see below and .build/fuzz/crash-$target-*" >&2
    grep -E 'ERROR|SUMMARY|Fatal error|Test unit written|#0 |#1 |#2 |#3 ' "$scratch.log" | head -20 >&2
    status=1
  fi
  rm -rf "$scratch" "$scratch.log"
done
exit $status
