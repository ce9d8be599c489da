#!/bin/bash
# racecheck-mode.sh — stands in for compute-sanitizer in dev1.sh: runs
# $KC_REAL_SANITIZER with the session's words, racecheck's report mode
# changed by $KC_RACE_MODE: analysis (as the gate asks), hazard
# (--racecheck-report hazard), warn (analysis, --racecheck-detect-level warn).
a=()
for x in "$@"; do
  if [ "$x" = analysis ]; then
    case $KC_RACE_MODE in hazard) x=hazard;; warn) a+=(analysis --racecheck-detect-level); x=warn;; esac
  fi
  a+=("$x")
done
exec "$KC_REAL_SANITIZER" "${a[@]}"
