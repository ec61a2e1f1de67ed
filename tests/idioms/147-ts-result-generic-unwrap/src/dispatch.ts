import { Point, locate, normalize } from './geocode';

const DEPOT: Point = { lat: 53.4808, lon: -2.2426 };

function km(a: Point, b: Point): number {
  const rad = Math.PI / 180;
  const x = (b.lon - a.lon) * rad * Math.cos(((a.lat + b.lat) / 2) * rad);
  const y = (b.lat - a.lat) * rad;
  return Math.round(Math.sqrt(x * x + y * y) * 63710) / 10;
}

export class Dispatcher {
  private readonly failed: string[] = [];

  constructor(private readonly fallback: Point = DEPOT) {}

  summary(): void {
    if (this.failed.length) console.warn(`${this.failed.length} order(s) routed by the fallback: ${this.failed.join(', ')}`);
    else console.info('every order geocoded');
  }

  route(orderId: string, postcode: string): number {
    const where = normalize(postcode).andThen(locate);
    where.match({
      ok: (p) => console.log(`${orderId}: ${postcode} geocoded to ${p.lat.toFixed(3)},${p.lon.toFixed(3)}`),
      err: (e) => {
        this.failed.push(orderId);
        console.error(`${orderId}: cannot geocode (${e.message})`);
      },
    });
    const distance = where.map((p) => km(DEPOT, p)).unwrapOr(km(DEPOT, this.fallback));
    if (distance > 250) console.warn(`${orderId}: ${distance.toFixed(0)} km from the depot, long-haul van`);
    return distance;
  }
}
