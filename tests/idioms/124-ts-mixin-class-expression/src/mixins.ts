// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Ctor<T = object> = new (...args: any[]) => T;

export function Versioned<TBase extends Ctor<{ id: string }>>(Base: TBase) {
  return class extends Base {
    version = 1;

    bump(by: string, note = ''): number {
      this.version++;
      console.log(`${this.id} is at v${this.version} (edited by ${by}${note ? ': ' + note : ''})`);
      return this.version;
    }
  };
}

export function Lockable<TBase extends Ctor<{ id: string }>>(Base: TBase) {
  return class extends Base {
    lockedBy: string | null = null;

    lock(owner: string): boolean {
      if (this.lockedBy && this.lockedBy !== owner) {
        console.warn(`${this.id} is locked by ${this.lockedBy}, ${owner} must wait`);
        return false;
      }
      this.lockedBy = owner;
      return true;
    }

    unlock(owner: string): void {
      if (this.lockedBy !== owner) {
        console.error(`${owner} cannot unlock ${this.id}: ${this.lockedBy ? 'held by ' + this.lockedBy : 'not locked'}`);
        return;
      }
      this.lockedBy = null;
    }
  };
}
