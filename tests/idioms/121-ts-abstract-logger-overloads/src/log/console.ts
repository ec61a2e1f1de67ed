import { BaseLogger, Level } from './base';

export class ConsoleLogger extends BaseLogger {
  constructor(private readonly name: string, private readonly minLevel: Level = 'info') {
    super();
  }

  protected write(level: Level, line: string): void {
    const order: Level[] = ['debug', 'info', 'warn', 'error'];
    if (order.indexOf(level) < order.indexOf(this.minLevel)) return;
    const out = level === 'warn' || level === 'error' ? console.error : console.log;
    out(`${level.toUpperCase().padEnd(5)} ${this.name}: ${line}`);
  }
}
