#!/usr/bin/env bash
# timeruns.sh: wall times of a command over several runs, and, beside a second
# command, of the two run in turn (A B A B ...) with their ratio pair by pair.
#
#   scripts/timeruns.sh [-n RUNS] [-w WARMUP] [-b 'COMMAND B'] -- COMMAND A [ARG ...]
#
# It prints each run's wall time, then min, median and max of each command and
# of the ratio A/B. The host's speed drifts (by up to 30% within an hour on the
# shared machines of docs/PERFORMANCE.md): compare two versions only by pairs.
# COMMAND B is one string run by bash -c; COMMAND A is run as given. Each
# command's output goes to /dev/null unless -o DIR names a directory for it
# (A-1.out, B-1.out, ...). Peak memory: run the command under /usr/bin/time -v.
set -euo pipefail

runs=5 warmup=0 cmdb="" outdir=""
usage() { sed -n '5p' "$0" | sed 's/^# *//' >&2; exit 2; }
while getopts "n:w:b:o:h" opt; do
  case $opt in
    n) runs=$OPTARG ;;
    w) warmup=$OPTARG ;;
    b) cmdb=$OPTARG ;;
    o) outdir=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || usage
[ -z "$outdir" ] || mkdir -p "$outdir"
[[ $runs =~ ^[1-9][0-9]*$ && $warmup =~ ^[0-9]+$ ]] || usage

# run NAME I CMD...: runs the command, prints and returns its wall seconds in $secs.
run() {
  local name=$1 i=$2 out=/dev/null
  shift 2
  [ -n "$outdir" ] && out=$outdir/$name-$i.out
  local start=$EPOCHREALTIME
  local status=0
  "$@" >"$out" 2>&1 || status=$?
  local end=$EPOCHREALTIME
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')
  printf '%s run %d: %s s%s\n' "$name" "$i" "$secs" "$([ $status = 0 ] || echo " (exit $status)")"
}

# stats LABEL V...: min, median and max.
stats() {
  local label=$1
  shift
  printf '%s\n' "$@" | sort -g | awk -v l="$label" '
    { v[NR] = $1 }
    END {
      m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "%-6s min %.3f  median %.3f  max %.3f  (%d runs)\n", l, v[1], m, v[NR], NR
    }'
}

for ((i = 1; i <= warmup; i++)); do
  run warmup "$i" "$@" >/dev/null
  [ -n "$cmdb" ] && run warmup "$i" bash -c "$cmdb" >/dev/null
done
as=() bs=() ratios=()
for ((i = 1; i <= runs; i++)); do
  run A "$i" "$@"
  as+=("$secs")
  if [ -n "$cmdb" ]; then
    a=$secs
    run B "$i" bash -c "$cmdb"
    bs+=("$secs")
    ratios+=("$(awk -v a="$a" -v b="$secs" 'BEGIN { printf "%.3f", a / b }')")
  fi
done
stats A "${as[@]}"
if [ -n "$cmdb" ]; then
  stats B "${bs[@]}"
  stats A/B "${ratios[@]}"
fi
