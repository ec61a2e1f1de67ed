#!/usr/bin/env bash
# make demo: index the bundled orderflow application (Python back end,
# TypeScript/TSX storefront, JavaScript scripts), show what pmrag found, and
# run personalized PageRank and impact on the graph.
# Later stages of the demo (event log, live predictions) build on this graph.
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
