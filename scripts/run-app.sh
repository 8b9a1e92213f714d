#!/usr/bin/env bash
# Usage: scripts/run-app.sh [--offscreen-check] [FILES...]
#
# Installs the dependencies (scripts/install-deps.sh), builds the app (scripts/build.sh build) and
# starts build/gui/aclgraph-inspector with the given arguments. With no FILES the app opens the
# bundled samples in resources/samples/.
#
# Needs a display ($DISPLAY or $WAYLAND_DISPLAY). Without one:
#   --offscreen-check   start the app under xvfb-run for a few seconds (ACLGI_CHECK_SECONDS,
#                       default 10) and report whether it stayed up: a smoke test, nothing is shown.
#   QT_QPA_PLATFORM=... if set, the display check is skipped and Qt uses that platform plugin.
# Headless subcommands (`simulate FILE --json`, ...) need no display; run the binary directly:
#   build/gui/aclgraph-inspector simulate resources/samples/<file>.json --json
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

offscreen_check=0
if [[ "${1:-}" == --offscreen-check ]]; then
    offscreen_check=1
    shift
fi

scripts/install-deps.sh
ACLGI_TARGETS=aclgraph-inspector scripts/build.sh build

app=build/gui/aclgraph-inspector
if [[ ! -x "$app" ]]; then
    echo "run-app.sh: $app was not built (is gui/ part of the build?)" >&2
    exit 1
fi

if [[ $offscreen_check -eq 1 ]]; then
    if ! command -v xvfb-run >/dev/null 2>&1; then
        echo "run-app.sh: --offscreen-check needs xvfb-run (package xvfb)" >&2
        exit 1
    fi
    secs=${ACLGI_CHECK_SECONDS:-10}
    echo "run-app.sh: starting $app under xvfb-run for ${secs}s"
    rc=0
    # timeout runs inside xvfb-run so that xvfb-run still shuts its X server down afterwards.
    xvfb-run -a timeout "$secs" "$app" "$@" || rc=$?
    if [[ $rc -eq 124 ]]; then
        echo "run-app.sh: offscreen check passed (the app was still running after ${secs}s)"
        exit 0
    elif [[ $rc -eq 0 ]]; then
        echo "run-app.sh: offscreen check passed (the app exited with status 0)"
        exit 0
    fi
    echo "run-app.sh: offscreen check FAILED (the app exited with status $rc)" >&2
    exit 1
fi

if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" && -z "${QT_QPA_PLATFORM:-}" ]]; then
    cat >&2 <<MSG
run-app.sh: no display (\$DISPLAY and \$WAYLAND_DISPLAY are unset), so the window cannot be shown.
The app is built: $root/$app
  - on a desktop session, run this script (or the binary) from a terminal there;
  - over ssh, use X forwarding (ssh -X) or a remote desktop;
  - to check that it starts without a display:  scripts/run-app.sh --offscreen-check
    (or by hand: xvfb-run -a $app)
MSG
    exit 2
fi

exec "$app" "$@"
