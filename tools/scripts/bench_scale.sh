#!/usr/bin/env bash
# Scale benchmark of the reference family (scenarios/reference/): for each size, the wall
# and CPU time of `trainsim run`, its peak resident memory, the SimGrid activities it issued,
# the CPU microseconds per activity and the simulated step time; the scaling exponent of CPU
# time in GPUs between consecutive sizes (1 is linear: CPU ~ GPUs^k); then fast against fine
# mode where fine is affordable.
#
#   tools/scripts/bench_scale.sh [SIZES] [FINE_SIZES]     default: "1k 4k 16k 100k" "1k 4k"
#
# Timing is not a test: the machine is shared, so the CPU column (user + sys) is the figure
# to compare across runs; wall time shows what a user waited.
set -euo pipefail
cd "$(dirname "$0")/../.."
sizes=${1:-"1k 4k 16k 100k"}
fine_sizes=${2-"1k 4k"}   # "" runs no fine mode
bin=./build/trainsim
out=$(mktemp -d)

calc() { awk "BEGIN { print $1 }"; }
field() { grep -o "\"$2\": [^,}]*" "$1" | head -1 | sed 's/.*: //; s/"//g'; }

# run SIZE FIDELITY: prints "wall cpu rss_mib activities step_s gpus"
run() {
  local json=$out/$1-$2.json timing=$out/$1-$2.time
  /usr/bin/time -f "%e %U %S %M" -o "$timing" "$bin" run "scenarios/reference/$1.yaml" --fidelity "$2" \
    --no-link-stats --json > "$json"
  read -r wall user sys rss < "$timing"
  echo "$wall $(calc "$user + $sys") $((rss / 1024)) $(field "$json" activities) $(field "$json" step_time_s)" \
    "$(field "$json" gpus)"
}

printf "%-6s %-5s %9s %9s %9s %12s %8s %12s %9s\n" size mode wall_s cpu_s rss_MiB activities us/act \
  step_time_s exponent
declare -A fast_step
prev_gpus="" prev_cpu=""
for s in $sizes; do
  read -r wall cpu rss acts step gpus < <(run "$s" fast)
  fast_step[$s]=$step
  exponent="-"
  [ -n "$prev_gpus" ] && exponent=$(calc "log($cpu / $prev_cpu) / log($gpus / $prev_gpus)")
  printf "%-6s %-5s %9.1f %9.1f %9d %12d %8.2f %12.6f %9s\n" "$s" fast "$wall" "$cpu" "$rss" "$acts" \
    "$(calc "$cpu / $acts * 1e6")" "$step" "$exponent"
  prev_gpus=$gpus prev_cpu=$cpu
done
for s in $fine_sizes; do
  read -r wall cpu rss acts step gpus < <(run "$s" fine)
  printf "%-6s %-5s %9.1f %9.1f %9d %12d %8.2f %12.6f %9s   fast/fine - 1 = %+.4f%%\n" "$s" fine "$wall" \
    "$cpu" "$rss" "$acts" "$(calc "$cpu / $acts * 1e6")" "$step" "-" \
    "$(calc "(${fast_step[$s]:-$step} / $step - 1) * 100")"
done
rm -rf "$out"
