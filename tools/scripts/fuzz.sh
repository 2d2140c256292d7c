#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) in ./build-fuzz and runs each one,
# one after the other, for SECONDS (default 60). New interesting inputs stay in
# build-fuzz/fuzz/corpus_<target>/; a crash, leak, timeout or out-of-memory input is written to
# build-fuzz/fuzz/<target>-crash-* (etc.) and the script exits non-zero. Keep a reproducer by
# copying it to fuzz/regressions/<target>/ once fixed (fuzz/regressions/open/<target>/ until then).
#   tools/scripts/fuzz.sh [SECONDS] [TARGET...]     targets: scenario graphml json csv units
# FUZZ_FLAGS adds libFuzzer flags, e.g. FUZZ_FLAGS="-fork=1 -ignore_crashes=1" to go past a finding.
# Needs clang-14 and libclang-rt-14-dev (Debian).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(scenario graphml json csv units)

cxx=$(command -v clang++-14 || command -v clang++ || true)
[[ -n $cxx ]] || { echo "fuzz.sh: clang++ not found (apt-get install clang-14 libclang-rt-14-dev)" >&2; exit 2; }
cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTRAINSIM_FUZZ=ON -DTRAINSIM_SANITIZE=ON -DTRAINSIM_BUILD_TESTS=OFF \
  -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link >/dev/null
cmake --build build-fuzz -j"${JOBS:-2}" --target "${targets[@]/#/fuzz_}"

status=0
for t in "${targets[@]}"; do
  echo "== fuzz_$t for ${seconds}s"
  mkdir -p "build-fuzz/fuzz/corpus_$t"
  # detect_leaks: leaks fail the run too. One job at a time: the machine is shared.
  if ! ASAN_OPTIONS=detect_leaks=1 build-fuzz/fuzz/fuzz_"$t" -max_total_time="$seconds" -timeout=10 \
      -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 -artifact_prefix="build-fuzz/fuzz/$t-" -dict="fuzz/dict/$t.dict" ${FUZZ_FLAGS:-} \
      "build-fuzz/fuzz/corpus_$t" "fuzz/corpus/$t" "fuzz/regressions/$t" 2>"build-fuzz/fuzz/$t.log"; then
    status=1
    echo "fuzz_$t FAILED: see build-fuzz/fuzz/$t.log"
    grep -E "^==[0-9]+==ERROR|^SUMMARY|Test unit written" "build-fuzz/fuzz/$t.log" | head -5 || true
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb|stat::new_units_added" "build-fuzz/fuzz/$t.log" || true
done
exit $status
