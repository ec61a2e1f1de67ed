import { Result, err, ok } from './result';

export class LookupError extends Error {
  override name = 'LookupError';
}

export interface Point {
  lat: number;
  lon: number;
}

const POSTCODES: Record<string, Point> = {
  'EH1 1YZ': { lat: 55.9486, lon: -3.1999 },
  'CF10 1EP': { lat: 51.4816, lon: -3.1791 },
  'BT1 5GS': { lat: 54.5973, lon: -5.9301 },
};

export function normalize(raw: string): Result<string, LookupError> {
  const code = raw.trim().toUpperCase().replace(/\s+/g, ' ');
  if (!/^[A-Z]{1,2}\d{1,2}[A-Z]? \d[A-Z]{2}$/.test(code)) return err(new LookupError(`"${raw}" is not a postcode`));
  return ok(code);
}

export function locate(code: string): Result<Point, LookupError> {
  const p = POSTCODES[code];
  return p ? ok(p) : err(new LookupError(`no coordinates for ${code}`));
}
