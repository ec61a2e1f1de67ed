#!/usr/bin/env bash
# make demo: index the bundled orderflow application (Python back end,
# TypeScript/TSX storefront, JavaScript scripts), show what pmrag found, and
# run personalized PageRank and impact on the graph.
# Then: the application's event log (its simulator runs its real code paths),
# the mapping of events to code, eval against the baselines, a mined model
# and a query with explanations.
#
#   deploy/demo/run.sh [PMRAG] [OUTDIR]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
pmrag=${1:-$top/build/cmd/pmrag}
out=${2:-$top/build/demo}
mkdir -p "$out"
graph=$out/orderflow.graph

if [ -t 1 ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold='' plain=''; fi
step() { printf '\n%s$ %s%s\n' "$bold" "$*" "$plain"; }

step pmrag index deploy/demo/app -o build/demo/orderflow.graph
"$pmrag" index "$here/app" -o "$graph"

step pmrag graph stats build/demo/orderflow.graph
"$pmrag" graph stats "$graph"

step "pmrag symbols build/demo/orderflow.graph --kind class,method | grep OrderService"
"$pmrag" symbols "$graph" --kind class,method | grep 'OrderService' | head -12

step pmrag graph show build/demo/orderflow.graph OrderService.place_order
"$pmrag" graph show "$graph" OrderService.place_order

step pmrag graph show build/demo/orderflow.graph CardGateway
"$pmrag" graph show "$graph" payments.CardGateway | head -20

step "pmrag symbols build/demo/orderflow.graph | grep web/src/clients"
"$pmrag" symbols "$graph" | grep 'web/src/clients' | head -8

# Diffusion over the code graph alone (the event log joins it later): what
# place_order reaches, and why.
step pmrag ppr --graph build/demo/orderflow.graph --seed OrderService.place_order -k 5 --explain
"$pmrag" ppr --graph "$graph" --seed OrderService.place_order -k 5 --explain

step pmrag impact build/demo/orderflow.graph PriceCalculator.quote
"$pmrag" impact "$graph" PriceCalculator.quote

# The event log: 600 orders through the real code paths (seeded, simulated
# clock), with the emitting file and line of every record as truth.
log=$out/orderflow.csv
step python3 -m orderflow.simulate --orders 600 --seed 7 --out build/demo/orderflow.csv
(cd "$here/app/python" && python3 -m orderflow.simulate --orders 600 --seed 7 --out "$log" | tail -4)

step "pmrag map --graph build/demo/orderflow.graph --log build/demo/orderflow.csv --top 6"
"$pmrag" map --graph "$graph" --log "$log" --top 6 -q

step pmrag eval --graph build/demo/orderflow.graph --log build/demo/orderflow.csv
"$pmrag" eval --graph "$graph" --log "$log" -q

model=$out/orderflow.model
step pmrag mine --graph build/demo/orderflow.graph --log build/demo/orderflow.csv -o build/demo/orderflow.model
"$pmrag" mine --graph "$graph" --log "$log" -o "$model" -q

step "pmrag query --graph build/demo/orderflow.graph --model build/demo/orderflow.model --trace 'POST /orders,order.place' -e 'placing order ord_1 for customer cus_9: 2 line(s), paying by card' -k 3 --explain"
"$pmrag" query --graph "$graph" --model "$model" --trace 'POST /orders,order.place' \
  -e 'placing order ord_1 for customer cus_9: 2 line(s), paying by card' -k 3 --explain
