import { RateFeed } from './feed';

export class Converter {
  private cache = new Map<string, Map<string, number>>();

  constructor(private readonly feed: RateFeed, private readonly maxAmount = 1_000_000) {}

  private ratesFor(base: string): Map<string, number> {
    let rates = this.cache.get(base);
    if (!rates) {
      rates = this.feed.fetch(base);
      this.cache.set(base, rates);
    } else {
      console.debug(`converter: rates for ${base} from cache`);
    }
    return rates;
  }

  convert(amount: number, from: string, to: string): number | undefined {
    if (amount > this.maxAmount) {
      console.warn(`converter: ${amount} ${from} exceeds the limit of ${this.maxAmount}`);
      return undefined;
    }
    const rate = this.ratesFor(from).get(to);
    if (rate === undefined) {
      console.error(`converter: no rate from ${from} to ${to}`);
      return undefined;
    }
    const out = Math.round(amount * rate * 100) / 100;
    console.log(`converter: ${amount} ${from} = ${out.toFixed(2)} ${to}`);
    return out;
  }
}
