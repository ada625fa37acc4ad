# Scripts/stages.sh: sourced by .ci/run and Scripts/deep-check.sh, to time each stage of a run.
#
#   stage NAME    ends the stage before (printing its line) and starts NAME
#
# A stage prints `CI stage NAME: N s` as it ends (the prefix is $STAGE_PREFIX, "CI" unless set);
# the one running when the script stops on an error prints `... N s (failed)`; the run ends with
# `CI total: N s`. So a slow stage is seen at once in the log, and a failed one is named.
STAGE_PREFIX=${STAGE_PREFIX:-CI}
stage_name=""
stage_started=$SECONDS
stage_end() {
    [ -n "$stage_name" ] &&
        echo "$STAGE_PREFIX stage $stage_name: $((SECONDS - stage_started)) s${1:+ ($1)}"
    stage_name=""
}
stage() {
    stage_end
    stage_name=$1
    stage_started=$SECONDS
}
stages_exit() {
    local status=$?
    if [ "$status" -ne 0 ]; then
        stage_end failed
        echo "$STAGE_PREFIX total: $SECONDS s (exit $status)"
    else
        stage_end
        echo "$STAGE_PREFIX total: $SECONDS s"
    fi
    exit "$status"
}
# Killed (a timeout, a closed session, ^C): the stage running is named as killed, never printed as
# if it had ended well (bash runs the EXIT trap then with the status of the last command).
stages_signal() {
    trap - EXIT
    stage_end "killed by SIG$1"
    echo "$STAGE_PREFIX total: $SECONDS s (killed by SIG$1)"
    exit $((128 + $2))
}
trap stages_exit EXIT
trap 'stages_signal HUP 1' HUP
trap 'stages_signal INT 2' INT
trap 'stages_signal TERM 15' TERM
