// Kitchen units: grams and millilitres, spoons and cups on the way in.
export type Unit = 'g' | 'ml' | 'tsp' | 'tbsp' | 'cup';

const ML: Record<Exclude<Unit, 'g'>, number> = { ml: 1, tsp: 5, tbsp: 15, cup: 240 };

export interface Quantity {
  amount: number;
  unit: Unit;
}

export function quantity(text: string): Quantity;
export function quantity(amount: number, unit: Unit): Quantity;
export function quantity(a: string | number, unit?: Unit): Quantity {
  if (typeof a === 'number') return { amount: a, unit: unit ?? 'g' };
  const m = /^([\d.]+)\s*(g|ml|tsp|tbsp|cup)s?$/.exec(a.trim());
  if (!m) {
    console.warn(`cannot read the quantity "${a}", taken as 0 g`);
    return { amount: 0, unit: 'g' };
  }
  return { amount: Number(m[1]), unit: m[2] as Unit };
}

export function toMetric(q: Quantity): Quantity {
  if (q.unit === 'g' || q.unit === 'ml') return q;
  const ml = q.amount * ML[q.unit];
  console.debug(`${q.amount} ${q.unit} -> ${ml} ml`);
  return { amount: ml, unit: 'ml' };
}
