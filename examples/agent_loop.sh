#!/usr/bin/env bash
# A minimal agent loop driving Remaind through its CLI only (docs/guide.md).
#
# It plays two turns of a coding agent in a fresh temporary folder: log what happens, ask the
# monitor whether to compact, compact through the validator, resume from the packet, and react
# to every exit code the way a real loop should. CI runs it end to end; it exits 0 only when
# every step behaved as documented.
#
#   REMAIND=target/debug/remaind bash examples/agent_loop.sh
#   KEEP=1 bash examples/agent_loop.sh      # keep the folder for inspection
#
# Needs bash and coreutils; no jq, no Python.
set -euo pipefail

REMAIND="${REMAIND:-remaind}"
work="$(mktemp -d "${TMPDIR:-/tmp}/remaind-loop.XXXXXX")"
export REMAIND_DIR="$work/.context"
if [[ "${KEEP:-0}" == 1 ]]; then
    echo "keeping $work"
else
    trap 'rm -rf "$work"' EXIT
fi

step() { printf '\n== %s\n' "$*"; }
fail() { printf 'agent_loop: FAILED: %s\n' "$*" >&2; exit 1; }

# run WANT CMD...: run a remaind command and insist on its exit code.
run() {
    local want="$1"; shift
    local got=0
    "$REMAIND" "$@" || got=$?
    [[ "$got" == "$want" ]] || fail "remaind $* exited $got, expected $want"
}

# log ARGS...: append one event and print its id (e.g. e7). Exit 2 means the event was
# invalid and nothing was written: a loop fixes its input, it never retries blindly.
log() {
    local out code=0
    out="$("$REMAIND" log "$@")" || code=$?
    [[ "$code" == 0 ]] || fail "remaind log $* exited $code"
    grep -oE '\be[0-9]+\b' <<<"$out" | head -n 1
}

# monitor_says TOKENS: the band for the token count the model reports.
monitor_says() {
    "$REMAIND" monitor --used "$1" --json | grep -oE '"band" *: *"[a-z]+"' | grep -oE '[a-z]+"$' | tr -d '"'
}

# compact_now: compact with the built-in compactor. 0 = accepted; 3 = rejected (the prior
# state is untouched, a `validation` event says why: keep working and compact later or use
# another compactor); 1 = runtime failure (stop, a person must look).
compact_now() {
    local code=0
    "$REMAIND" compact || code=$?
    case "$code" in
        0) echo "compaction accepted" ;;
        3) echo "compaction rejected; the prior state stands" ;;
        *) fail "remaind compact exited $code" ;;
    esac
    return 0
}

# resume_packet: print the packet into the next context. 0 = go on; 4 = the gate interrupts
# (show the reasons to the user, do not run the planned tool); anything else: stop.
resume_packet() {
    local code=0
    "$REMAIND" resume --budget 8000 >"$work/packet.md" || code=$?
    case "$code" in
        0) ;;
        4) fail "the resume gate interrupted: $(cat "$work/packet.md")" ;;
        *) fail "remaind resume exited $code" ;;
    esac
}

step "init"
run 0 init

step "turn 1: the user asks, the agent works"
ask1="Add retries to the uploader; keep the public API unchanged."
log --kind user_message --actor user --text "$ask1" >/dev/null
log --kind tool_call --tool shell --text "cargo test -p uploader" >/dev/null
# A large tool output goes to artifacts/ (over artifact_threshold_bytes in thresholds.json).
for i in $(seq 1 600); do echo "test upload::case_$i ... ok (attempt 1/3, 503 then 200)"; done >"$work/test.log"
log --kind tool_result --tool shell --text "cargo test -p uploader: 600 passed" --output-file "$work/test.log" >/dev/null
fixed="$(log --kind decision --text "Retry 3 times with a fixed 500 ms delay")"
log --kind correction --supersedes "$fixed" --text "Exponential backoff with jitter, max 5 tries" >/dev/null
log --kind remember --text "Never log presigned URLs" >/dev/null
log --kind file_change --text "src/upload.rs: retry loop around put_object" >/dev/null
log --kind result --text "Uploader retries 5xx with exponential backoff; tests pass" >/dev/null
next1="$(log --kind next_step --text "Document the backoff in docs/uploader.md")"

step "monitor: the model reports its context use"
band="$(monitor_says 130000)"
echo "band: $band"
[[ "$band" == warning ]] || fail "130000 of 200000 tokens should be the warning band, got '$band'"
case "$band" in
    normal) ;;                          # keep working
    warning | hard | emergency) compact_now ;;  # warning: soon; hard/emergency: now
esac

step "resume in a fresh context"
resume_packet
grep -qF "$ask1" "$work/packet.md" || fail "the packet lacks the latest user instruction"
echo "packet: $(wc -c <"$work/packet.md") bytes, latest instruction present"

step "turn 2: a newer instruction, more work"
ask2="Also document UPLOAD_MAX_TRIES in the README."
log --kind user_message --actor user --text "$ask2" >/dev/null
log --kind file_change --text "docs/uploader.md: Retries section" >/dev/null
log --kind result --resolves "$next1" --text "Backoff documented" >/dev/null
log --kind next_step --text "Open the pull request" >/dev/null

step "resume before compacting: the newer instruction comes from the ledger"
resume_packet
grep -qF "$ask2" "$work/packet.md" || fail "the packet lacks the newer instruction"

step "compact again, then verify"
band="$(monitor_says 170000)"
[[ "$band" == hard ]] || fail "170000 of 200000 tokens should be the hard band, got '$band'"
compact_now
run 0 verify
run 0 resume --budget 8000 >/dev/null

step "a bad candidate is rejected with exit 3 and changes nothing"
mkdir -p "$work/bad"
cp "$REMAIND_DIR/active/state.json" "$work/bad/state.json"
cp "$REMAIND_DIR/active/handover.md" "$work/bad/handover.md"
# Paraphrase the latest instruction, as a careless summarizer would.
sed -i.orig "s/Also document UPLOAD_MAX_TRIES in the README\./Document the env var./" "$work/bad/state.json" "$work/bad/handover.md"
before="$(cksum <"$REMAIND_DIR/active/state.json")"
run 3 compact --candidate "$work/bad"
[[ "$(cksum <"$REMAIND_DIR/active/state.json")" == "$before" ]] || fail "a rejected candidate changed state.json"

step "invalid input is exit 2 and writes nothing"
lines="$(wc -l <"$REMAIND_DIR/logs/events.jsonl")"
run 2 log --kind no_such_kind --text "x"
run 2 log --kind correction --text "a correction must supersede something"
[[ "$(wc -l <"$REMAIND_DIR/logs/events.jsonl")" == "$lines" ]] || fail "invalid input was written"

printf '\nagent_loop: OK\n'
