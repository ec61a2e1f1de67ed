'use strict';
const { describeError } = require('./errors');

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

async function* pages(provider) {
  for (let i = 0; i < provider.pages.length; i++) {
    await nextTurn();
    const page = provider.pages[i];
    if (typeof page !== 'number') {
      const cause = page === 'timeout' ? 'gateway timeout' : new SyntaxError(`unexpected ${JSON.stringify(page)} in JSON`);
      throw new Error(`page ${i + 1} of ${provider.name} unreadable`, { cause });
    }
    yield page;
  }
}

async function syncOne(provider) {
  let events = 0;
  try {
    for await (const count of pages(provider)) {
      events += count;
      console.log(`${provider.name}: page of ${count} events`);
    }
  } catch (err) {
    throw new Error(`sync of ${provider.name} stopped after ${events} events`, { cause: err });
  }
  return events;
}

function retryLater(provider, ms) {
  return new Promise((resolve) => {
    setTimeout(() => {
      console.warn(`${provider.name} queued for retry after a ${ms} ms backoff`);
      resolve();
    }, ms);
  });
}

async function syncAll(providers) {
  const results = await Promise.allSettled(providers.map(syncOne));
  results.forEach((r, i) => {
    if (r.status === 'fulfilled') console.log(`${providers[i].name} synced: ${r.value} events`);
    else console.error(`${providers[i].name} not synced: ${describeError(r.reason)}`);
  });
  const failed = providers.filter((_, i) => results[i].status === 'rejected');
  for (const [n, provider] of failed.entries()) await retryLater(provider, 5 * (n + 1));
  return results.length - failed.length;
}

module.exports = { syncAll };
