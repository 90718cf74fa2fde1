#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# The record of times in the future (clockfix learn, the daemon at NTP synchronisation, and what
# status and set make of it), on real ext4 images:
# - learn records exactly the values later than the true time, with what clears each; again, it
#   writes nothing (no open for writing at all: strace); started while another writer holds the
#   record's lock, it reads the record once that one has written it; without its state directory,
#   it says what to do and makes nothing;
# - status and set do not use a recorded value, read from --state-dir or, as an initramfs reads it,
#   from /var/lib/clockfix/future-times inside the unmounted image; the next best source wins;
# - a value rewritten since (a later fsck) counts again; a stale entry is dropped at the next write;
# - a corrupt, truncated, huge or hostile record is ignored with a warning, never fatal; a symbolic
#   link there is not followed, nor anything but a regular file opened;
# - the daemon records at synchronisation (timesyncd's flag), and writes nothing on a normal one;
# - --state-dir is honoured under a systemd unit that is not clockfix's (INVOCATION_ID set).
. "$SRCDIR/tests/lib/lib.sh"

W=1800000000             # 2027-01-15: when the disk was last written
F=$((W + 315576000))     # ten years later: the last check of a boot whose clock was wrong
NOW=$((W + 600))         # the true time when NTP answered
state=$TMP/state
mkdir -p "$state"
img=$TMP/f.img
mkimg "$img" "$W" 16M -t ext4
stamp "$img" "$W" "ssv lastcheck @$F" "ssv mtime @$((W + 100))"
uuid=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Filesystem UUID: *//p')
COMMON=(--device "$img" --config /dev/null)
iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
verdict() { jqo ".sources[] | select(.source == \"$1\") | .verdict"; }
record_id() { stat -c '%i %Y %s' "$1"; }
# NOLEAKS COMMAND...: runs COMMAND with LeakSanitizer off (in a sanitizer build), which cannot run under strace
NOLEAKS() { ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$@"; }

############################################################################
# Before any record: the last check, ten years ahead, is the estimate.
cf status --json "${COMMON[@]}" --now "@$NOW" --state-dir "$state"
assert_eq "$RC" 0 "status, no record: exit"
assert_eq "$(jqo .source) $(verdict superblock:last_check)" "superblock:last_check plausible" "no record: the last check wins"
assert_eq "$(jqo '.devices[0].future_record | "\(.found) \(.error) \(.entries | length)"')" "false null 0" "no record: none found"

############################################################################
# learn, with the true time given: the last check is recorded, exactly, and nothing else.
before=$("$FINGERPRINT" "$img")
rc=0
"$CLOCKFIX" learn "${COMMON[@]}" --now "@$NOW" --state-dir "$state" 2>"$TMP/learn.err" || rc=$?
err=$(cat "$TMP/learn.err")
assert_eq "$rc" 0 "learn: exit"
assert_eq "$("$FINGERPRINT" "$img")" "$before" "learn changed nothing on the disk"
assert_match "$err" "superblock:last_check of $img is $(iso "$F"), 3652 d [0-9 hmins]+ ahead of NTP's time: recorded in $state/future-times; not used while the disk holds it \(to clear it for good: run tune2fs -T now $img\)" \
        "learn names the value, how far ahead, and the fix"
assert_match "$err" "Recorded 1 new time\(s\) in $state/future-times" "learn says what it wrote"
[ "$(grep -c 'ahead of NTP' <<<"$err")" == 1 ] || fail "learn logged other times than the last check: $err"
assert_eq "$(grep -v '^#' "$state/future-times")" "clockfix-future-times 1
$uuid superblock:last_check ${F}000000 $(iso "$F")" "the record holds the exact value"
[ ! -e "$state/future-times.new" ] || fail "the temporary file was left behind"

# Run by a systemd unit other than clockfix's own (INVOCATION_ID set, the process in no unit of
# clockfix): --state-dir is honoured; only clockfix.service and clockfix-learn.service, whose
# sandboxes let them write in /var/lib/clockfix alone, refuse it (tests/vm/test-systemd.sh).
mkdir -p "$TMP/ustate"
rc=0
INVOCATION_ID=0123456789abcdef0123456789abcdef "$CLOCKFIX" learn "${COMMON[@]}" --now "@$NOW" \
        --state-dir "$TMP/ustate" 2>"$TMP/learn.err" || rc=$?
assert_eq "$rc" 0 "learn with INVOCATION_ID: exit ($(cat "$TMP/learn.err"))"
assert_match "$(cat "$TMP/learn.err")" "Recorded 1 new time\(s\) in $TMP/ustate/future-times" "learn with INVOCATION_ID: recorded"

# Again: nothing new, so nothing written, nothing even opened for writing.
id=$(record_id "$state/future-times")
rc=0
NOLEAKS strace -f -qq -o "$TMP/learn.trace" -e trace=open,openat,openat2,creat,rename,renameat,renameat2,unlink,unlinkat,mkdir,write \
        "$CLOCKFIX" learn "${COMMON[@]}" --now "@$((NOW + 60))" --state-dir "$state" 2>"$TMP/learn.err" || rc=$?
assert_eq "$rc" 0 "learn again: exit"
assert_match "$(cat "$TMP/learn.err")" "recorded already in $state/future-times" "learn again: known"
assert_eq "$(record_id "$state/future-times")" "$id" "learn again: the record is not rewritten"
bad=$(awk '/O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|rename|unlink|mkdir\(/ { print; next }
        /write\(/ { split($2, a, /[(,]/); if (a[2] != "2") print }' "$TMP/learn.trace")
[ -z "$bad" ] || fail "learn with nothing new wrote: $bad"

# Two writers at once (the daemon's synchronisation, clockfix learn by hand): a learn that starts
# while the other holds the record's lock reads the record once the other has written it, and
# adds to that. Here the other writes what learn would, once learn says it waits for the lock:
# learn finds it recorded, writes nothing.
mkdir -p "$TMP/two"
: >"$TMP/learn.err"
cat >"$TMP/holder.sh" <<EOS
touch '$TMP/two.locked'
i=0
until grep -q 'is being written by another process: waiting for it, 30 s at most' '$TMP/learn.err'; do
        [ \$((i += 1)) -le 1200 ] || exit 1
        sleep 0.1
done
cp '$state/future-times' '$TMP/two/future-times' && stat -c %i '$TMP/two/future-times' >'$TMP/two.inode'
EOS
setsid -w flock "$TMP/two" bash "$TMP/holder.sh" &
holder=$!
at_exit '[ -z "$holder" ] || kill -- -"$holder" 2>/dev/null || true'
wait_until 120 test -e "$TMP/two.locked" || fail "flock never took the lock"
"$CLOCKFIX" learn "${COMMON[@]}" --now "@$NOW" --state-dir "$TMP/two" 2>"$TMP/learn.err" &
rc=0
wait $! || rc=$?
wait "$holder" || fail "the other writer failed (learn never waited for the lock)"
holder=""
assert_eq "$rc" 0 "learn beside another writer: exit"
assert_match "$(cat "$TMP/learn.err")" "recorded already in $TMP/two/future-times" \
        "learn beside another writer: read what that one wrote"
assert_eq "$(stat -c %i "$TMP/two/future-times")" "$(cat "$TMP/two.inode")" \
        "learn beside another writer: the record is not rewritten"

# A state directory that is not there: no lock, nothing written, and the write says what to do.
rc=0
"$CLOCKFIX" learn "${COMMON[@]}" --now "@$NOW" --state-dir "$TMP/none" 2>"$TMP/learn.err" || rc=$?
assert_eq "$rc" 1 "learn, no state directory: exit"
assert_match "$(cat "$TMP/learn.err")" \
        "Cannot write $TMP/none/future-times: No such file or directory \(create its directory, or give --state-dir\)" \
        "learn, no state directory: what to do"
assert_match "$(cat "$TMP/learn.err")" \
        "superblock:last_check of $img is $(iso "$F"), 3652 d [0-9 hmins]+ ahead of NTP's time: not recorded, $TMP/none/future-times could not be written; boots go on taking it \(to clear it for good: run tune2fs -T now $img\)" \
        "learn, no state directory: the time is said to be not recorded"
! grep -q "recorded in" "$TMP/learn.err" || fail "learn, no state directory: a time said recorded: $(cat "$TMP/learn.err")"
[ ! -e "$TMP/none" ] || fail "learn, no state directory: $TMP/none was made"

############################################################################
# The next boot: the recorded value is not used; the last mount, the next best, is.
cf status --json "${COMMON[@]}" --now "@$W" --state-dir "$state"
assert_eq "$RC" 0 "status with the record: exit"
assert_eq "$(verdict superblock:last_check)" future_at_last_sync "the recorded value's verdict"
assert_eq "$(jqo '.sources[] | select(.source == "superblock:last_check") | .plausible')" false "not plausible"
assert_eq "$(jqo .source) $(jqo .estimate)" "superblock:last_mount $((W + 100))" "the next best source wins"
assert_eq "$(jqo '.devices[0].future_record | "\(.path) \(.found) \(.live) \(.entries[0].source) \(.entries[0].time) \(.entries[0].on_disk)"')" \
        "$state/future-times true true superblock:last_check $F true" "status --json: the record"
cf status "${COMMON[@]}" --now "@$W" --state-dir "$state"
assert_match "$OUT" "superblock:last_check +$(iso "$F") +in the future at the last sync" "status: the verdict in the table"
assert_match "$OUT" "Record $state/future-times: 1 time\(s\) in the future at the last sync" "status: the record"
assert_match "$OUT" "superblock:last_check $(iso "$F"): still on the disk" "status: its entry"
cf set --dry-run "${COMMON[@]}" --now "@$W" --state-dir "$state"
assert_eq "$RC" 0 "set --dry-run: exit"
assert_match "$ERR" "$img: superblock:last_check $(iso "$F") was in the future at the last NTP synchronisation: not used \(to clear it for good: run tune2fs -T now $img\)" \
        "set explains the value it passes over"
assert_match "$ERR" "Would move clock forward from [^ ]+ to $(iso $((W + 101))) \(\+101 s\) from superblock:last_mount of $img" \
        "set: from the next best source"

# As an initramfs reads it: inside the unmounted image, through libext2fs, by the dynamic and
# the static builds.
stamp "$img" "$W" "mkdir var" "mkdir var/lib" "mkdir var/lib/clockfix" \
        "write $state/future-times var/lib/clockfix/future-times"
for program in "$CLOCKFIX" "$CLOCKFIX_STATIC" "$CLOCKFIX_NOBLKID"; do
        CLOCKFIX=$program cf status --json "${COMMON[@]}" --now "@$W"
        assert_eq "$RC $(verdict superblock:last_check) $(jqo .source)" "0 future_at_last_sync superblock:last_mount" \
                "$(basename "$program"): the record inside the image"
        assert_eq "$(jqo '.devices[0].future_record | "\(.path) \(.live) \(.entries | length)"')" \
                "/var/lib/clockfix/future-times false 1" "$(basename "$program"): read from the disk"
done

############################################################################
# A later fsck rewrites the last check: the new value counts again, the entry is no longer on the
# disk; learn with nothing in the future leaves the stale entry until it has something to write.
fsck_at=$((NOW + 3600))
E2FSCK_TIME=$fsck_at E2FSPROGS_FAKE_TIME=$fsck_at e2fsck -fy "$img" >/dev/null 2>&1 || true
[ "$(sb_time "$img" "Last checked")" == "$fsck_at" ] || fail "e2fsck did not rewrite the last check"
cf status --json "${COMMON[@]}" --now "@$W" --state-dir "$state"
# (e2fsck wrote the last write time too, the same second: the first listed of a tie names it)
assert_eq "$(verdict superblock:last_check) $(jqo .estimate)" "plausible $fsck_at" \
        "after fsck: the new value counts again, and makes the estimate"
assert_eq "$(jqo '.devices[0].future_record.entries[0].on_disk')" false "after fsck: the entry is no longer on the disk"
cf status "${COMMON[@]}" --now "@$W" --state-dir "$state"
assert_match "$OUT" "no longer on the disk \(rewritten since\): dropped at the next write" "status: the stale entry"
id=$(record_id "$state/future-times")
"$CLOCKFIX" learn "${COMMON[@]}" --now "@$((fsck_at + 10))" --state-dir "$state" 2>"$TMP/learn.err" ||
        fail "learn after fsck: $(cat "$TMP/learn.err")"
assert_match "$(cat "$TMP/learn.err")" "No time on the disk is in the future: nothing to record" "learn after fsck"
assert_eq "$(record_id "$state/future-times")" "$id" "learn after fsck: nothing written"
# A new value in the future: written, and the stale entry dropped.
stamp "$img" "$fsck_at" "ssv mtime @$((F + 50))"
"$CLOCKFIX" learn "${COMMON[@]}" --now "@$((fsck_at + 10))" --state-dir "$state" 2>"$TMP/learn.err" ||
        fail "learn, a new value: $(cat "$TMP/learn.err")"
assert_eq "$(grep -v '^#' "$state/future-times" | tail -n +2 | cut -d' ' -f2,3)" "superblock:last_mount $((F + 50))000000" \
        "the new value recorded, the stale one dropped"
assert_match "$(cat "$TMP/learn.err")" "to clear it for good: the next read-write mount with the right time rewrites it" \
        "the fix for the last mount"
# learn needs the true time: without --now on a clock that NTP does not keep, it refuses.
if [ "$("$CLOCKFIX" status --json "${COMMON[@]}" | jq -r .ntp_synchronized)" == false ]; then
        rc=0
        "$CLOCKFIX" learn "${COMMON[@]}" --state-dir "$state" 2>"$TMP/learn.err" || rc=$?
        assert_eq "$rc" 1 "learn without NTP: exit"
        assert_match "$(cat "$TMP/learn.err")" "The clock is not synchronised by NTP: nothing tells which of the disk's times are in the future \(wait for NTP, or give --now TIME\); nothing recorded" \
                "learn without NTP: why"
fi

############################################################################
# The slack: a recorded time no more than a minute after the journal's newest commit is used (it
# could put the clock a minute ahead at worst), and set then does not even look the record up;
# further ahead it is passed over. A journal written by the kernel: the image mounted, written,
# unmounted.
sl=$TMP/slack.img
mkimg "$sl" "$(($(date +%s) - 3600))" 16M -t ext4
attach "$sl"
mkdir -p "$TMP/mnt"
mount "$DEV" "$TMP/mnt"
echo data >"$TMP/mnt/file"
sync
umount "$TMP/mnt"
losetup -d "$DEV"
cf status --json --device "$sl" --config /dev/null --now "@$W"
J=$(jqo '.sources[] | select(.source == "journal:last_commit") | .time')
[ -n "$J" ] || fail "no journal commit on $sl: $OUT"
stamp "$sl" "$J" "ssv lastcheck @$((J + 30))"
mkdir -p "$TMP/slack"
# learn with the true time at that commit: the last check, 30 s later, is in the future.
"$CLOCKFIX" learn --device "$sl" --config /dev/null --now "@$J" --state-dir "$TMP/slack" 2>/dev/null ||
        fail "learn (slack)"
grep -q " superblock:last_check $((J + 30))000000 " "$TMP/slack/future-times" || fail "the last check was not recorded"
# into the image, as the boots read it
stamp "$sl" "$J" "mkdir var" "mkdir var/lib" "mkdir var/lib/clockfix" \
        "write $TMP/slack/future-times var/lib/clockfix/future-times"
cf status --json --device "$sl" --config /dev/null --now "@$((J - 100))"
assert_eq "$(verdict superblock:last_check) $(jqo .source) $(jqo .estimate)" "plausible superblock:last_check $((J + 30))" \
        "a recorded time within the slack of the journal's commit is used"
assert_eq "$(jqo '.devices[0].future_record.entries | map(select(.source == "superblock:last_check")) | .[0].on_disk')" true \
        "status still reads and shows the record"
cf set --dry-run -v --device "$sl" --config /dev/null --now "@$((J - 100))"
assert_match "$ERR" "/var/lib/clockfix/future-times not looked up: no time is more than 60 s later than the journal's newest plausible commit" \
        "set does not look the record up"
assert_match "$ERR" "from superblock:last_check of $sl" "set: from the last check"
stamp "$sl" "$J" "ssv lastcheck @$((J + 120))"
"$CLOCKFIX" learn --device "$sl" --config /dev/null --now "@$J" --state-dir "$TMP/slack" 2>/dev/null ||
        fail "learn (slack, again)"
stamp "$sl" "$J" "rm var/lib/clockfix/future-times" "write $TMP/slack/future-times var/lib/clockfix/future-times"
cf set --dry-run --device "$sl" --config /dev/null --now "@$((J - 100))"
assert_match "$ERR" "superblock:last_check $(iso $((J + 120))) was in the future at the last NTP synchronisation: not used" \
        "two minutes after the journal's commit: passed over"
# A journal commit that the record lists (a disk whose newest commits a wrong clock made, with no
# commit at the true time after them) is no reference: every recorded time is passed over.
mkdir -p "$TMP/slack2"
"$CLOCKFIX" learn --device "$sl" --config /dev/null --now "@$((J - 100))" --state-dir "$TMP/slack2" 2>/dev/null ||
        fail "learn (the commit in the future)"
grep -q " journal:last_commit " "$TMP/slack2/future-times" || fail "the journal's commit was not recorded"
cf status --json --device "$sl" --config /dev/null --now "@$((J - 200))" --state-dir "$TMP/slack2"
assert_eq "$(verdict journal:last_commit) $(verdict superblock:last_check)" "future_at_last_sync future_at_last_sync" \
        "a recorded commit is no reference"

############################################################################
# Bad records: each ignored with a warning naming it; the last check, ten years ahead, is used as
# if there were none (nothing is trusted or distrusted because of a broken file).
bad_img=$TMP/b.img
mkimg "$bad_img" "$W" 16M -t ext4
stamp "$bad_img" "$W" "ssv lastcheck @$F"
buuid=$(dumpe2fs -h "$bad_img" 2>/dev/null | sed -n 's/^Filesystem UUID: *//p')
good="clockfix-future-times 1
$buuid superblock:last_check ${F}000000"
bad=$TMP/bad
mkdir -p "$bad"
try_bad() {
        local what=$1 warning=$2
        cf set --dry-run --device "$bad_img" --config /dev/null --now "@$W" --state-dir "$bad"
        assert_eq "$RC" 0 "$what: exit"
        assert_match "$ERR" "$bad/future-times: $warning" "$what: the warning"
        assert_match "$ERR" "from superblock:last_check of $bad_img" "$what: the record is ignored"
}
echo "garbage" >"$bad/future-times"
try_bad "no header" "its first line is not \"clockfix-future-times 1\": ignored"
head -c 30000 /dev/zero | tr '\0' '#' >"$bad/future-times"
try_bad "huge" "larger than clockfix ever writes it \(16 KiB\): ignored"
{ echo "clockfix-future-times 1"; for i in $(seq 65); do echo "$buuid file:/f$i $i"; done; } >"$bad/future-times"
try_bad "too many entries" "more entries than clockfix ever writes: ignored"
printf '%s' "$good" | head -c $((${#good} - 9)) | tr -d '\n' >"$bad/future-times"
try_bad "truncated before its entry ended" "its first line is not"
printf 'clockfix-future-times 1\n%s' "$(tail -n 1 <<<"$good" | head -c 40)" >"$bad/future-times"
try_bad "truncated in its entry" "1 line\(s\) not understood, passed over \(the first: line 2\)"
{ echo "clockfix-future-times 1"; printf '%s\0 superblock:last_check %s000000\n' "$buuid" "$F"; head -c 4000 /dev/urandom | tr -d '\n'; echo; } >"$bad/future-times"
try_bad "NUL and binary" "2 line\(s\) not understood"
rm -f "$bad/future-times"
mkdir "$bad/future-times"
try_bad "a directory" "not a regular file: ignored"
rmdir "$bad/future-times"
# A symbolic link is not followed, nor is anything but a regular file opened (a link to
# /dev/watchdog, opened, would arm it): a link to a FIFO, and a FIFO, each with a writer blocked
# until a reader opens it (fifo_trap).
fifo_trap "$TMP/fifo"
ln -s "$TMP/fifo" "$bad/future-times"
try_bad "a link to a FIFO" "a symbolic link: not followed: ignored"
fifo_untouched "$TMP/fifo" || fail "a link to a FIFO: clockfix opened the FIFO"
rm -f "$bad/future-times"
fifo_trap "$bad/future-times"
try_bad "a FIFO" "not a regular file: ignored"
fifo_untouched "$bad/future-times" || fail "a FIFO: clockfix opened it"
fifo_traps_done
rm -f "$bad/future-times"
ln -s /dev/zero "$bad/future-times"
try_bad "a link to a device" "a symbolic link: not followed: ignored"
rm -f "$bad/future-times"
# Inside the image, a link to a record that lists the last check is not followed either.
printf '%s\n' "$good" >"$TMP/good"
stamp "$bad_img" "$W" "mkdir var" "mkdir var/lib" "mkdir var/lib/clockfix" "write $TMP/good var/lib/good" \
        "symlink var/lib/clockfix/future-times /var/lib/good"
cf set --dry-run --device "$bad_img" --config /dev/null --now "@$W"
assert_eq "$RC" 0 "a link inside the image: exit"
assert_match "$ERR" "/var/lib/clockfix/future-times: a symbolic link: not followed: ignored" "a link inside the image"
assert_match "$ERR" "from superblock:last_check of $bad_img" "a link inside the image: the record is ignored"
stamp "$bad_img" "$W" "rm var/lib/clockfix/future-times" "rm var/lib/good"
# Inside the image: too large is not even read.
head -c 30000 /dev/zero | tr '\0' '#' >"$TMP/huge"
stamp "$bad_img" "$W" "write $TMP/huge var/lib/clockfix/future-times"
cf set --dry-run --device "$bad_img" --config /dev/null --now "@$W"
assert_eq "$RC" 0 "huge inside the image: exit"
assert_match "$ERR" "/var/lib/clockfix/future-times: larger than clockfix ever writes it \(16 KiB\): ignored" "huge inside the image"
# learn replaces a corrupt record once it has something to record.
echo "garbage" >"$bad/future-times"
"$CLOCKFIX" learn --device "$bad_img" --config /dev/null --now "@$W" --state-dir "$bad" 2>"$TMP/learn.err" ||
        fail "learn over a corrupt record: $(cat "$TMP/learn.err")"
assert_match "$(cat "$TMP/learn.err")" "its first line is not .*: ignored, and replaced by what is found now" "learn over a corrupt record"
assert_eq "$(grep -v '^#' "$bad/future-times" | cut -d' ' -f1-3)" "$good" "learn over a corrupt record: replaced"

############################################################################
# The daemon, at NTP synchronisation (timesyncd's flag, in a private /run/systemd): a disk time
# ten years ahead of the host's clock is recorded. It is after --not-after here, so the daemon
# (without CAP_SYS_TIME) leaves the clock alone; being later than NTP's time is what counts.
now=$(date +%s)
mkimg "$TMP/d.img" "$((now - 86400))" 16M -t ext4
stamp "$TMP/d.img" "$((now - 86400))" "ssv lastcheck @$((now + 315576000))"
cat >"$TMP/sync.sh" <<'SH'
set -e
mount -t tmpfs tmpfs /run/systemd
mkdir /run/systemd/timesync
"$@" &
daemon=$!
while sleep 1 && kill -0 "$daemon" 2>/dev/null; do touch /run/systemd/timesync/synchronized; done
wait "$daemon"
SH
NOCAP=(setpriv --inh-caps=-sys_time --bounding-set=-sys_time)
DAEMON=(daemon --config /dev/null --not-before "@$((now - 2 * 86400))" --not-after "@$((now + 86400))" --save-interval 0)
mkdir -p "$TMP/dstate"
rc=0
timeout 60 unshare -m --propagation private bash "$TMP/sync.sh" "${NOCAP[@]}" "$CLOCKFIX" "${DAEMON[@]}" \
        --device "$TMP/d.img" --state-dir "$TMP/dstate" 2>"$TMP/d.err" || rc=$?
d=$(cat "$TMP/d.err")
assert_eq "$rc" 0 "daemon: exit"
assert_match "$d" "superblock:last_check of $TMP/d.img is $(iso $((now + 315576000))), 3652 d [0-9 hmins]+ ahead of NTP's time: recorded in $TMP/dstate/future-times" \
        "daemon: the value in the future, at synchronisation"
assert_match "$d" "Recorded 1 new time\(s\) in $TMP/dstate/future-times" "daemon: recorded"
assert_match "$d" "Clock synchronised by NTP \(timesyncd\)" "daemon: the synchronisation entry"
assert_eq "$(grep -v '^#' "$TMP/dstate/future-times" | tail -n 1 | cut -d' ' -f2,3)" \
        "superblock:last_check $((now + 315576000))000000" "daemon: the record"

# A normal synchronisation (nothing in the future): the daemon opens nothing for writing, renames
# and removes nothing; it writes only its log, to stderr.
mkimg "$TMP/n.img" "$((now - 86400))" 16M -t ext4
mkdir -p "$TMP/nstate"
rc=0
NOLEAKS timeout 60 unshare -m --propagation private bash "$TMP/sync.sh" strace -f -qq -o "$TMP/daemon.trace" \
        -e trace=open,openat,openat2,creat,rename,renameat,renameat2,unlink,unlinkat,mkdir,write,pwrite64,statx \
        "${NOCAP[@]}" "$CLOCKFIX" "${DAEMON[@]}" --device "$TMP/n.img" --state-dir "$TMP/nstate" 2>"$TMP/n.err" || rc=$?
assert_eq "$rc" 0 "normal sync: exit"
assert_match "$(cat "$TMP/n.err")" "Clock synchronised by NTP \(timesyncd\)" "normal sync: synchronised"
bad=$(awk '/O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|rename|unlink|mkdir\(/ { print; next }
        /write\(|pwrite64\(/ { split($2, a, /[(,]/); if (a[2] != "2") print }' "$TMP/daemon.trace")
[ -z "$bad" ] || fail "a normal synchronisation wrote: $bad"
# (it looks at what is at the path before it opens anything: there is nothing)
grep -qE "statx\(AT_FDCWD, \"$TMP/nstate/future-times\", [A-Z_|]*AT_SYMLINK_NOFOLLOW" "$TMP/daemon.trace" ||
        fail "the daemon did not look at the record at synchronisation"
[ ! -e "$TMP/nstate/future-times" ] || fail "a normal synchronisation made a record"
echo ok
