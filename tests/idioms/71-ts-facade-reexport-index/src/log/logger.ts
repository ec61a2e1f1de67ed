export type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Level[] = ['debug', 'info', 'warn', 'error'];

export class Logger {
  constructor(private readonly name: string, private readonly min: Level = 'debug') {}

  scope(sub: string): Logger {
    return new Logger(`${this.name}.${sub}`, this.min);
  }

  private write(level: Level, msg: string): void {
    if (ORDER.indexOf(level) < ORDER.indexOf(this.min)) return;
    const out = level === 'warn' || level === 'error' ? process.stderr : process.stdout;
    out.write(`${level.toUpperCase().padEnd(5)} ${this.name}: ${msg}\n`);
  }

  debug(msg: string): void { this.write('debug', msg); }
  info(msg: string): void { this.write('info', msg); }
  warn(msg: string): void { this.write('warn', msg); }
  error(msg: string): void { this.write('error', msg); }
}
