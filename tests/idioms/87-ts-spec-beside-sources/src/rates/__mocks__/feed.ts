import { RateFeed } from '../feed';

// A feed for the specs: fixed rates, logged like the real one.
export class MockRateFeed implements RateFeed {
  fetch(base: string): Map<string, number> {
    const rates = new Map([['EUR', 1], ['USD', 1.1]]);
    console.log(`feed: fetched ${rates.size} rates for ${base} from mock://rates`);
    return rates;
  }
}
