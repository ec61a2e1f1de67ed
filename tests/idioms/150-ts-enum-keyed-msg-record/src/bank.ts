import { Fault, MESSAGES, render, report } from './faults';

interface Locker {
  id: string;
  cm: number;
  parcel?: string;
  code?: string;
  day?: number;
}

export class LockerBank {
  private readonly lockers: Locker[];
  private attempts = new Map<string, number>();

  constructor(readonly site: string, sizes: number[], private readonly keepDays = 3) {
    this.lockers = sizes.map((cm, i) => ({ id: `${site}-${i + 1}`, cm }));
  }

  deposit(parcel: string, cm: number, day: number, jams = 0): string | undefined {
    const locker = this.lockers.find((l) => !l.parcel && l.cm >= cm);
    if (!locker) {
      report(Fault.Oversize, { parcel, cm });
      return undefined;
    }
    if (jams >= 3) {
      report(Fault.DoorJam, { locker: locker.id, tries: jams });
      return undefined;
    }
    Object.assign(locker, { parcel, day, code: String(1000 + ((cm * 7919 + day) % 9000)) });
    console.log(`parcel ${parcel} in locker ${locker.id}, code sent`);
    return locker.code;
  }

  pickup(lockerId: string, code: string, day: number, openSeconds = 10): boolean {
    const locker = this.lockers.find((l) => l.id === lockerId);
    if (!locker?.parcel) return false;
    if (day - (locker.day ?? day) > this.keepDays) {
      console.warn(render(MESSAGES[Fault.CodeExpired], { parcel: locker.parcel, day: (locker.day ?? 0) + this.keepDays }));
      return false;
    }
    if (code !== locker.code) {
      const used = (this.attempts.get(lockerId) ?? 0) + 1;
      this.attempts.set(lockerId, used);
      console.warn(render(MESSAGES[Fault.CodeWrong], { locker: lockerId, left: Math.max(0, 3 - used) }));
      return false;
    }
    console.log(`parcel ${locker.parcel} collected from ${lockerId}`);
    if (openSeconds > 60) report(Fault.DoorOpen, { locker: lockerId, seconds: openSeconds });
    locker.parcel = undefined;
    return true;
  }
}
