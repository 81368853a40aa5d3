# Helpers the benchmark scripts share; source it after setting $work (a
# scratch directory).

# The median of the numbers on stdin, one per line.
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

# timed FILE COMMAND...: runs the command (exit code ignored: a report or a
# diff exits 1 when it finds something) and appends "seconds peak_rss_mb".
timed() {
  local out=$1; shift
  local start end
  start=$(date +%s%N)
  /usr/bin/time -f "%M" -o "$work/rss" "$@" >/dev/null 2>&1 || true
  end=$(date +%s%N)
  echo "$(awk -v ns=$((end - start)) 'BEGIN {printf "%.3f", ns / 1e9}') $(($(tail -1 "$work/rss") / 1024))" >>"$out"
}
