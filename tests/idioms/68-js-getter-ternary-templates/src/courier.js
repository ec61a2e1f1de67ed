'use strict';

function ship(parcel) {
  console.log(`shipping ${parcel.label}`);
}

function attempt(parcel, home) {
  if (home) parcel.delivered = true;
  else parcel.attempts++;
  console.log(`parcel ${parcel} is ${parcel.status}`);
}

function summary(parcels) {
  for (const p of parcels) console.info(p.label);
  const open = parcels.filter((p) => !p.delivered).length;
  console.log(`${open ? `${open} parcel${open > 1 ? 's' : ''} still open` : 'all parcels delivered'} after the ${parcels.length > 2 ? 'long' : 'short'} route`);
}

module.exports = { ship, attempt, summary };
