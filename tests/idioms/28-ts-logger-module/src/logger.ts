const PREFIX = '[sync]';

function stamp(): string {
  return new Date(0).toISOString();
}

export function info(msg: string, ...args: unknown[]): void {
  console.log(`${stamp()} ${PREFIX} INFO ${msg}`, ...args);
}

export function warn(msg: string): void {
  console.warn(PREFIX + ' WARN ' + msg);
}

export function error(msg: string, err?: Error): void {
  console.error(`${PREFIX} ERROR ${msg}${err ? ': ' + err.message : ''}`);
}
