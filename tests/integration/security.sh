#!/usr/bin/env bash
# Exposure of pmrag serve, as an operator sets it up:
#  - both listeners default to loopback;
#  - a bearer token and TLS on both listeners (a certificate made here with
#    openssl, checked by curl --cacert): 401 without the token or with a
#    wrong one, 200 with it, the health probes open, /metrics behind it;
#  - errors about the token, certificate and key files name the file;
#  - no secret (the token, the TLS key, Kafka SASL/TLS passwords given in
#    kafka.properties) in anything pmrag prints: logs, `pmrag config`,
#    error messages, /metrics, the ready file.
#
#   security.sh PMRAG SOURCE_DIR [WORK_DIR]
set -euo pipefail
usage="usage: security.sh PMRAG SOURCE_DIR [WORK_DIR]"
pmrag=${1:?$usage}
src=${2:?$usage}
work=${3:-}
# shellcheck source=tests/integration/lib.sh
. "$src/tests/integration/lib.sh"
need openssl curl
work_init
work_clean '*'
# Everything pmrag prints goes to out/ (the daemons' logs and ready files
# too), which is searched for the secrets at the end.
mkdir -p "$work/out"
out=$work/out

# Secrets, each recognisable wherever it might leak.
token=tok-$(od -An -tx1 -N12 /dev/urandom | tr -d ' \n')
sasl_pw=sasl-pw-7f3a9c0e
key_pw='key-pw-51be22d4'
ob_secret=ob-secret-9d2e6a1f
pem_secret=pemsecretc0ffee4711
noeq_secret=noeq-secret-4b1d8e
printf '%s\n' "$token" >"$work/token"
chmod 600 "$work/token"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
  -keyout "$work/tls.key" -out "$work/tls.crt" -days 2 -subj /CN=localhost \
  -addext subjectAltName=IP:127.0.0.1,DNS:localhost 2>/dev/null || fail "openssl req"
chmod 600 "$work/tls.key"
# A line of the private key's base64: key material, should it be printed.
key_line=$(grep -v -- '-----' "$work/tls.key" | head -1)
secrets=("$token" "$sasl_pw" "$key_pw" "$ob_secret" "$pem_secret" "$noeq_secret" "$key_line")

"$pmrag" index "$src/tests/fixtures/repos/shop" -o "$work/shop.graph" -q || fail "pmrag index"

# 1. Loopback by default.
[[ $("$pmrag" config --get otlp.listen) == 127.0.0.1:4318 ]] || fail "otlp.listen default is not 127.0.0.1:4318"
[[ $("$pmrag" config --get api.listen) == 127.0.0.1:8318 ]] || fail "api.listen default is not 127.0.0.1:8318"
pass "listeners default to 127.0.0.1:4318 and 127.0.0.1:8318"
# No Kafka unless asked: the embedded cluster keeps acknowledged input in
# memory only, so it is never what a daemon gets by default.
[[ $("$pmrag" config --get kafka.embedded) == false ]] || fail "kafka.embedded default is not false"

# 2. pmrag config shows kafka.properties without its secret values.
props="security.protocol=SASL_SSL;sasl.mechanisms=PLAIN;sasl.username=pmrag;sasl.password=$sasl_pw;ssl.key.password=$key_pw;$noeq_secret;ssl.ca.location=/etc/ssl/ca.pem"
log_watch "$out/config.err"
"$pmrag" config --set "kafka.properties=$props" --set otlp.token_file="$work/token" \
  >"$out/config.txt" 2>"$out/config.err" || fail "pmrag config"
grep -qF 'sasl.password=<redacted>;ssl.key.password=<redacted>;<redacted>;ssl.ca.location=/etc/ssl/ca.pem' "$out/config.txt" ||
  fail "pmrag config: kafka.properties not redacted as expected: $(grep properties "$out/config.txt")"
grep -qF 'sasl.username=pmrag' "$out/config.txt" || fail "pmrag config: non-secret properties hidden too"
"$pmrag" config --set "kafka.properties=$props" --get kafka.properties >"$out/config_get.txt" || fail "config --get"
grep -qF 'sasl.password=<redacted>' "$out/config_get.txt" || fail "config --get kafka.properties: not redacted"
printf 'kafka:\n  properties: "sasl.password=%s;sasl.oauthbearer.config=principal=%s"\n' \
  "$sasl_pw" "$ob_secret" >"$work/pmrag.yaml"
"$pmrag" config --config "$work/pmrag.yaml" >"$out/config_file.txt" || fail "pmrag config --config"
grep -qF "properties: \"sasl.password=<redacted>;sasl.oauthbearer.config=<redacted>\"  # $work/pmrag.yaml:2" \
  "$out/config_file.txt" || fail "pmrag config --config: $(grep properties "$out/config_file.txt")"
pass "pmrag config redacts secret kafka.properties (dump, --get, from a file)"

