type Plural = 'one' | 'other';
export type MsgKey =
  | 'sync.start'
  | `sync.done.${Plural}`
  | 'sync.conflict'
  | 'sync.skipped'
  | 'quota.warn'
  | 'quota.full';
export type Params = Record<string, string | number>;

const en: Record<MsgKey, string> = {
  'sync.start': 'Syncing {count} files to {target}',
  'sync.done.one': 'Synced one file in {seconds}s',
  'sync.done.other': 'Synced {count} files in {seconds}s',
  'sync.conflict': 'Conflict on {file}: kept the newer copy',
  'sync.skipped': 'Skipped {file} ({reason})',
  'quota.warn': 'Storage {used}% full',
  'quota.full': 'Storage full: {file} and later files wait',
};

const de: Record<MsgKey, string> = {
  'sync.start': 'Synchronisiere {count} Dateien nach {target}',
  'sync.done.one': 'Eine Datei in {seconds}s synchronisiert',
  'sync.done.other': '{count} Dateien in {seconds}s synchronisiert',
  'sync.conflict': 'Konflikt bei {file}: neuere Kopie behalten',
  'sync.skipped': '{file} übersprungen ({reason})',
  'quota.warn': 'Speicher zu {used}% belegt',
  'quota.full': 'Speicher voll: {file} und folgende Dateien warten',
};

const tables = { en, de };
export type Locale = keyof typeof tables;

export function t(locale: Locale, key: MsgKey, params: Params = {}): string {
  return tables[locale][key].replace(/\{(\w+)\}/g, (_, name: string) => String(params[name] ?? `{${name}}`));
}

export function plural(locale: Locale, n: number): Plural {
  return new Intl.PluralRules(locale).select(n) === 'one' ? 'one' : 'other';
}
