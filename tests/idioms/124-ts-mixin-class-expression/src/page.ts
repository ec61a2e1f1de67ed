import { Lockable, Versioned } from './mixins';

class Doc {
  constructor(public readonly id: string, public title: string) {}
}

export class Page extends Lockable(Versioned(Doc)) {
  edit(by: string, title: string): boolean {
    if (!this.lock(by)) return false;
    const old = this.title;
    this.title = title;
    this.bump(by, old === title ? '' : `title "${old}" -> "${title}"`);
    this.unlock(by);
    return true;
  }

  publish(by: string): void {
    if (this.lockedBy) {
      console.warn(`${this.id} not published: still being edited by ${this.lockedBy}`);
      return;
    }
    console.log(`${this.id} v${this.version} published by ${by}`);
  }
}
