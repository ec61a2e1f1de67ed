export enum Severity { DEBUG = 'D', INFO = 'I', ERROR = 'E' }

export function trace(severity: Severity, tag: string, text: string): void {
  process.stdout.write(`${severity} ${tag} | ${text}\n`);
}
