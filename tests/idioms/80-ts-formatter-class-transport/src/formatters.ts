import { Formatter, LogEntry } from './entry';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export class CommonFormatter implements Formatter {
  format(entry: LogEntry): string {
    if (entry.kind === 'event') {
      return `[${entry.source}] ${entry.level === 'warn' ? 'WARNING: ' : ''}${entry.text}`;
    }
    const t = entry.time;
    const two = (n: number) => String(n).padStart(2, '0');
    const stamp = `${two(t.getUTCDate())}/${MONTHS[t.getUTCMonth()]}/${t.getUTCFullYear()}:${two(t.getUTCHours())}:${two(t.getUTCMinutes())}:${two(t.getUTCSeconds())} +0000`;
    return `${entry.ip} - - [${stamp}] "${entry.method} ${entry.path} HTTP/1.1" ${entry.status} ${entry.bytes || '-'}`;
  }
}

export class KeyValueFormatter implements Formatter {
  constructor(private readonly separator = ' ') {}

  format(entry: LogEntry): string {
    const pairs = Object.entries(entry).map(([k, v]) => `${k}=${v instanceof Date ? v.toISOString() : v}`);
    return pairs.join(this.separator);
  }
}
