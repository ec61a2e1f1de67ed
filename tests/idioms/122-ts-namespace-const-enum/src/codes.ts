// Inlined by the compiler: the compiled code holds the texts, not the enums.
export const enum Alarm {
  LowBattery = 'battery low, switching to low-power mode',
  StormWaves = 'waves over the storm threshold',
  Drift = 'buoy outside its mooring radius',
}

export const enum Unit {
  Metres = 'm',
  Knots = 'kn',
}
