#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# set --boot does its work in a child that the foreground process waits for at most --wait and
# 30 s: what the child says and its exit status are the command's, and a child that makes no
# progress (stopped here while it waits for its device, as a read that never returns holds it in
# the kernel) is killed at the limit, which is said, and the boot goes on (exit 1). Only
# --dry-run: the host's clock is never touched.
. "$SRCDIR/tests/lib/lib.sh"

POLICY=(--not-before 2026-01-01 --now 2000-01-01 --config /dev/null --cmdline "$TMP/cmdline")
: >"$TMP/cmdline"
mkimg "$TMP/ok.img" 1790000000 16M -t ext4

# 1. The child's messages and exit status are the command's.
cf set --boot --dry-run --device "$TMP/ok.img" "${POLICY[@]}"
assert_eq "$RC" 0 "a sane disk: exit ($ERR)"
assert_match "$ERR" "Would move clock forward from 2000-01-01T00:00:00Z to 2026-09-21T" "a sane disk: the decision"
cf set --boot --dry-run --device "$TMP/none.img" "${POLICY[@]}"
assert_eq "$RC" 3 "no device: the child's exit status ($ERR)"

# 2. A child that makes no progress: stopped while it waits for a device that is not there.
fg_pid=
cleanup_limit() {
        [ -z "$fg_pid" ] || kill -KILL "$fg_pid" 2>/dev/null || true
        [ -z "${child:-}" ] || kill -KILL "$child" 2>/dev/null || true
}
at_exit cleanup_limit
"$CLOCKFIX" set --boot --dry-run --wait 10 --device "$TMP/late.img" "${POLICY[@]}" 2>"$TMP/limit.err" &
fg_pid=$!
child=
# the child: the one process whose parent is the foreground (under qemu-user, qemu's own fork)
find_child() { child=$(pgrep -P "$fg_pid" | head -n 1) && [ -n "$child" ]; }
wait_until 60 find_child || fail "no child of the foreground process: $(cat "$TMP/limit.err")"
kill -STOP "$child"
rc=0
wait_exit "$fg_pid" 300 || rc=$?
fg_pid=
assert_eq "$rc" 1 "a stuck child: the foreground's exit ($(cat "$TMP/limit.err"))"
assert_match "$(cat "$TMP/limit.err")" "The clock was not set within 40 s \(a device that does not answer\?\): stopped, the boot goes on without it" \
        "a stuck child: said"
# gone, or a zombie until whatever adopted it reaps it
ended() { [ ! -e "/proc/$1" ] || grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
wait_until 30 ended "$child" || fail "the stuck child was not killed"
child=
echo "ok"
