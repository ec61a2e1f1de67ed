import { inspect } from 'node:util';

export type Level = 'debug' | 'info' | 'warn' | 'error';
export type Meta = Record<string, unknown>;

export interface Logger {
  log(level: Level, message: string, meta?: Meta): void;
  child(scope: string): Logger;
}

export const silentLogger: Logger = {
  log() {},
  child() {
    return silentLogger;
  },
};

export class ConsoleLogger implements Logger {
  constructor(private readonly scope = 'app') {}

  log(level: Level, message: string, meta?: Meta): void {
    const tail = meta ? ' ' + inspect(meta, { compact: true, breakLength: Infinity, sorted: true }) : '';
    const write = level === 'error' || level === 'warn' ? console.error : console.log;
    write(`${level.padEnd(5)} ${this.scope}: ${message}${tail}`);
  }

  child(scope: string): Logger {
    return new ConsoleLogger(`${this.scope}.${scope}`);
  }
}
