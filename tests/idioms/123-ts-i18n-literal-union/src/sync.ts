import { Locale, MsgKey, plural, t } from './i18n';

export interface Entry {
  name: string;
  sizeMb: number;
  conflict?: boolean;
}

export class SyncClient {
  private usedMb: number;

  constructor(private readonly locale: Locale, private readonly target: string, usedMb: number, private readonly quotaMb: number) {
    this.usedMb = usedMb;
  }

  run(entries: Entry[]): number {
    console.log(t(this.locale, 'sync.start', { count: entries.length, target: this.target }));
    let synced = 0;
    for (const entry of entries) {
      if (entry.name.startsWith('~')) {
        console.log(t(this.locale, 'sync.skipped', { file: entry.name, reason: 'temp' }));
        continue;
      }
      if (this.usedMb + entry.sizeMb > this.quotaMb) {
        console.error(t(this.locale, 'quota.full', { file: entry.name }));
        break;
      }
      if (entry.conflict) console.warn(t(this.locale, 'sync.conflict', { file: entry.name }));
      this.usedMb += entry.sizeMb;
      synced++;
    }
    const done: MsgKey = `sync.done.${plural(this.locale, synced)}`;
    console.log(t(this.locale, done, { count: synced, seconds: (synced * 0.4).toFixed(1) }));
    const used = Math.round((100 * this.usedMb) / this.quotaMb);
    if (used >= 80) console.warn(t(this.locale, 'quota.warn', { used }));
    return synced;
  }
}
