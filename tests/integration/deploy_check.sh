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
# shellcheck source=tests/integration/lib.sh
. "$here/lib.sh"
# Debian's python3 with python3-yaml (deploy/deps.sh installs both).
py=${PYTHON:-/usr/bin/python3}
"$py" -c 'import yaml' 2>/dev/null || fail "$py cannot import yaml: install python3-yaml (deploy/deps.sh)"
work=
work_init
"$py" "$here/deploy_check.py" "$pmrag" "$top" "$work"
