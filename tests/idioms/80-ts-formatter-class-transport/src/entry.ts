export interface AccessEntry {
  kind: 'access';
  ip: string;
  method: string;
  path: string;
  status: number;
  bytes: number;
  time: Date;
}

export interface EventEntry {
  kind: 'event';
  level: 'info' | 'warn';
  source: string;
  text: string;
}

export type LogEntry = AccessEntry | EventEntry;

export interface Formatter {
  format(entry: LogEntry): string;
}
