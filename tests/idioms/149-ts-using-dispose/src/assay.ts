import { Lamp, Spectrometer } from './instrument';

export interface Sample {
  id: string;
  transmitted: number;
}

export function measure(port: string, samples: Sample[]): number[] {
  using dev = Spectrometer.open(port);
  const values: number[] = [];
  for (const s of samples) {
    const a = dev.absorbance(s.id, s.transmitted);
    if (a > 2) console.warn(`${s.id}: absorbance ${a.toFixed(3)} above the linear range, dilute and repeat`);
    values.push(a);
  }
  return values;
}

export async function series(lampKind: string, port: string, runs: Sample[][]): Promise<void> {
  await using lamp = await Lamp.on(lampKind);
  for (const [i, run] of runs.entries()) {
    try {
      const values = measure(port, run);
      console.log(`run ${i + 1} (${lamp.kind}): mean absorbance ${(values.reduce((a, b) => a + b, 0) / values.length).toFixed(3)}`);
    } catch (e) {
      console.error(`run ${i + 1} aborted: ${(e as Error).message}`);
    }
  }
}
