import { test } from 'node:test';
import assert from 'node:assert';
import { Converter } from './converter';
import { MockRateFeed } from './__mocks__/feed';

function logged(fn: () => void): string[] {
  const lines: string[] = [];
  const saved = console.log;
  console.log = (msg: string) => { lines.push(msg); };
  try {
    fn();
  } finally {
    console.log = saved;
  }
  return lines;
}

test('converts with the feed rate', () => {
  const lines = logged(() => new Converter(new MockRateFeed()).convert(10, 'EUR', 'USD'));
  assert.deepStrictEqual(lines, ['feed: fetched 2 rates for EUR from mock://rates', 'converter: 10 EUR = 11.00 USD']);
});

test('refuses amounts over the limit', () => {
  console.warn('converter: 5000 EUR exceeds the limit of 100 (expected below)');
  assert.strictEqual(new Converter(new MockRateFeed(), 100).convert(5000, 'EUR', 'USD'), undefined);
});

test('reports a missing rate', () => {
  const c = new Converter(new MockRateFeed());
  assert.strictEqual(c.convert(1, 'EUR', 'JPY'), undefined);
  console.log(`converter: no rate from EUR to JPY is the expected error`);
});
