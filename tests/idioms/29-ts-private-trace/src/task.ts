import { Severity, trace } from './tracing';

export class Task {
  private state = 'PENDING';

  constructor(private name: string) {}

  private trace(text: string): void {
    trace(Severity.DEBUG, 'task', '(' + this.name + ') ' + text);
  }

  start(): void {
    this.trace('starting from state ' + this.state);
    this.state = 'RUNNING';
    this.trace(`loaded ${this.name} with 1 input`);
  }

  fail(reason: string): void {
    this.trace('attempt failed: ' + reason);
    trace(Severity.ERROR, 'task', `giving up on ${this.name}`);
  }

  finish(): void {
    this.state = 'DONE';
    this.trace('DONE');
  }
}
