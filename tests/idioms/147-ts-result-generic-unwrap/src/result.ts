// A Result type: a value or an error, never both. Unwrapping an error with
// a fallback says so on stderr.
export type Result<T, E extends Error = Error> = Ok<T, E> | Err<T, E>;

export class Ok<T, E extends Error = Error> {
  readonly ok = true as const;
  constructor(readonly value: T) {}

  map<U>(fn: (v: T) => U): Result<U, E> {
    return new Ok<U, E>(fn(this.value));
  }

  andThen<U>(fn: (v: T) => Result<U, E>): Result<U, E> {
    return fn(this.value);
  }

  unwrapOr(_fallback: T): T {
    return this.value;
  }

  match<R>(arms: { ok: (v: T) => R; err: (e: E) => R }): R {
    return arms.ok(this.value);
  }
}

export class Err<T, E extends Error = Error> {
  readonly ok = false as const;
  constructor(readonly error: E) {}

  map<U>(_fn: (v: T) => U): Result<U, E> {
    return new Err<U, E>(this.error);
  }

  andThen<U>(_fn: (v: T) => Result<U, E>): Result<U, E> {
    return new Err<U, E>(this.error);
  }

  unwrapOr(fallback: T): T {
    console.warn(`unwrapOr: ${this.error.name}: ${this.error.message}; using ${JSON.stringify(fallback)}`);
    return fallback;
  }

  match<R>(arms: { ok: (v: T) => R; err: (e: E) => R }): R {
    return arms.err(this.error);
  }
}

export const ok = <T, E extends Error = Error>(v: T): Result<T, E> => new Ok<T, E>(v);
export const err = <T, E extends Error = Error>(e: E): Result<T, E> => new Err<T, E>(e);
