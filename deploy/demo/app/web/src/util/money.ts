import type { Cart, CartLine, CurrencyCode } from '../types';

const SYMBOLS: Record<CurrencyCode, string> = { USD: '$', CAD: 'CA$', GBP: '£' };

/** 12345 -> "$123.45"; negative amounts get a leading minus. */
export const formatMoney = (cents: number, currency: CurrencyCode = 'USD'): string => {
  if (!Number.isInteger(cents)) {
    console.warn(`formatMoney called with fractional cents (${cents}); rounding`);
    cents = Math.round(cents);
  }
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100).toLocaleString('en-US');
  const frac = String(abs % 100).padStart(2, '0');
  return `${sign}${SYMBOLS[currency]}${whole}.${frac}`;
};

/** "$1,234.50" or "1234.5" -> 123450. Throws on anything else. */
export const parseMoney = (text: string): number => {
  const cleaned = text.replace(/[^0-9.-]/g, '');
  if (!/^-?\d+(\.\d{1,2})?$/.test(cleaned)) {
    throw new RangeError(`not a money amount: ${JSON.stringify(text)}`);
  }
  const [whole, frac = ''] = cleaned.split('.');
  const sign = whole.startsWith('-') ? -1 : 1;
  return sign * (Math.abs(Number(whole)) * 100 + Number(frac.padEnd(2, '0')));
};

export const sumCents = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

export const lineTotal = (line: CartLine): number => line.unitPriceCents * line.quantity;

export const cartSubtotal = (cart: Cart): number => sumCents(cart.lines.map(lineTotal));

/** Percentage of an amount, rounded half to even like the back end does. */
export function applyPercent(cents: number, percent: number): number {
  const exact = (cents * percent) / 100;
  const floor = Math.floor(exact);
  const diff = exact - floor;
  if (Math.abs(diff - 0.5) < 1e-9) return floor % 2 === 0 ? floor : floor + 1;
  return Math.round(exact);
}

/**
 * Split an amount in proportion to weights without losing a cent: the
 * remainder goes to the largest fractional parts.
 */
export function allocate(cents: number, weights: readonly number[]): number[] {
  const total = sumCents(weights);
  if (total <= 0) throw new RangeError('allocate needs a positive total weight');
  const exact = weights.map((w) => (cents * w) / total);
  const parts = exact.map(Math.floor);
  let remainder = cents - sumCents(parts);
  const order = exact
    .map((value, index) => ({ index, frac: value - Math.floor(value) }))
    .sort((a, b) => b.frac - a.frac);
  for (const { index } of order) {
    if (remainder <= 0) break;
    parts[index] += 1;
    remainder -= 1;
  }
  return parts;
}
