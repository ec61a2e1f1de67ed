#!/usr/bin/env node
/**
 * Seed the storefront with demo carts.
 *
 *   DEBUG=orderflow:seed node scripts/seed.js --carts 50 --seed 7 [--post http://localhost:3000]
 *
 * Without --post the carts are written to fixtures/carts.json.
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const debug = require('debug')('orderflow:seed');

const PRODUCTS = [
  { sku: 'KB-104', weight: 5 },
  { sku: 'MS-ERG', weight: 8 },
  { sku: 'MN-27Q', weight: 3 },
  { sku: 'HS-ANC', weight: 5 },
  { sku: 'DK-USB4', weight: 2 },
  { sku: 'CB-C2C', weight: 9 },
  { sku: 'DS-ELEC', weight: 1 },
  { sku: 'GC-050', weight: 2 },
];

/** Small deterministic PRNG so fixtures are reproducible. */
exports.mulberry32 = function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

function pickWeighted(items, rand) {
  const total = items.reduce((sum, item) => sum + item.weight, 0);
  let roll = rand() * total;
  for (const item of items) {
    roll -= item.weight;
    if (roll < 0) return item;
  }
  return items[items.length - 1];
}

exports.buildCarts = function buildCarts(count, seed) {
  const rand = exports.mulberry32(seed);
  const carts = [];
  for (let i = 0; i < count; i++) {
    const lines = new Map();
    const size = 1 + Math.floor(rand() * 3);
    while (lines.size < size) {
      const product = pickWeighted(PRODUCTS, rand);
      lines.set(product.sku, { sku: product.sku, quantity: rand() < 0.85 ? 1 : 2 });
    }
    carts.push({
      cartId: `cart_${String(i + 1).padStart(5, '0')}`,
      customerId: `cus_${String(1 + Math.floor(rand() * 240)).padStart(5, '0')}`,
      items: [...lines.values()],
    });
  }
  debug('built %d carts from seed %d', carts.length, seed);
  return carts;
};

async function postCarts(baseUrl, carts) {
  let failed = 0;
  for (const cart of carts) {
    for (const item of cart.items) {
      const res = await fetch(`${baseUrl}/carts/${cart.cartId}/items`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-customer-id': cart.customerId },
        body: JSON.stringify(item),
      });
      if (!res.ok) {
        failed++;
        console.warn(`seed: ${cart.cartId} ${item.sku} -> HTTP ${res.status}`);
      }
    }
  }
  return failed;
}

function parseArgs(argv) {
  const args = { carts: 50, seed: 7, post: null, out: path.join(__dirname, '..', 'fixtures', 'carts.json') };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in args)) throw new Error(`unknown option --${key}`);
    args[key] = typeof args[key] === 'number' ? Number(argv[i + 1]) : argv[i + 1];
  }
  return args;
}

async function main(argv) {
  const args = parseArgs(argv);
  const carts = exports.buildCarts(args.carts, args.seed);
  const products = new Set(carts.flatMap((c) => c.items.map((i) => i.sku)));
  debug('seeded %d products across %d carts', products.size, carts.length);
  if (args.post) {
    const failed = await postCarts(args.post, carts);
    console.log(`posted ${carts.length} carts to ${args.post} (${failed} item(s) failed)`);
    return failed === 0 ? 0 : 1;
  }
  fs.mkdirSync(path.dirname(args.out), { recursive: true });
  fs.writeFileSync(args.out, `${JSON.stringify(carts, null, 2)}\n`);
  console.log(`wrote ${carts.length} carts to ${path.relative(process.cwd(), args.out)}`);
  return 0;
}

module.exports.main = main;

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => { process.exitCode = code; },
    (err) => {
      console.error(`seed failed: ${err.message}`);
      process.exitCode = 2;
    },
  );
}
