#!/usr/bin/env bash
# Python with the OpenTelemetry SDK: what runs the demo application, which
# traces through the OpenTelemetry API, and its simulator, which installs
# the SDK's tracer provider.
#
#   deploy/otel-python.sh ARG...    like python3 ARG...
#
# Installs the SDK into .deps/otel-venv first if it is missing or the pinned
# set changed (deploy/deps.sh --otel; its notes go to stderr, so that the
# standard output stays the program's), then runs that venv's python. Fails,
# saying why, when the SDK cannot be installed: nothing falls back to a
# python without it.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$top/deploy/deps.sh" --otel >&2 || {
  echo "otel-python: the OpenTelemetry SDK could not be installed into ${PMRAG_DEPS_DIR:-$top/.deps}/otel-venv (deploy/deps.sh --otel)" >&2
  exit 1
}
exec "${PMRAG_DEPS_DIR:-$top/.deps}/otel-venv/bin/python" "$@"
