/**
 * Structured JSON logger with a pino-like call signature:
 *
 *   logger.info('cart %s updated', cartId)
 *   logger.warn({ cartId, sku }, 'unknown sku %s', sku)
 */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type Bindings = Record<string, unknown>;
type Sink = (line: string) => void;

const LEVELS: Record<LogLevel, number> = { debug: 20, info: 30, warn: 40, error: 50 };

/** printf-style substitution of %s, %d, %i, %f, %j and %o. */
export function format(template: string, args: readonly unknown[]): string {
  let index = 0;
  const out = template.replace(/%([sdifjo%])/g, (match: string, spec: string) => {
    if (spec === '%') return '%';
    if (index >= args.length) return match;
    const arg = args[index++];
    switch (spec) {
      case 'd':
      case 'i':
        return String(Math.trunc(Number(arg)));
      case 'f':
        return String(Number(arg));
      case 'j':
      case 'o':
        return safeJson(arg);
      default:
        return arg instanceof Error ? arg.message : String(arg);
    }
  });
  const rest = args.slice(index).map((a) => (typeof a === 'string' ? a : safeJson(a)));
  return rest.length ? `${out} ${rest.join(' ')}` : out;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'undefined';
  } catch {
    return '[unserializable]';
  }
}

export class Logger {
  readonly #bindings: Bindings;
  readonly #sink: Sink;
  #level: number;

  constructor(bindings: Bindings = {}, level: LogLevel = 'info', sink?: Sink) {
    this.#bindings = bindings;
    this.#level = LEVELS[level];
    this.#sink = sink ?? ((line) => void process.stdout.write(`${line}\n`));
  }

  static fromEnv(name: string): Logger {
    const raw = (process.env.LOG_LEVEL ?? 'info').toLowerCase();
    const level = raw in LEVELS ? (raw as LogLevel) : 'info';
    return new Logger({ name, pid: process.pid }, level);
  }

  get level(): LogLevel {
    return (Object.keys(LEVELS) as LogLevel[]).find((l) => LEVELS[l] === this.#level) ?? 'info';
  }

  set level(value: LogLevel) {
    this.#level = LEVELS[value];
  }

  isLevelEnabled(level: LogLevel): boolean {
    return LEVELS[level] >= this.#level;
  }

  child(bindings: Bindings): Logger {
    return new Logger({ ...this.#bindings, ...bindings }, this.level, this.#sink);
  }

  debug(objOrMsg: Bindings | string, ...args: unknown[]): void {
    this.#write('debug', objOrMsg, args);
  }

  info(objOrMsg: Bindings | string, ...args: unknown[]): void {
    this.#write('info', objOrMsg, args);
  }

  warn(objOrMsg: Bindings | string, ...args: unknown[]): void {
    this.#write('warn', objOrMsg, args);
  }

  error(objOrMsg: Bindings | string, ...args: unknown[]): void {
    this.#write('error', objOrMsg, args);
  }

  #write(level: LogLevel, objOrMsg: Bindings | string, args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    let fields: Bindings = {};
    let template: string;
    if (typeof objOrMsg === 'string') {
      template = objOrMsg;
    } else {
      fields = objOrMsg;
      template = typeof args[0] === 'string' ? (args.shift() as string) : '';
    }
    const entry = {
      level,
      time: new Date().toISOString(),
      ...this.#bindings,
      ...fields,
      msg: format(template, args),
    };
    this.#sink(safeJson(entry));
  }
}

export const logger = Logger.fromEnv('storefront');
