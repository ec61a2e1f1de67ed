import { Formatter, LogEntry } from './entry';

export interface Sink {
  write(line: string): unknown;
}

export class Transport {
  constructor(private readonly formatter: Formatter, private readonly sink: Sink = process.stdout) {}

  log(entry: LogEntry): void {
    this.sink.write(this.formatter.format(entry) + '\n');
  }
}
