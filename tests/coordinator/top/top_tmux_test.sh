#!/usr/bin/env bash
# Drives the real iashim-top in an 80x24 tmux pane against snapshot_publisher
# and checks what a person would see: the waiting message, the job rows, the
# column headers, nothing wider than the terminal, the sort mark moving on
# `s`, a resize, the stale warning when the stream stops, and a clean exit on
# `q`.
#
#   top_tmux_test.sh IASHIM_TOP SNAPSHOT_PUBLISHER
#
# Every wait polls the pane with a deadline (20 s, for a slow, loaded
# machine) instead of sleeping a fixed time.
set -u

if [[ $# -ne 2 ]]; then
  echo "usage: $0 IASHIM_TOP SNAPSHOT_PUBLISHER" >&2
  exit 2
fi
top_bin=$1
publisher_bin=$2
wait_seconds=20

tmp=$(mktemp -d "${TMPDIR:-/tmp}/iashim-top-test.XXXXXX")
endpoint="ipc://$tmp/pub.sock"
server="iashim-top-test-$$"
publisher_pid=""

# A private server (-L), no user configuration (-f /dev/null), and no
# inherited $TMUX, so the test neither sees nor disturbs anyone's tmux.
unset TMUX
tmux_() { tmux -L "$server" -f /dev/null "$@"; }

cleanup() {
  if [[ -n $publisher_pid ]]; then
    kill "$publisher_pid" 2>/dev/null
    wait "$publisher_pid" 2>/dev/null
  fi
  tmux_ kill-server 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

screen=""
capture() { screen=$(tmux_ capture-pane -p -J -t top 2>/dev/null); }

fail() {
  echo "FAIL: $*" >&2
  echo "---- pane ----" >&2
  printf '%s\n' "$screen" >&2
  echo "--------------" >&2
  exit 1
}

# Polls the pane until it matches the extended regular expression $1.
wait_for() {
  local deadline=$((SECONDS + wait_seconds))
  while ((SECONDS < deadline)); do
    capture
    if grep -Eq -- "$1" <<<"$screen"; then return 0; fi
    sleep 0.2
  done
  fail "no '$1' on screen within ${wait_seconds}s"
}

expect_on_screen() {
  grep -Eq -- "$1" <<<"$screen" || fail "expected '$1' on screen"
}

# The last `seq N` the footer shows.
footer_seq() { grep -Eo 'seq [0-9]+' <<<"$screen" | tail -1 | cut -d' ' -f2; }

# The shell in the pane records iashim-top's exit status where we can read it.
tmux_ new-session -d -x 80 -y 24 -s top \
  "$(printf '%q --pub %q; echo $? > %q' "$top_bin" "$endpoint" "$tmp/rc")" ||
  fail "cannot start tmux"
size=$(tmux_ display-message -p -t top '#{pane_width}x#{pane_height}')
[[ $size == 80x24 ]] || fail "pane is $size, not 80x24"

echo "1. before the coordinator: waiting message"
wait_for "waiting for coordinator at ipc://"

echo "2. publisher up: job rows"
"$publisher_bin" "$endpoint" 60 &
publisher_pid=$!
wait_for "gpt2-opp"
wait_for "bad [1-9]"  # the publisher's junk is counted, and dropped
capture
# At 80 columns BUDGET, BASE and RUN give way so that JOB keeps its names whole.
for job in resnet50-guar bert-large-guar gpt2-opp; do
  expect_on_screen "^$job +[0-9]+ (guar|opp) +conn "
done
for header in JOB PID PRIO STATE SHARE KERN/S BUSY% SLOWDN MEM; do
  expect_on_screen "(^| )$header"
done
expect_on_screen "node-a:0 Simulated H200 +busy [0-9]+%"
expect_on_screen "coordinator 0.1.0-test"

echo "3. nothing wider or taller than the terminal"
lines=$(wc -l <<<"$screen")
((lines <= 24)) || fail "$lines lines on a 24-line terminal"
widest=$(awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }' <<<"$screen")
((widest <= 80)) || fail "a line of $widest columns on an 80-column terminal"

echo "4. live: the snapshot sequence moves on"
first_seq=$(footer_seq)
[[ -n $first_seq ]] || fail "no 'seq N' in the footer"
deadline=$((SECONDS + wait_seconds))
while capture && [[ $(footer_seq) == "$first_seq" ]]; do
  ((SECONDS < deadline)) || fail "seq stuck at $first_seq"
  sleep 0.2
done

echo "5. s moves the sort mark from JOB to SHARE"
expect_on_screen "JOB\^"
expect_on_screen "sort \[job asc\]"
tmux_ send-keys -t top s
wait_for "SHAREv"
expect_on_screen "sort \[share desc\]"
grep -q "JOB^" <<<"$screen" && fail "JOB still carries the sort mark"

echo "5b. ? shows the legend in place of the table, ? again goes back"
tmux_ send-keys -t top '?'
wait_for "BUSY% +its part of the GPU's busy time"
expect_on_screen "\? table"
tmux_ send-keys -t top '?'
wait_for "^gpt2-opp "

echo "6. resized to 110x24: the baseline's source, the run's slowdown and the budget's age come back"
tmux_ resize-window -t top -x 110 -y 24
wait_for "(^| )BASE "
expect_on_screen "(^| )RUN "
expect_on_screen "(^| )BUDGET"

echo "7. resized to 60x16 (SIGWINCH): columns dropped, nothing wider"
tmux_ resize-window -t top -x 60 -y 16
wait_for "^JOB +PRIO"  # PID (and BUDGET) gone
lines=$(wc -l <<<"$screen")
((lines <= 16)) || fail "$lines lines on a 16-line terminal"
widest=$(awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }' <<<"$screen")
((widest <= 60)) || fail "a line of $widest columns on a 60-column terminal"
expect_on_screen "^gpt2-opp "

echo "8. publisher gone: stale"
kill "$publisher_pid"
wait "$publisher_pid" 2>/dev/null
publisher_pid=""
wait_for "stale \([0-9]+s\)"

echo "9. q quits with status 0"
tmux_ send-keys -t top q
deadline=$((SECONDS + wait_seconds))
until [[ -s $tmp/rc ]]; do
  ((SECONDS < deadline)) || fail "iashim-top still running ${wait_seconds}s after q"
  sleep 0.2
done
rc=$(<"$tmp/rc")
[[ $rc == 0 ]] || fail "iashim-top exited with $rc"

echo "PASS"
