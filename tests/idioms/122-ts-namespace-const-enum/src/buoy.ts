import { Alarm, Unit } from './codes';

export namespace Buoy {
  export interface Reading {
    id: string;
    battery: number;
    waveM: number;
    windKn: number;
    offsetM: number;
  }

  const RADIUS_M = 150;

  export function alarms(r: Reading): Alarm[] {
    const found: Alarm[] = [];
    if (r.battery < 20) found.push(Alarm.LowBattery);
    if (r.waveM > 6) found.push(Alarm.StormWaves);
    return found;
  }

  export function report(r: Reading): void {
    console.log(`${r.id}: waves ${r.waveM.toFixed(1)} ${Unit.Metres}, wind ${r.windKn} ${Unit.Knots}`);
    for (const alarm of alarms(r)) console.warn(`${r.id}: ${alarm}`);
    if (r.offsetM > RADIUS_M) console.error(Alarm.Drift + ` (${r.id}, ${r.offsetM} ${Unit.Metres} out)`);
  }

  export namespace Fleet {
    export function summary(readings: Reading[]): void {
      const worst = readings.reduce((a, b) => (b.waveM > a.waveM ? b : a));
      console.log(`fleet: ${readings.length} buoys, highest waves ${worst.waveM.toFixed(1)} ${Unit.Metres} at ${worst.id}`);
      const silent = readings.filter((r) => alarms(r).includes(Alarm.LowBattery)).map((r) => r.id);
      if (silent.length) console.warn(`fleet: ${silent.join(', ')} will report hourly`);
    }
  }
}
