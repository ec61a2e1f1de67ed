#!/usr/bin/env node
/**
 * Summarise an orderflow event log (the CSV written by orderflow.simulate).
 *
 *   node scripts/report.mjs events.csv [--top 15]
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/** Parse one RFC 4180 record; fields may be quoted with doubled quotes inside. */
export function parseCsvLine(line) {
  const fields = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') { field += '"'; i++; }
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') { fields.push(field); field = ''; }
    else field += ch;
  }
  fields.push(field);
  return fields;
}

const pct = (part, whole) => `${((100 * part) / whole).toFixed(1)}%`;

async function summarise(file) {
  const rl = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let header;
  const cases = new Map();
  const bySite = new Map();
  const byLevel = new Map();
  let rows = 0;
  for await (const line of rl) {
    if (!line) continue;
    const fields = parseCsvLine(line);
    if (!header) { header = fields; continue; }
    const row = Object.fromEntries(header.map((name, i) => [name, fields[i]]));
    rows++;
    const c = cases.get(row.case_id) ?? { first: row.timestamp, last: row.timestamp, events: 0 };
    c.last = row.timestamp;
    c.events++;
    cases.set(row.case_id, c);
    const site = `${row['code.filepath']}:${row['code.lineno']} ${row['code.function']}`;
    bySite.set(site, (bySite.get(site) ?? 0) + 1);
    byLevel.set(row.level, (byLevel.get(row.level) ?? 0) + 1);
  }
  return { rows, cases, bySite, byLevel };
}

const [file, ...rest] = process.argv.slice(2);
if (!file) {
  console.error('usage: node scripts/report.mjs events.csv [--top N]');
  process.exit(2);
}
const top = Number(rest[rest.indexOf('--top') + 1] ?? 15) || 15;
const { rows, cases, bySite, byLevel } = await summarise(file);

const durations = [...cases.values()].map((c) => (Date.parse(c.last) - Date.parse(c.first)) / 3_600_000);
durations.sort((a, b) => a - b);
const median = durations[Math.floor(durations.length / 2)] ?? 0;

console.log(`${file}: ${rows} events in ${cases.size} cases (${(rows / Math.max(1, cases.size)).toFixed(1)} per case)`);
console.log(`median case duration ${median.toFixed(1)} h, longest ${(durations.at(-1) ?? 0).toFixed(1)} h`);
console.log(`levels: ${[...byLevel].map(([level, n]) => `${level} ${pct(n, rows)}`).join(', ')}`);
console.log(`\ntop ${top} emitting lines of ${bySite.size}:`);
for (const [site, n] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`  ${String(n).padStart(7)}  ${site}`);
}
