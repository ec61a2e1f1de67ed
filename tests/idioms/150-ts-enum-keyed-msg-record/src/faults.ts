// A parcel locker bank's faults: a numeric enum, and their texts in a
// record keyed by it, with {placeholders} filled by render().
export enum Fault {
  DoorJam = 101,
  DoorOpen,
  CodeWrong = 201,
  CodeExpired,
  Oversize = 301,
}

export const MESSAGES: Record<Fault, string> = {
  [Fault.DoorJam]: 'locker {locker}: door jammed after {tries} tries',
  [Fault.DoorOpen]: 'locker {locker}: door left open for {seconds}s',
  [Fault.CodeWrong]: 'wrong pickup code for locker {locker} ({left} attempts left)',
  [Fault.CodeExpired]: 'pickup code of parcel {parcel} expired on day {day}',
  [Fault.Oversize]: 'parcel {parcel} ({cm} cm) fits no free locker',
};

export function render(template: string, vars: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (_, k: string) => (k in vars ? String(vars[k]) : `{${k}}`));
}

// The bank's fault report: the code's name and number, then the text.
export function report(fault: Fault, vars: Record<string, string | number>): void {
  console.error(`${Fault[fault]} (${fault}): ${render(MESSAGES[fault], vars)}`);
}