# 3. The daemon with a token and TLS on both listeners; the embedded Kafka
# given secret-looking properties it accepts and does not use.
start() { # start NAME --set ... ; waits for its ready file, out/NAME.ready
  local name=$1
  shift
  rm -rf "$work/state"
  serve_start "out/$name" --graph "$work/shop.graph" --set state.dir="$work/state" \
    --set otlp.listen=127.0.0.1:0 --set api.listen=127.0.0.1:0 "$@"
  serve_wait "out/$name" 30
  otlp=$(ready_field "out/$name" otlp_http)
  api=$(ready_field "out/$name" api)
}
start tls \
  --set otlp.token_file="$work/token" --set otlp.tls_cert="$work/tls.crt" --set otlp.tls_key="$work/tls.key" \
  --set api.token_file="$work/token" --set api.tls_cert="$work/tls.crt" --set api.tls_key="$work/tls.key" \
  --set "kafka.properties=sasl.username=pmrag;sasl.password=$sasl_pw;ssl.key.password=$key_pw;sasl.oauthbearer.config=principal=$ob_secret"
[[ $api == 127.0.0.1:* && $otlp == 127.0.0.1:* ]] || fail "ready file: $api $otlp"
grep -qF '(HTTPS, bearer token)' "$out/tls.err" || fail "the log does not say the listeners are HTTPS with a token"
grep -qF 'Kafka off: no kafka.brokers' "$out/tls.err" || fail "no brokers: the log does not say Kafka is off"
grep -qF 'kafka.properties ignored: Kafka is off' "$out/tls.err" || fail "kafka.properties without Kafka: no warning"
[[ $(ready_field out/tls kafka_bootstrap 2>/dev/null || true) == "" ]] || fail "no brokers, yet a Kafka address in the ready file"
pass "no kafka.brokers: Kafka off by default, and said"

cc=(curl -s --cacert "$work/tls.crt" -o /dev/null -w '%{http_code}')
auth=(-H "Authorization: Bearer $token")
code() { # code WANT WHAT CURL-ARGS...
  local want=$1 what=$2 got
  shift 2
  got=$("${cc[@]}" "$@" || true)
  [[ $got == "$want" ]] || fail "$what: $got, not $want"
}
code 200 "/livez without a token" "https://$api/livez"
code 200 "/readyz without a token" "https://$api/readyz"
code 401 "/metrics without a token" "https://$api/metrics"
code 401 "/v1/cases without a token" "https://$api/v1/cases/sec-1"
code 401 "/v1/cases with a wrong token" -H "Authorization: Bearer wrong-$token" "https://$api/v1/cases/sec-1"
code 401 "/v1/cases with the token as Basic" -H "Authorization: Basic $token" "https://$api/v1/cases/sec-1"
code 404 "/v1/cases with the token (no such case yet)" "${auth[@]}" "https://$api/v1/cases/sec-1"
code 404 "/v1/cases with 'bearer' in lower case" -H "Authorization: bearer $token" "https://$api/v1/cases/sec-1"
code 000 "plain HTTP to the HTTPS API" "http://$api/livez"
code 000 "HTTPS without the CA" --cacert /dev/null "https://$api/livez"
curl -s --cacert "$work/tls.crt" -D "$out/401.head" -o /dev/null "https://$api/v1/cases/x" || true
grep -qi '^WWW-Authenticate: Bearer realm="pmrag"' "$out/401.head" || fail "no WWW-Authenticate: Bearer on 401"
pass "API over HTTPS: probes open, 401 without or with a wrong token, the token works"

span='{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"1112131415161718","name":"checkout","startTimeUnixNano":"1700000000000000000","attributes":[{"key":"case.id","value":{"stringValue":"sec-1"}}]}]}]}]}'
post=(-X POST -H 'Content-Type: application/json' --data-binary "$span")
curl -s --cacert "$work/tls.crt" -D "$out/otlp401.head" -o /dev/null "${post[@]}" "https://$otlp/v1/traces" || true
grep -q '^HTTP/[0-9.]* 401' "$out/otlp401.head" || fail "OTLP without a token: $(head -1 "$out/otlp401.head")"
! grep -qi '^Retry-After' "$out/otlp401.head" || fail "OTLP 401 carries Retry-After (it is final)"
code 401 "OTLP with a wrong token" -H "Authorization: Bearer x$token" "${post[@]}" "https://$otlp/v1/traces"
code 200 "OTLP with the token" "${auth[@]}" "${post[@]}" "https://$otlp/v1/traces"
code 200 "/v1/cases after the OTLP export" "${auth[@]}" "https://$api/v1/cases/sec-1"
curl -fsS --cacert "$work/tls.crt" "${auth[@]}" -o "$out/metrics.txt" "https://$api/metrics" ||
  fail "GET /metrics with the token"
