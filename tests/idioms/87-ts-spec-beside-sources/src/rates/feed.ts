export interface RateFeed {
  fetch(base: string): Map<string, number>;
}

export class HttpRateFeed implements RateFeed {
  constructor(private readonly url: string, private readonly table: Record<string, Record<string, number>>) {}

  fetch(base: string): Map<string, number> {
    const rates = this.table[base] ?? {};
    console.log(`feed: fetched ${Object.keys(rates).length} rates for ${base} from ${this.url}`);
    return new Map(Object.entries(rates));
  }
}
