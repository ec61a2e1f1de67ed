// pmrag's live view: live cases, one case's timeline with its predictions
// and whether the next event proved them right, the daemon's health. Plain
// DOM (every text set through textContent), no library, nothing from
// another origin: the page runs under a Content-Security-Policy of 'self'.
'use strict';
(function () {
  const $ = (id) => document.getElementById(id);
  const PAGE = 50;
  let cfg = { source_url: '', source_rev: '' };
  const list = { q: '', before: null, stack: [], next: null, timer: 0, lastLoad: 0 };
  let open = null; // the case shown: {id, ctl, seq, acc, pending}

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined) continue;
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else e.setAttribute(k, String(v));
    }
    for (const k of kids) if (k !== null && k !== undefined) e.append(k);
    return e;
  }

  async function getJSON(url, signal) {
    const r = await fetch(url, { headers: { Accept: 'application/json' }, signal });
    if (!r.ok) throw new Error(url + ': HTTP ' + r.status);
    return r.json();
  }

  function setConn(up, text) {
    const c = $('conn');
    c.className = 'conn ' + (up ? 'live' : 'down');
    c.textContent = text || (up ? 'live' : 'reconnecting…');
  }

  const pct = (x) => (x === null || x === undefined || Number.isNaN(x) ? '–' : (100 * x).toFixed(1) + '%');
  function ago(sec) {
    if (sec === null || sec === undefined) return '–';
    if (sec < 60) return Math.round(sec) + ' s';
    if (sec < 3600) return Math.round(sec / 60) + ' min';
    if (sec < 86400) return (sec / 3600).toFixed(1) + ' h';
    return (sec / 86400).toFixed(1) + ' d';
  }

  // Server-Sent Events read with fetch: EventSource cannot send the
  // Authorization header a proxy or the browser may add to every request.
  async function stream(url, onEvent, ctl) {
    while (!ctl.signal.aborted) {
      try {
        const r = await fetch(url, { signal: ctl.signal, headers: { Accept: 'text/event-stream' } });
        if (!r.ok) throw new Error('HTTP ' + r.status);
        setConn(true);
        const rd = r.body.getReader();
        const dec = new TextDecoder();
        let buf = '';
        for (;;) {
          const { value, done } = await rd.read();
          if (done) break;
          buf += dec.decode(value, { stream: true });
          let i;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            let ev = 'message';
            const data = [];
            for (const line of block.split('\n')) {
              if (line.startsWith('event: ')) ev = line.slice(7);
              else if (line.startsWith('data: ')) data.push(line.slice(6));
            }
            if (data.length) onEvent(ev, JSON.parse(data.join('\n')));
          }
        }
      } catch (e) {
        if (ctl.signal.aborted) return;
      }
      setConn(false);
      await new Promise((res) => setTimeout(res, 2000));
    }
  }

  // ---- health -------------------------------------------------------------

  function chart(series) {
    const svg = $('chart');
    const ns = 'http://www.w3.org/2000/svg';
    svg.replaceChildren();
    const b = (series && series.buckets) || [];
    const n = 360;
    const x0 = n - b.length;
    for (const [k, cls] of [[1, 'k3'], [0, 'k1']]) {
      let d = '';
      let pen = false;
      b.forEach((p, i) => {
        if (!p.scored) {
          pen = false;
          return;
        }
        const x = ((x0 + i) / (n - 1)) * 360;
        const y = 88 - (p.hits[k] / p.scored) * 84;
        d += (pen ? 'L' : 'M') + x.toFixed(1) + ' ' + y.toFixed(1);
        pen = true;
        // A bucket with no neighbour would be a line of no length: a dot.
        const prev = b[i - 1], next = b[i + 1];
        if (!(prev && prev.scored) && !(next && next.scored)) {
          const dot = document.createElementNS(ns, 'circle');
          dot.setAttribute('cx', x.toFixed(1));
          dot.setAttribute('cy', y.toFixed(1));
          dot.setAttribute('r', '2.5');
          dot.setAttribute('class', cls + ' dot');
          svg.append(dot);
        }
      });
      if (d) {
        const path = document.createElementNS(ns, 'path');
        path.setAttribute('d', d);
        path.setAttribute('class', cls);
        svg.append(path);
      }
    }
  }

  async function loadStats() {
    try {
      const st = await getJSON('/v1/stats');
      const w = st.window && st.window.scored ? st.window : st;
      $('hit-rate').textContent = st.scored || w.scored ? pct(w.hit_rate['1']) : 'no predictions scored yet';
      $('hit3').textContent = pct(w.hit_rate['3']);
      $('hit10').textContent = pct(w.hit_rate['10']);
      $('mrr').textContent = w.scored ? w.mrr.toFixed(3) : '–';
      $('scored').textContent = String(st.scored);
      $('eps').textContent = st.window.events_per_second.toFixed(2);
      $('coverage').textContent = st.events ? pct(st.mapping_coverage) : '–';
      $('model').textContent = st.model.version + ', ' + ago(st.model.age_seconds) + ' old';
      // The graph file's content hash: it changes when a new release's
      // graph is taken (SIGHUP); its age is how long that one has served.
      $('graph').textContent = st.graph.version + ', ' + ago(st.graph.age_seconds) + ' old';
      $('lag').textContent = st.consumer_lag === null ? 'no Kafka input' : String(st.consumer_lag);
      chart(st.series);
    } catch (e) {
      setConn(false, 'API unreachable');
    }
  }

  // ---- the case list --------------------------------------------------------

  async function loadList() {
    list.lastLoad = Date.now();
    const u = new URLSearchParams({ limit: String(PAGE) });
    if (list.q) u.set('q', list.q);
    if (list.before) {
      u.set('before_t', list.before.t);
      u.set('before_id', list.before.id);
    }
    let r;
    try {
      r = await getJSON('/v1/cases?' + u.toString());
    } catch (e) {
      setConn(false, 'API unreachable');
      return;
    }
    const rows = r.cases.map((c) => {
      const tr = el('tr', { 'data-testid': 'case-row', 'data-case-id': c.case_id },
        el('td', { text: c.case_id, title: c.case_id }),
        el('td', { text: c.last_activity === null ? '–' : c.last_activity, title: c.last_activity }),
        el('td', { text: ago(c.age_seconds) }),
        el('td', { text: String(c.seq) }),
        el('td', { text: c.accuracy.scored ? pct(c.accuracy.hit_rate['1']) : '–' }));
      if (open && open.id === c.case_id) tr.classList.add('open');
      tr.addEventListener('click', () => openCase(c.case_id));
      return tr;
    });
    $('case-list').replaceChildren(...rows);
    list.next = r.next;
    $('older').disabled = !r.next;
    $('newer').disabled = list.stack.length === 0;
    $('case-total').textContent = '(' + r.total + ' live)';
    $('page-info').textContent = 'page ' + (list.stack.length + 1) + (list.q ? ' · matching "' + list.q + '"' : '');
  }

  // New predictions refresh the first page, at most once a second.
  function listChanged() {
    if (list.before || list.timer) return;
    const wait = Math.max(0, 1000 - (Date.now() - list.lastLoad));
    list.timer = setTimeout(() => {
      list.timer = 0;
      loadList();
    }, wait);
  }

  // ---- one case -------------------------------------------------------------

  function sourceLink(file, line) {
    const text = file + ':' + line;
    if (!cfg.source_url) return el('span', { class: 'loc', text });
    const href = cfg.source_url
      .split('{file}').join(encodeURI(file))
      .split('{line}').join(String(line))
      .split('{rev}').join(encodeURIComponent(cfg.source_rev));
    return el('a', { class: 'loc', href, target: '_blank', rel: 'noopener noreferrer', text });
  }

  async function explain(rank, li, btn) {
    btn.disabled = true;
    try {
      const x = await getJSON('/v1/cases/' + encodeURIComponent(open.id) + '/explain?rank=' + rank);
      let text = x.path.length ? x.seed : '(no path: ' + (x.reason || 'none found') + ')';
      for (const s of x.path) text += '\n  --' + s.edge + ' (' + s.prob.toFixed(2) + ')--> ' + s.to;
      if (x.path.length) text += '\n  share of the score ' + Math.round(100 * x.share) + '%';
      li.append(el('div', { class: 'path', 'data-testid': 'explanation', text }));
      btn.remove();
    } catch (e) {
      btn.disabled = false;
    }
  }

  function predItem(p, rank, explainable) {
    const li = el('li', { 'data-testid': 'prediction', 'data-rank': rank },
      el('span', { class: 'sym', text: p.symbol }), sourceLink(p.file, p.start_line),
      el('span', { class: 'score', text: p.score === null ? '' : Number(p.score).toPrecision(3) }));
    if (p.activity) li.append(el('span', { class: 'expects', text: 'expects ' + JSON.stringify(p.activity) }));
    else if (p.near) li.append(el('span', { class: 'expects', text: 'near ' + p.near }));
    if (explainable) {
      const b = el('button', { type: 'button', class: 'explain', 'data-testid': 'explain', text: 'why?' });
      b.addEventListener('click', () => explain(rank, li, b));
      li.append(b);
    }
    return li;
  }

  function setVerdict(row, r) {
    const v = row.querySelector('.verdict');
    row.classList.remove('hit', 'miss');
    row.dataset.hit = String(r);
    if (r > 0) {
      row.classList.add('hit');
      v.className = 'verdict hit';
      v.textContent = 'next event at rank ' + r;
      const li = row.querySelector('[data-rank="' + r + '"]');
      if (li) li.classList.add('right');
    } else {
      row.classList.add('miss');
      v.className = 'verdict miss';
      v.textContent = 'next event not in the top 10';
    }
  }

  function eventRow(ev, latest) {
    const row = el('li', { class: 'event', 'data-testid': 'event-row', 'data-seq': ev.seq });
    const verdict = el('span', { class: 'verdict open', text: 'next event pending' });
    row.append(el('div', { class: 'head' }, el('span', { class: 'seq', text: '#' + ev.seq }),
      el('span', { class: 'act', text: ev.activity === null ? '(unknown activity)' : ev.activity }), verdict));
    const ol = el('ol', { class: 'preds' });
    (ev.ranked || []).slice(0, 5).forEach((p, i) => ol.append(predItem(p, i + 1, latest)));
    row.append(ol);
    if (ev.next_rank !== null && ev.next_rank !== undefined) setVerdict(row, ev.next_rank);
    return row;
  }

  function showAccuracy() {
    const a = open.acc;
    $('case-acc').textContent = a.scored
      ? 'top-1 ' + a.hits['1'] + '/' + a.scored + ' (' + pct(a.hits['1'] / a.scored) + '), top-3 ' + a.hits['3'] + ', top-10 ' + a.hits['10']
      : 'no prediction scored yet';
  }

  function onCaseEvent(ev, d) {
    if (!open || ev !== 'prediction' || d.case_id !== open.id) {
      if (open && ev === 'skipped') loadTimeline(open);
      return;
    }
    if (open.pending) {
      open.pending.push(d);
      return;
    }
    addPrediction(d);
  }

  function addPrediction(d) {
    if (d.seq <= open.seq) return; // seen (streams are at least once)
    const tl = $('timeline');
    if (d.seq !== open.seq + 1) {
      loadTimeline(open); // a gap: fetch it again
      return;
    }
    const prev = tl.lastElementChild;
    if (prev) {
      prev.querySelectorAll('button.explain').forEach((b) => b.remove());
      if (d.last_rank !== null && d.last_rank !== undefined) setVerdict(prev, d.last_rank);
    }
    if (d.last_rank !== null && d.last_rank !== undefined) {
      const r = d.last_rank;
      open.acc.scored++;
      if (r === 1) open.acc.hits['1']++;
      if (r >= 1 && r <= 3) open.acc.hits['3']++;
      if (r >= 1 && r <= 10) open.acc.hits['10']++;
      showAccuracy();
    }
    const row = eventRow({ seq: d.seq, activity: d.activity, ranked: d.ranked }, true);
    row.classList.add('new');
    tl.append(row);
    open.seq = d.seq;
  }

  async function loadTimeline(o) {
    let t;
    try {
      t = await getJSON('/v1/cases/' + encodeURIComponent(o.id) + '/timeline', o.ctl.signal);
    } catch (e) {
      if (o === open) $('case-note').textContent = 'case not found (ended or expired?)';
      return;
    }
    if (o !== open) return;
    const rows = t.events.map((ev, i) => eventRow(ev, i === t.events.length - 1));
    $('timeline').replaceChildren(...rows);
    o.seq = t.seq;
    o.acc = t.accuracy;
    showAccuracy();
    $('case-note').textContent =
      (t.seq > t.events.length ? 'the last ' + t.events.length + ' of ' + t.seq + ' events; ' : '') +
      'predictions before the latest are ranked again from the stored events; new events appear as they come.';
    const pending = o.pending || [];
    o.pending = null;
    for (const d of pending) addPrediction(d);
  }

  function openCase(id) {
    if (open) open.ctl.abort();
    const o = { id, ctl: new AbortController(), seq: 0, acc: null, pending: [] };
    open = o;
    if (decodeURIComponent(location.hash.slice(6)) !== id) history.replaceState(null, '', '#case=' + encodeURIComponent(id));
    $('case').hidden = false;
    $('case-id').textContent = id;
    $('case-acc').textContent = '';
    $('case-note').textContent = '';
    $('timeline').replaceChildren();
    for (const tr of $('case-list').children) tr.classList.toggle('open', tr.dataset.caseId === id);
    // The stream first, buffered until the timeline is in: nothing falls
    // between the two.
    stream('/v1/cases/' + encodeURIComponent(id) + '/stream', onCaseEvent, o.ctl);
    loadTimeline(o);
  }

  // ---- start ------------------------------------------------------------------

  async function start() {
    try {
      cfg = await getJSON('/ui/config.json');
    } catch (e) {
      /* plain file:line */
    }
    let typing = 0;
    $('search').addEventListener('input', () => {
      clearTimeout(typing);
      typing = setTimeout(() => {
        list.q = $('search').value.trim();
        list.before = null;
        list.stack = [];
        loadList();
      }, 200);
    });
    $('older').addEventListener('click', () => {
      if (!list.next) return;
      list.stack.push(list.before);
      list.before = list.next;
      loadList();
    });
    $('newer').addEventListener('click', () => {
      if (!list.stack.length) return;
      list.before = list.stack.pop();
      loadList();
    });
    loadStats();
    loadList();
    setInterval(loadStats, 5000);
    setInterval(() => { if (!list.before) loadList(); }, 10000);
    const all = new AbortController();
    stream('/v1/stream', (ev) => { if (ev === 'prediction' || ev === 'skipped') listChanged(); }, all);
    if (location.hash.startsWith('#case=')) openCase(decodeURIComponent(location.hash.slice(6)));
  }

  start();
})();
