/**
 * The shell a job runs in inside its box: POSIX sh, dd, wc, tail, head and date only, so it works
 * in busybox and Debian alike. Everything of a job lives in its directory in the box, so it goes on
 * while the core is away and the core finds it again after a restart.
 */

/** Where a box keeps its jobs. */
export const JOBS_DIR = '/tmp/.boxdesk-jobs';

/** Output is kept in segment files of about this many bytes… */
export const SEGMENT_BYTES = 256 * 1024;
/** …of which the newest this many: the ring per stream holds between 3 and 4 segments' worth. */
export const KEPT_SEGMENTS = 4;

/**
 * Runs "$@" with stdout and stderr each through a FIFO into a ring of segment files named by the
 * offset of their first byte (zero-padded, so the glob lists them in order); the oldest beyond
 * KEPT_SEGMENTS go. Then writes `exit` ("CODE ENDED_AT") in one rename. `pid` is the wrapper's; once it
 * is written the wrapper says "started" on its own stdout, which the core waits for before it answers.
 */
export const RUN_SCRIPT = `
d="$1"; shift
ring() {
  p="$1"; start=0; seg=0; f=$(printf '%s.%015d' "$p" 0); : >"$f"
  while dd bs=65536 count=1 2>/dev/null >>"$f"; do
    z=$(wc -c <"$f"); z=$((z))
    [ "$z" -eq "$seg" ] && break
    seg=$z
    if [ "$seg" -ge ${SEGMENT_BYTES} ]; then
      start=$((start + seg)); seg=0; f=$(printf '%s.%015d' "$p" "$start"); : >"$f"
      set -- "$p".*
      while [ $# -gt ${KEPT_SEGMENTS} ]; do rm -f "$1"; shift; done
    fi
  done
}
mkdir -p "$d" && mkfifo "$d/o" "$d/e" && echo $$ >"$d/pid" || exit 125
echo started
ring "$d/stdout" <"$d/o" & a=$!
ring "$d/stderr" <"$d/e" & b=$!
"$@" >"$d/o" 2>"$d/e" </dev/null
c=$?
wait $a $b
rm -f "$d/o" "$d/e"
echo "$c $(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$d/exit.tmp" && mv "$d/exit.tmp" "$d/exit"
`;

/**
 * What the core asks of a job: "stat" prints to stderr one line, "STDOUT_BYTES STDERR_BYTES ALIVE
 * EXIT_CODE ENDED_AT" (the last two empty while it runs; ALIVE is 1 until the wrapper has written its pid); "read STREAM FROM" prints the same line
 * with the stream's oldest kept offset before it, then the stream's bytes from FROM (or from the
 * oldest kept byte, if FROM is older) to its end as of now on stdout.
 */
export const READ_SCRIPT = `
d="$1"; id="$2"; mode="$3"
total() {
  t=0
  for f in "$d/$1".*; do
    [ -f "$f" ] || continue
    o=\${f##*.}; o=\${o#"\${o%%[!0]*}"}; z=$(wc -c <"$f")
    t=$((\${o:-0} + z))
  done
  echo "$t"
}
alive=1
if [ -f "$d/pid" ]; then
  p=$(cat "$d/pid")
  grep -qs "BOXDESK_SESSION=$id" "/proc/$p/environ" || alive=0
fi
ex=""; [ -f "$d/exit" ] && ex=$(cat "$d/exit")
status="$(total stdout) $(total stderr) $alive $ex"
[ "$mode" = stat ] && { echo "$status" >&2; exit 0; }
s="$4"; pos="$5"; first=""; list=""
for f in "$d/$s".*; do
  [ -f "$f" ] || continue
  o=\${f##*.}; o=\${o#"\${o%%[!0]*}"}; o=\${o:-0}; z=$(wc -c <"$f")
  [ -z "$first" ] && first=$o
  list="$list $o:$((z)):$f"
done
first=\${first:-0}
echo "$first $status" >&2
[ "$pos" -lt "$first" ] && pos=$first
for e in $list; do
  o=\${e%%:*}; r=\${e#*:}; z=\${r%%:*}; f=\${r#*:}
  end=$((o + z))
  [ "$end" -le "$pos" ] && continue
  tail -c +$((pos - o + 1)) "$f" | head -c $((end - pos))
  pos=$end
done
exit 0
`;
