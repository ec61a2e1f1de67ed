#!/usr/bin/env bash
# deploy/ checked against pmrag itself: every pmrag configuration under
# deploy/ (the Kubernetes ConfigMap's too) loads with pmrag's own loader;
# the Dockerfile, compose and Collector files, Kubernetes manifests and
# systemd unit agree with those configurations and with `ldd pmrag`; and
# pmrag serve runs with the compose configuration against pmrag kafka-mock
# (the Dockerfile's HEALTHCHECK, /livez, /readyz, OTLP/HTTP and Kafka in,
# SIGTERM). No container engine or Kubernetes is needed; systemd-analyze,
# kubectl and kcat are used when present. The checks themselves are in
# deploy_check.py.
#
#   tests/integration/deploy_check.sh PMRAG [TOPDIR]
set -uo pipefail
pmrag=${1:?pmrag binary}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=${2:-$(cd "$here/../.." && pwd)}
# Debian's python3 with python3-yaml (deploy/deps.sh installs both).
py=${PYTHON:-/usr/bin/python3}
if ! "$py" -c 'import yaml' 2>/dev/null; then
  echo "FAIL $py cannot import yaml: install python3-yaml (deploy/deps.sh)"
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$py" "$here/deploy_check.py" "$pmrag" "$top" "$work"
