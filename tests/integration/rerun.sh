#!/usr/bin/env bash
# rerun.sh SCRIPT ARG...: runs SCRIPT ARG..., and once more if it exits
# 75: the test's mock Kafka cluster (librdkafka's, a test device, not
# pmrag) died under it (lib.sh's mock_alive says so, with the cluster's
# last words). A second death fails the test like any other failure.
"$@"
rc=$?
if ((rc == 75)); then
  echo "${1##*/}: the mock cluster died, not pmrag: running the test once more" >&2
  "$@"
  rc=$?
fi
exit "$rc"
