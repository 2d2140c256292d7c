#!/usr/bin/env bash
# Scale benchmark of the reference family (scenarios/reference/): for each size, the CPU
# (user + sys) and wall seconds of `trainsim run` as min / median / max over REPEAT runs, its
# peak resident memory, the SimGrid activities it issued, the CPU microseconds per activity
# and the simulated step time; the scaling exponent of the median CPU time in GPUs between
# consecutive sizes (1 is linear: CPU ~ GPUs^k); the linearity ratio of the last size over the
# first, against the GPU ratio; then fast against fine mode where fine is affordable.
#
#   tools/scripts/bench_scale.sh [SIZES] [FINE_SIZES] [REPEAT]
#       defaults: "1k 4k 16k 100k" "1k" 3 (sizes of 100k and more run once)
#   TRAINSIM_RUN_ARGS="--unbundled" tools/scripts/bench_scale.sh ...   extra `run` options
#
# Timing is not a test: the machine is shared, so the CPU columns are the figures to compare
# across runs; wall time shows what a user waited.
set -euo pipefail
cd "$(dirname "$0")/../.."
sizes=${1:-"1k 4k 16k 100k"}
fine_sizes=${2-"1k"} # "" runs no fine mode
repeat=${3:-3}
bin=./build/trainsim
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

calc() { awk "BEGIN { print $1 }"; }
field() { grep -o "\"$2\": [^,}]*" "$1" | head -1 | sed 's/.*: //; s/"//g'; }
# "min median max" of the numbers on stdin
stats() { sort -g | awk '{ v[NR] = $1 } END { printf "%s %s %s", v[1], v[int((NR + 1) / 2)], v[NR] }'; }

# run SIZE FIDELITY I: one run; appends "cpu wall rss_mib" to $out/SIZE-FIDELITY.runs
run() {
  local json=$out/$1-$2.json timing=$out/$1-$2.time
  # shellcheck disable=SC2086 # TRAINSIM_RUN_ARGS is a list of options
  /usr/bin/time -f "%e %U %S %M" -o "$timing" "$bin" run "scenarios/reference/$1.yaml" \
    --fidelity "$2" --no-link-stats --json ${TRAINSIM_RUN_ARGS:-} > "$json"
  read -r wall user sys rss < "$timing"
  echo "$(calc "$user + $sys") $wall $((rss / 1024))" >> "$out/$1-$2.runs"
}

# measure SIZE FIDELITY: prints "cpu_min cpu_med cpu_max wall_min wall_med wall_max rss acts step gpus"
measure() {
  local n=$repeat
  [[ $1 =~ ^[0-9]+(k|m)$ ]] && [[ $1 == *m || ${1%k} -ge 100 ]] && n=1
  for ((i = 0; i < n; i++)); do run "$1" "$2"; done
  local json=$out/$1-$2.json
  echo "$(cut -d' ' -f1 "$out/$1-$2.runs" | stats) $(cut -d' ' -f2 "$out/$1-$2.runs" | stats)" \
    "$(cut -d' ' -f3 "$out/$1-$2.runs" | sort -n | tail -1) $(field "$json" activities)" \
    "$(field "$json" step_time_s) $(field "$json" gpus) $n"
}

printf "%-5s %-4s %4s %22s %22s %8s %11s %7s %18s %8s\n" size mode runs "cpu_s min/med/max" \
  "wall_s min/med/max" rss_MiB activities us/act step_time_s exponent
declare -A fast_step
first_gpus="" first_cpu="" prev_gpus="" prev_cpu="" gpus="" cpu_med=""
for s in $sizes; do
  read -r c0 cpu_med c2 w0 w1 w2 rss acts step gpus n < <(measure "$s" fast)
  fast_step[$s]=$step
  exponent="-"
  [ -n "$prev_gpus" ] && exponent=$(calc "log($cpu_med / $prev_cpu) / log($gpus / $prev_gpus)")
  printf "%-5s %-4s %4d %22s %22s %8d %11d %7.2f %18.12f %8s\n" "$s" fast "$n" \
    "$c0/$cpu_med/$c2" "$w0/$w1/$w2" "$rss" "$acts" "$(calc "$cpu_med / $acts * 1e6")" \
    "$step" "$exponent"
  [ -z "$first_gpus" ] && first_gpus=$gpus first_cpu=$cpu_med
  prev_gpus=$gpus prev_cpu=$cpu_med
done
if [ -n "$first_gpus" ] && [ "$gpus" != "$first_gpus" ]; then
  ratio=$(calc "$cpu_med / $first_cpu") gpu_ratio=$(calc "$gpus / $first_gpus")
  printf "linearity: CPU(last) / CPU(first) = %.1f for %.1fx the GPUs (%.2fx the GPU ratio)\n" \
    "$ratio" "$gpu_ratio" "$(calc "$ratio / $gpu_ratio")"
fi
for s in $fine_sizes; do
  read -r c0 cpu_med c2 w0 w1 w2 rss acts step gpus n < <(measure "$s" fine)
  printf "%-5s %-4s %4d %22s %22s %8d %11d %7.2f %18.12f %8s   fast/fine - 1 = %+.5f%%\n" "$s" \
    fine "$n" "$c0/$cpu_med/$c2" "$w0/$w1/$w2" "$rss" "$acts" "$(calc "$cpu_med / $acts * 1e6")" \
    "$step" "-" "$(calc "(${fast_step[$s]:-$step} / $step - 1) * 100")"
done
