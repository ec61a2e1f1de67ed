export interface Logger {
  info(msg: string, ...args: unknown[]): void;
  warn(msg: string, ...args: unknown[]): void;
  debug?(msg: string, ...args: unknown[]): void;
}

export class ConsoleLogger implements Logger {
  constructor(protected readonly scope: string) {}

  info(msg: string, ...args: unknown[]): void {
    console.log(`${this.scope} | ${msg}`, ...args);
  }

  warn(msg: string, ...args: unknown[]): void {
    console.warn(`${this.scope} ! ${msg}`, ...args);
  }
}

export class VerboseLogger extends ConsoleLogger {
  debug(msg: string, ...args: unknown[]): void {
    console.log(`${this.scope} ? ${msg}`, ...args);
  }
}
