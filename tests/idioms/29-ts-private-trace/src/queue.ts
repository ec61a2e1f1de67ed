import { Severity, trace } from './tracing';
import { Task } from './task';

export class TaskQueue {
  private tasks: Task[] = [];

  private trace(text: string): void {
    trace(Severity.INFO, 'queue', text);
  }

  add(name: string): Task {
    this.trace('queued task ' + name);
    const t = new Task(name);
    this.tasks.push(t);
    return t;
  }

  next(): void {
    this.trace(`took task 0 of ${this.tasks.length}`);
  }
}
