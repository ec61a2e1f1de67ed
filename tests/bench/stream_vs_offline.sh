#!/usr/bin/env bash
# Streaming equals offline: the test split of a log replayed through
# `pmrag serve` (model bootstrapped from the train split, no online
# learning, code.* attributes not used) against `pmrag predict` on the same
# split, both scored by the benchmark's scorer.
#
#   stream_vs_offline.sh PMRAG SOURCE_DIR [LOG] [WORK]
# LOG defaults to ../shared/bench/botocore.csv.gz (code: botocore).
set -euo pipefail
pmrag=$1
src=$2
log=${3:-$src/../shared/bench/botocore.csv.gz}
work=${4:-$(mktemp -d)}
code=${CODE_DIR:-/usr/lib/python3/dist-packages/botocore}
score=${SCORE:-$src/../shared/bench/score.py}
tool="python3 $src/tests/bench/stream_vs_offline.py"
[[ -f $log && -f $score ]] || { echo "stream_vs_offline: no $log or $score: skipped"; exit 0; }
mkdir -p "$work"
rm -rf "$work/state" "$work/ready.json"
"$pmrag" index "$code" -o "$work/code.graph" -q
$tool split "$log" "$work"

echo "== offline: pmrag predict"
"$pmrag" predict --graph "$work/code.graph" --log "$log" -q -o "$work/offline.jsonl"
python3 "$score" "$log" "$work/offline.jsonl" --out "$work/offline.json" >/dev/null
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('offline top-1 %.4f top-3 %.4f mrr %.4f n %d' % (r['top_k']['1'], r['top_k']['3'], r['mrr'], r['n']))" "$work/offline.json"

echo "== streaming: pmrag serve"
"$pmrag" serve --graph "$work/code.graph" -q \
  --set state.dir="$work/state" --set otlp.listen= --set otlp.grpc_listen= --set api.listen=127.0.0.1:0 \
  --set model.bootstrap_log="$work/train.csv" --set model.learn_online=false \
  --set map.code_attrs=false --set kafka.input_topics=events --set kafka.partitions=8 \
  --set kafka.output_encoding=json --set kafka.embedded=true --ready-file "$work/ready.json" &
pid=$!
trap 'kill -9 $pid 2>/dev/null || true' EXIT
for _ in $(seq 600); do [[ -s $work/ready.json ]] && break; sleep 0.1; done
boot=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['kafka_bootstrap'])" "$work/ready.json")
want=$(wc -l <"$work/test.kcat")
t0=$(date +%s.%N)
kcat -P -b "$boot" -t events -K $'\t' <"$work/test.kcat"
for _ in $(seq 600); do
  kcat -C -b "$boot" -t pmrag_predictions -o beginning -e -q -f '%k\t%s\n' >"$work/stream.tsv" 2>/dev/null || true
  [[ $(wc -l <"$work/stream.tsv") -ge $want ]] && break
  sleep 0.5
done
t1=$(date +%s.%N)
kill -TERM $pid
wait $pid || true
trap - EXIT
$tool predictions "$work/stream.tsv" "$work/stream.jsonl"
python3 "$score" "$log" "$work/stream.jsonl" --out "$work/stream.json" >/dev/null
python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('streaming top-1 %.4f top-3 %.4f mrr %.4f n %d' % (r['top_k']['1'], r['top_k']['3'], r['mrr'], r['n']))" "$work/stream.json"
python3 - "$work/offline.json" "$work/stream.json" "$want" "$t0" "$t1" <<'PY'
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
d = abs(a["top_k"]["1"] - b["top_k"]["1"]) * 100
n, t0, t1 = int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
print("top-1 difference %.2f pp (goal <= 0.5); %d events replayed in %.1f s" % (d, n, t1 - t0))
sys.exit(0 if d <= 0.5 else 1)
PY