grep -q '^pmrag_events_in_total{source="otlp_http"} 1$' "$out/metrics.txt" || fail "/metrics: the OTLP event is not counted"
pass "OTLP/HTTP over HTTPS: 401 (no Retry-After) without the token, 200 with it"
code 401 "POST /v1/admin/reload without a token" -X POST "https://$api/v1/admin/reload"
code 405 "GET /v1/admin/reload" "${auth[@]}" "https://$api/v1/admin/reload"
code 202 "POST /v1/admin/reload with the token" "${auth[@]}" -X POST "https://$api/v1/admin/reload"
for _ in $(seq 100); do
  grep -q 'reading the graph and the model' "$out/tls.err" && break
  sleep 0.1
done
grep -q 'reading the graph and the model' "$out/tls.err" || fail "POST /v1/admin/reload: no reload began"
pass "POST /v1/admin/reload with the token reloads as SIGHUP does"
stop "$pid"

# /metrics open to scrapers when asked; the rest still closed.
start metrics_open --set api.token_file="$work/token" --set api.metrics_open=true
curl -fsS -o /dev/null "http://$api/metrics" || fail "api.metrics_open: /metrics not open"
code 401 "api.metrics_open: /v1/query without a token" -X POST -d '{}' "http://$api/v1/query"
stop "$pid"
pass "api.metrics_open opens /metrics only"

# Admin routes need a token: an open API refuses them.
start open_api
code 403 "POST /v1/admin/reload on an API without a token" -X POST "http://$api/v1/admin/reload"
stop "$pid"
pass "an API without a token refuses its admin routes (403)"

# 4. Kafka with SASL that fails (the embedded broker has no SASL): the
# errors are logged, the password is not.
rm -rf "$work/state"
log_watch "$out/sasl.err"
"$pmrag" serve --graph "$work/shop.graph" --set state.dir="$work/state" \
  --set otlp.listen=127.0.0.1:0 --set api.listen=127.0.0.1:0 --set kafka.embedded=true \
  --set otlp.grpc_listen=127.0.0.1:0 \
  --set "kafka.properties=security.protocol=SASL_PLAINTEXT;sasl.mechanisms=PLAIN;sasl.username=pmrag;sasl.password=$sasl_pw" \
  2>"$out/sasl.err" &
pid=$!
track "$pid"
for _ in $(seq 150); do running "$pid" || break; sleep 0.1; done
term "$pid" || true
grep -q 'SASL' "$out/sasl.err" || fail "no SASL error logged"
grep -qF "warning: embedded Kafka (librdkafka's mock cluster) at 127.0.0.1:" "$out/sasl.err" &&
  grep -qF 'everything it acknowledged is lost when pmrag stops' "$out/sasl.err" ||
  fail "kafka.embedded=true: no warning that it keeps nothing"
pass "Kafka SASL failure logged"

# 5. Refused configurations: the messages name the property or the file,
# never the secret.
refused() { # refused NAME WANT --set ...
  local name=$1 want=$2
  shift 2
  rm -rf "$work/state"
  log_watch "$out/$name.err"
  if "$pmrag" serve --graph "$work/shop.graph" --set state.dir="$work/state" \
    --set otlp.listen=127.0.0.1:0 --set api.listen=127.0.0.1:0 --set otlp.grpc_listen=127.0.0.1:0 \
    "$@" 2>"$out/$name.err" >/dev/null; then
    fail "$name: serve started"
  fi
  grep -qF -- "$want" "$out/$name.err" || fail "$name: no '$want' in: $(tail -1 "$out/$name.err")"
}
refused pem "kafka" --set kafka.embedded=true --set "kafka.properties=security.protocol=SSL;ssl.key.pem=-----BEGIN PRIVATE KEY-----
$pem_secret
-----END PRIVATE KEY-----"
refused noeq "kafka property #2: expected key=value" --set kafka.embedded=true --set "kafka.properties=client.id=x;$noeq_secret"
refused no_token "token_file $work/nonexistent: No such file or directory" --set api.token_file="$work/nonexistent"
printf 'half %s\n' "$token" >"$work/bad_token"
refused bad_token "token_file $work/bad_token: byte 4 is a space" --set otlp.token_file="$work/bad_token"
refused no_cert "tls_cert $work/none.crt: No such file or directory" \
  --set api.tls_cert="$work/none.crt" --set api.tls_key="$work/tls.key"
refused no_key "tls_cert $work/tls.crt given without tls_key" --set otlp.tls_cert="$work/tls.crt"
refused key_as_cert "tls_cert $work/tls.key: no PEM certificate" \
  --set otlp.tls_cert="$work/tls.key" --set otlp.tls_key="$work/tls.key"
pass "refused configurations name the property or the file"

# 6. Nothing printed anywhere holds a secret.
for s in "${secrets[@]}"; do
  if hits=$(grep -rlF -- "$s" "$out"); then
    fail "a secret (${s:0:6}...) is printed in: $hits"
  fi
done
outs=("$out"/*)
echo "${#outs[@]} outputs searched for ${#secrets[@]} secrets: none found"
finish
