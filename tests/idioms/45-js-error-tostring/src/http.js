'use strict';

function request(url, ms) {
  if (ms > 1000) throw new Error(`timeout after ${ms}ms waiting for ${url}`);
  if (url.includes('bad')) throw new TypeError('invalid URL: ' + url);
  return 200;
}

function fetchAll(urls) {
  for (const [u, ms] of urls) {
    try {
      const s = request(u, ms);
      console.log('GET %s %d', u, s);
    } catch (err) {
      if (err instanceof TypeError) console.warn(String(err));
      else console.error(`${err}`);
    }
  }
  console.log('fetched %d urls', urls.length);
}

module.exports = { fetchAll };
