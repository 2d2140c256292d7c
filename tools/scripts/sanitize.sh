#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer, in ./build-asan:
#   tools/scripts/sanitize.sh            configure, build, run ctest (extra arguments go to ctest)
# Then checks determinism across build types: the default scenario's output files from this
# build must equal, byte for byte except sim.wall_s, the ones from the Release build in
# ${RELEASE_DIR:-build} (skipped when that build has no trainsim binary).
# Uses the default compiler (gcc); CXX=clang++-14 works too. docs/trust.md explains the options.
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)

cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRAINSIM_SANITIZE=ON >/dev/null
cmake --build build-asan -j"${JOBS:-2}"

# halt_on_error: the first report fails its test. detect_leaks: the simulation child leaves
# through _exit (LeakSanitizer does not run there), the parent processes are checked.
# detect_stack_use_after_return=0: SimGrid switches actor stacks without telling ASan.
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=1:detect_stack_use_after_return=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
(cd build-asan && ctest --output-on-failure -j"${JOBS:-2}" "$@")
echo "sanitize.sh: test suite passed under ASan+UBSan in $(($(date +%s) - started)) s"

release=${RELEASE_DIR:-build}/trainsim
if [[ -x $release ]]; then
  out=$(mktemp -d)
  # The same scenario path for both: result.json and trace.json record it, and each build's
  # default is the scenarios/ of the tree it was built from.
  build-asan/trainsim run scenarios/default.yaml --out "$out/asan" >/dev/null
  "$release" run scenarios/default.yaml --out "$out/release" >/dev/null
  same=1
  for f in "$out"/asan/*; do # result.json, trace.json, links.csv
    diff -q <(grep -v '"wall_s"' "$f") <(grep -v '"wall_s"' "$out/release/$(basename "$f")") >/dev/null || {
      echo "sanitize.sh: $(basename "$f") differs between the sanitizer build and $release" >&2
      same=0
    }
  done
  ((same)) || exit 1
  echo "sanitize.sh: determinism across build types: $(cd "$out/asan" && echo *) identical (sanitizer vs $release)"
  rm -rf "$out"
fi
