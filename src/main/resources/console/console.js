// Lake Metasrv operator console. Vanilla JS, no dependencies; every request goes to the node that
// served this page. Read-only except "Resign", which is shown only to tokens that may write and
// asks for confirmation. The token lives in sessionStorage: this tab only.
'use strict';
(function () {
  const REFRESH_MS = 2000;
  const HISTORY = 60;          // chart points kept (2 minutes at one read per 2 s)
  const STALE_MS = 1500;       // members refresh every second: an entry unchanged this long, they stopped
  const SHOW_BYTES = 1024;     // a value larger than this is shown truncated, with its size
  const PAGE = 50;             // keys per page in the browser
  const CHANGES = 50;          // recent changes kept on the page
  const $ = (id) => document.getElementById(id);
  const state = {
    token: sessionStorage.getItem('lake-token') || '',
    needToken: false, mayWrite: false, clockOffsetMs: 0, expiresAtMs: null,
    lastMeters: null, rates: [], p99s: [], members: new Map(),
    prefix: '', continuation: null, namespace: null, changesAfter: null
  };

  class HttpError extends Error {
    constructor(status, code, message) { super(message); this.status = status; this.code = code; }
  }

  // GET or POST on this node; a refusal becomes an HttpError carrying the API's error code.
  async function api(path, options) {
    const headers = {};
    if (state.token) headers.Authorization = 'Bearer ' + state.token;
    let response;
    try {
      response = await fetch(path, Object.assign({ headers: headers, cache: 'no-store' }, options || {}));
    } catch (e) {
      throw new HttpError(0, 'unreachable', 'the node did not answer (' + e.message + ')');
    }
    let body = null;
    try { body = await response.json(); } catch (e) { body = null; }
    if (!response.ok) {
      const err = body && body.error ? body.error : { code: 'http_' + response.status, message: response.statusText };
      throw new HttpError(response.status, err.code, err.message);
    }
    return body;
  }

  function text(id, value) { $(id).textContent = value === null || value === undefined ? '—' : String(value); }
  function show(id, visible) { $(id).hidden = !visible; }
  function cell(row, value, cls) {
    const td = document.createElement('td');
    td.textContent = value === null || value === undefined ? '—' : String(value);
    if (cls) td.className = cls;
    row.appendChild(td);
    return td;
  }
  function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); }
  function ago(ms) {
    if (ms < 1000) return 'just now';
    if (ms < 60000) return Math.round(ms / 1000) + ' s ago';
    if (ms < 3600000) return Math.round(ms / 60000) + ' min ago';
    return Math.round(ms / 3600000) + ' h ago';
  }
  function time(ms) { return new Date(ms).toISOString().replace('T', ' ').replace('Z', ' UTC'); }

  // One place decides what a failure means for the operator: a token, a refusal, or an outage.
  function failed(err, where) {
    if (err.status === 401) {
      askForToken(state.token ? 'The token was refused (401 unauthorized): ' + err.message : 'This node requires a token (401 unauthorized).');
      banner(null);
    } else if (err.status === 403) {
      banner('403 forbidden: ' + err.message);
    } else if (err.status === 0) {
      banner('Node unreachable: ' + err.message);
    } else {
      banner(where + ': ' + err.status + ' ' + err.code + ': ' + err.message);
    }
  }
  function banner(message) {
    $('banner').textContent = message || '';
    show('banner', !!message);
  }
  function askForToken(reason) {
    state.needToken = true;
    $('token-reason').textContent = reason;
    show('token-panel', true);
  }

  // ---- Overview ----
  // Each card from its own view: one that fails (/v1/leader reads the store) leaves the others
  // live, which is when the store-error and renewal counters matter most. A 401 asks for a token.
  async function refreshOverview() {
    const results = await Promise.allSettled([
      api('/v1/access'), api('/v1/leader'), api('/v1/timeline'), api('/v1/cluster'), api('/v1/meters')]);
    const refused = results.find((r) => r.status === 'rejected' && r.reason.status === 401);
    if (refused) throw refused.reason;
    const [access, leader, timeline, cluster, meters] = results.map((r) => (r.status === 'fulfilled' ? r.value : null));
    if (access) { state.mayWrite = access.may_write; text('node-id', 'node ' + access.node_id); }
    if (meters) { state.clockOffsetMs = meters.at_ms - Date.now(); renderMeters(meters); }
    if (leader) renderLeader(leader, timeline ? timeline.now : null);
    else leaderUnknown(results[1].reason);
    if (timeline) renderTimeline(timeline);
    if (cluster) renderMembers(cluster.members);
    const failure = results.find((r) => r.status === 'rejected');
    if (failure) failed(failure.reason, 'Overview'); else banner(null);
    text('updated', 'Updated ' + new Date().toLocaleTimeString() + (failure ? ' (partly: see the message above).' : '.'));
  }

  // The lease could not be read (store unavailable, node unreachable): say so, never show an old holder.
  function leaderUnknown(err) {
    text('leader-holder', 'unknown: ' + err.code);
    $('leader-holder').className = 'error';
    text('leader-epoch', null);
    state.expiresAtMs = null;
    tick();
    text('node-role', null);
    text('node-authority', null);
    show('resign-area', false);
  }

  function renderLeader(leader, now) {
    text('leader-holder', leader.leader || 'no leader (no unexpired lease)');
    $('leader-holder').className = leader.leader ? '' : 'error';
    text('leader-epoch', leader.epoch);
    state.expiresAtMs = leader.expires_at_ms;
    tick();
    text('node-role', leader.role);
    $('node-role').className = 'role-' + leader.role;
    if (now && now.role === 'leader' && now.authority_ms > 0) {
      text('node-authority', 'may publish for ' + (now.authority_ms / 1000).toFixed(1) + ' s (monotonic deadline)');
    } else {
      text('node-authority', 'none (does not lead)');
    }
    show('resign-area', leader.role === 'leader' && state.mayWrite);
  }

  // The countdown uses the node's clock (offset measured from /v1/meters), not the browser's.
  function tick() {
    if (state.expiresAtMs === null || state.expiresAtMs === undefined) { text('lease-countdown', '—'); return; }
    const left = state.expiresAtMs - (Date.now() + state.clockOffsetMs);
    text('lease-countdown', left > 0 ? (left / 1000).toFixed(1) + ' s' : 'expired');
  }

  function renderTimeline(timeline) {
    const body = $('timeline').tBodies[0];
    clear(body);
    for (const c of timeline.changes) {
      const row = document.createElement('tr');
      cell(row, time(c.at_ms));
      cell(row, c.kind, 'kind-' + c.kind);
      cell(row, c.node);
      cell(row, c.epoch);
      cell(row, c.reason);
      body.appendChild(row);
    }
    show('timeline-empty', timeline.changes.length === 0);
  }

  // Members whose entry vanished are kept as "gone"; an entry whose seen_at_ms has not moved for
  // STALE_MS of this page's time is "not refreshing". Judged by change, not by comparing the
  // member's clock with this node's, so a member whose clock is off is not misreported.
  function renderMembers(members) {
    const nowMs = Date.now() + state.clockOffsetMs;
    const seen = new Set();
    for (const m of members) {
      seen.add(m.node_id);
      const before = state.members.get(m.node_id);
      const advancedAt = before && !before.gone && before.seen_at_ms === m.seen_at_ms ? before.advancedAt : Date.now();
      state.members.set(m.node_id, Object.assign({ gone: false, advancedAt: advancedAt }, m));
    }
    for (const [id, m] of state.members) if (!seen.has(id)) m.gone = true;
    const body = $('members').tBodies[0];
    clear(body);
    for (const m of [...state.members.values()].sort((a, b) => a.node_id.localeCompare(b.node_id))) {
      const row = document.createElement('tr');
      cell(row, m.node_id);
      cell(row, m.gone ? 'gone' : m.role, m.gone ? 'gone' : 'role-' + m.role);
      cell(row, m.epoch);
      cell(row, (m.http_host || '?') + ':' + m.http_port);
      const stale = m.gone || Date.now() - m.advancedAt > STALE_MS;
      // A stale entry is at least as old as the time it has stood still: a member whose clock runs
      // ahead of this node's must not read "just now (not refreshing)".
      const age = m.seen_at_ms ? Math.max(nowMs - m.seen_at_ms, stale ? Date.now() - m.advancedAt : 0) : null;
      cell(row, age === null ? '—' : ago(Math.max(0, age)) + (m.gone ? ' (entry expired)' : stale ? ' (not refreshing)' : ''), stale ? 'stale' : '');
      body.appendChild(row);
    }
    show('members-empty', state.members.size === 0);
  }

  // Rates and p99 are differences between two reads of cumulative meters (see docs/console.md).
  function renderMeters(m) {
    const prev = state.lastMeters;
    state.lastMeters = m;
    text('c-fenced', m.counters.fenced);
    text('c-epoch-mismatch', m.counters.epoch_mismatch);
    text('c-renewal-failures', m.counters.renewal_failures);
    text('c-store-errors', Object.values(m.store_errors).reduce((a, b) => a + b, 0));
    const byOp = new Map();
    for (const r of m.requests) {
      const op = byOp.get(r.op) || { count: 0, buckets: new Map(), prevCount: 0, prevBuckets: new Map() };
      op.count += r.count;
      for (const b of r.buckets) op.buckets.set(b.le_ms, (op.buckets.get(b.le_ms) || 0) + b.count);
      byOp.set(r.op, op);
    }
    if (prev) {
      for (const r of prev.requests) {
        const op = byOp.get(r.op);
        if (!op) continue;
        op.prevCount += r.count;
        for (const b of r.buckets) op.prevBuckets.set(b.le_ms, (op.prevBuckets.get(b.le_ms) || 0) + b.count);
      }
    }
    const seconds = prev ? Math.max(0.001, (m.at_ms - prev.at_ms) / 1000) : null;
    const body = $('ops').tBodies[0];
    clear(body);
    let total = 0, totalPrev = 0;
    const all = new Map(), allPrev = new Map();
    for (const [name, op] of [...byOp.entries()].sort()) {
      total += op.count; totalPrev += op.prevCount;
      for (const [le, c] of op.buckets) all.set(le, (all.get(le) || 0) + c);
      for (const [le, c] of op.prevBuckets) allPrev.set(le, (allPrev.get(le) || 0) + c);
      if (op.count === 0) continue;
      const row = document.createElement('tr');
      cell(row, name);
      cell(row, seconds ? ((op.count - op.prevCount) / seconds).toFixed(1) : '…');
      cell(row, seconds ? p99(op.buckets, op.prevBuckets, op.count - op.prevCount) : '…');
      cell(row, op.count);
      body.appendChild(row);
    }
    show('ops-empty', body.rows.length === 0);
    if (seconds) {
      const rate = (total - totalPrev) / seconds;
      const p = p99(all, allPrev, total - totalPrev);
      push(state.rates, rate);
      push(state.p99s, typeof p === 'number' ? p : 0);
      text('rate-now', rate.toFixed(1));
      text('p99-now', p);
      chart('chart-rate', state.rates);
      chart('chart-p99', state.p99s);
    }
  }

  // The smallest bucket bound under which 99% of the interval's requests fell ("≤ bound").
  function p99(buckets, prevBuckets, n) {
    if (n <= 0) return '—';
    const bounds = [...buckets.keys()].sort((a, b) => a - b);
    for (const le of bounds) {
      const inInterval = buckets.get(le) - (prevBuckets.get(le) || 0);
      if (inInterval >= 0.99 * n) return le;
    }
    return '> ' + bounds[bounds.length - 1];
  }
  function push(series, v) { series.push(v); if (series.length > HISTORY) series.shift(); }
  function chart(id, series) {
    const svg = $(id);
    clear(svg);
    const max = Math.max(1, ...series);
    const pts = series.map((v, i) => (i * 240 / (HISTORY - 1)).toFixed(1) + ',' + (58 - v / max * 56).toFixed(1)).join(' ');
    const line = document.createElementNS('http://www.w3.org/2000/svg', 'polyline');
    line.setAttribute('points', pts);
    svg.appendChild(line);
  }

  async function resign() {
    show('resign-confirm', false);
    try {
      const r = await api('/v1/leader/resign', { method: 'POST' });
      text('resign-result', r.resigned ? 'Resigned: a standby takes over under the next epoch.' : 'Nothing to resign: this node was not leading.');
    } catch (err) {
      text('resign-result', 'Resign failed: ' + err.status + ' ' + err.code + ': ' + err.message);
    }
    refresh();
  }

  // ---- Keys ----
  function b64bytes(b64) {
    const bin = atob(b64);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  // Text when the bytes are UTF-8 without control characters (tab and newlines allowed), else hex;
  // past SHOW_BYTES only the start is shown (a 256 KiB value would be 768 KB of hex in one cell).
  function render(bytes) {
    const more = bytes.length > SHOW_BYTES ? ' … (the start of ' + bytes.length + ' bytes)' : '';
    try {
      const s = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      if (!/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(s)) return ['text', more ? [...s].slice(0, SHOW_BYTES).join('') + more : s];
    } catch (e) { /* not UTF-8: hex below */ }
    return ['hex', Array.from(bytes.subarray(0, SHOW_BYTES), (b) => b.toString(16).padStart(2, '0')).join(' ') + more];
  }
  // Metasrv's own keys (the catalog's, the lease) are left out by the node unless asked for
  // (hide_system); a page may then come back short, or empty with a continuation, so the browser
  // reads on until it has something to show or the listing ends — an empty page is not the end.
  async function browse(fresh) {
    if (fresh) { state.prefix = $('prefix').value; state.continuation = null; clear($('keys').tBodies[0]); }
    show('keys-error', false);
    try {
      const body = $('keys').tBodies[0];
      let added = 0;
      do {
        const q = new URLSearchParams({ prefix: state.prefix, limit: String(PAGE) });
        if (!$('show-system').checked) q.set('hide_system', 'true');
        if (state.continuation) q.set('continuation', state.continuation);
        const page = await api('/v1/kv?' + q.toString());
        for (const e of page.entries) {
          const bytes = b64bytes(e.value);
          const [as, shown] = render(bytes);
          const row = document.createElement('tr');
          cell(row, e.key, 'key');
          cell(row, bytes.length + ' B');
          cell(row, as);
          cell(row, shown, 'value');
          body.appendChild(row);
          added++;
        }
        state.continuation = page.continuation;
      } while (added === 0 && state.continuation);
      show('next-page', !!state.continuation);
      $('keys-empty').textContent = 'No key starts with this prefix' + ($('show-system').checked ? '.' : " (Metasrv's own keys not shown).");
      show('keys-empty', body.rows.length === 0);
    } catch (err) {
      if (err.status === 401) { failed(err, 'Keys'); return; }
      $('keys-error').textContent = err.status + ' ' + err.code + ': ' + err.message;
      show('keys-error', true);
    }
  }

  // ---- Catalog ----
  // Re-rendered only when the names or the selection changed, so a list does not change under the pointer.
  // context: what the click handlers depend on besides the name (the namespace, for tables).
  function pickList(id, names, onPick, selected, context) {
    const ul = $(id);
    const signature = JSON.stringify([names, selected || null, context || null]);
    if (ul.dataset.signature === signature) return;
    ul.dataset.signature = signature;
    clear(ul);
    for (const name of names) {
      const li = document.createElement('li');
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = name;
      if (name === selected) b.className = 'selected';
      b.addEventListener('click', () => onPick(name));
      li.appendChild(b);
      ul.appendChild(li);
    }
  }
  const seg = (s) => encodeURIComponent(s);
  // False when the catalog needs a token (the panel is then showing and must stay).
  // Each part from its own read, as on the Overview: tombstones and the purge queue span every
  // namespace, so a principal with grants is refused them (403) and still sees its namespaces.
  async function refreshCatalog() {
    const parts = ['Namespaces', 'Tombstones', 'Purge queue', 'Purge counts'];
    const results = await Promise.allSettled([api('/v1/namespaces?limit=1000'), api('/v1/catalog/tombstones?limit=1000'),
      api('/v1/catalog/purges?limit=1000'), api('/v1/meters')]);
    const unauthorized = results.find((r) => r.status === 'rejected' && r.reason.status === 401);
    if (unauthorized) { failed(unauthorized.reason, 'Catalog'); return false; }
    // A part that failed shows nothing rather than what an earlier read (or token) saw.
    const [ns, tombs, purges, meters] = results.map((r) => (r.status === 'fulfilled' ? r.value : null));
    const names = ns ? ns.namespaces.map((n) => (typeof n === 'string' ? n : n.namespace)) : [];
    pickList('namespaces', names, pickNamespace, state.namespace);
    unread('namespaces-empty', ns === null, 'No namespaces.');
    show('namespaces-empty', names.length === 0);
    renderTombstones(tombs ? tombs.tombstones : null, purges ? purges.purges : null);
    renderPurges(purges);
    renderPurgeMeters(meters ? meters.purge : null);
    const problems = results.flatMap((r, i) => (r.status === 'rejected'
      ? [parts[i] + ': ' + r.reason.status + ' ' + r.reason.code + ': ' + r.reason.message] : []));
    $('catalog-error').textContent = problems.join('\n');
    show('catalog-error', problems.length > 0);
    return true;
  }
  // A job names its tombstone's incarnation, "legacy" for a table without one (docs/catalog.md).
  const purgeKey = (ns, name, incarnation) => JSON.stringify([ns, name, incarnation === null ? 'legacy' : incarnation]);
  function when(ms) { return time(ms).replace(/\.\d{3} UTC$/, ' UTC'); }
  // An empty state that tells "none" from "could not be read".
  function unread(id, unreadable, none) { $(id).textContent = unreadable ? 'Not shown: the listing failed (above).' : none; }
  // null: that listing failed. Without the queue a tombstone shows its expiry alone.
  function renderTombstones(tombs, jobs) {
    const body = $('tombstones').tBodies[0];
    clear(body);
    const byKey = new Map((jobs || []).map((j) => [purgeKey(j.namespace, j.name, j.incarnation_id), j]));
    for (const t of tombs || []) {
      const row = document.createElement('tr');
      const reg = t.registration || {};
      cell(row, t.namespace); cell(row, t.name); cell(row, t.incarnation_id);
      cell(row, reg.current_version);
      // No expires_ms: dropped before drops were timed, which never expires by itself.
      const expires = t.expires_ms === undefined || t.expires_ms === null ? 'never (no drop time)' : when(t.expires_ms);
      const job = byKey.get(purgeKey(t.namespace, t.name, t.incarnation_id));
      cell(row, job ? expires + '; purge ' + job.state : expires, job ? 'purge-' + job.state : '');
      cell(row, reg.location, 'value');
      // A dropped Iceberg view is a tombstone too ("iceberg-view"); no engine field: lance.
      cell(row, reg.engine || 'lance');
      body.appendChild(row);
    }
    unread('tombstones-empty', tombs === null, 'No tombstones.');
    show('tombstones-empty', tombs === null || tombs.length === 0);
  }
  function renderPurges(page) {
    const body = $('purges').tBodies[0];
    clear(body);
    for (const j of page ? page.purges : []) {
      const row = document.createElement('tr');
      cell(row, j.namespace); cell(row, j.name); cell(row, j.incarnation_id);
      cell(row, j.state, 'purge-' + j.state); cell(row, j.reason);
      cell(row, j.deleted); cell(row, j.batches); cell(row, when(j.queued_ms));
      cell(row, j.message);
      body.appendChild(row);
    }
    unread('purges-empty', page === null, 'No purges queued.');
    show('purges-empty', page === null || page.purges.length === 0);
    show('purges-more', page !== null && !!page.continuation);
  }
  function renderPurgeMeters(purge) {
    text('p-files-deleted', purge ? purge.files_deleted : null);
    text('p-tables', purge ? purge.tables : null);
    text('p-refused', purge ? purge.refused : null);
    text('p-queue', purge ? purge.queue_jobs : null);
  }
  async function pickNamespace(ns) {
    state.namespace = ns;
    text('tables-ns', ns);
    try {
      const t = await api('/v1/namespaces/' + seg(ns) + '/tables?limit=256');
      pickList('tables', t.names, (name) => pickTable(ns, name), null, ns);
      $('tables-empty').textContent = 'No tables in ' + ns + '.';
      show('tables-empty', t.names.length === 0);
      refreshCatalog();
    } catch (err) { failed(err, 'Tables'); }
  }
  async function pickTable(ns, name) {
    try {
      const t = await api('/v1/namespaces/' + seg(ns) + '/tables/' + seg(name));
      const dl = $('registration');
      clear(dl);
      const reg = t.registration;
      const facts = [['Table', ns + '.' + name], ['Current version', reg.current_version], ['Location', reg.location],
        ['Engine', reg.engine], ['Incarnation', reg.incarnation_id],
        ['Columns', (reg.columns || []).map((c) => c.name + ':' + c.type).join(', ')]];
      for (const [k, v] of facts) {
        const dt = document.createElement('dt'); dt.textContent = k;
        const dd = document.createElement('dd'); dd.textContent = v === undefined || v === null ? '—' : String(v);
        dl.appendChild(dt); dl.appendChild(dd);
      }
      show('registration-empty', false);
    } catch (err) { failed(err, 'Table'); }
  }

  // ---- Navigation and the refresh loop ----
  function view() {
    const name = (location.hash || '#overview').slice(1);
    const known = ['overview', 'data', 'catalog'].includes(name) ? name : 'overview';
    for (const v of ['overview', 'data', 'catalog']) {
      show('view-' + v, v === known);
      $('tab-' + v).className = v === known ? 'active' : '';
    }
    return known;
  }
  // background: the periodic refresh, which waits while a token is asked for (refused requests
  // would only pile up 401s on the node's rejection counter and in the browser's console).
  let refreshing = false;
  async function refresh(background) {
    if (refreshing || (background && state.needToken)) return;
    refreshing = true;
    try {
      const v = view();
      let tokenOk = true;
      if (v === 'overview') await refreshOverview();
      else if (v === 'catalog') {
        tokenOk = await refreshCatalog();
        if (tokenOk) api('/v1/access').then((a) => text('node-id', 'node ' + a.node_id), () => {});
      } else {
        const access = await api('/v1/access');
        text('node-id', 'node ' + access.node_id);
      }
      if (v !== 'overview' && tokenOk) banner(null);
      // The token was accepted: the panel closes if it was asking (not if the operator opened it).
      if (tokenOk && state.needToken) { state.needToken = false; show('token-panel', false); }
    } catch (err) {
      failed(err, 'Overview');
    } finally {
      refreshing = false;
    }
  }

  // The change feed, live (docs/watch.md): a Server-Sent Events stream read with fetch (so the token
  // goes in a header), from the current revision on; after a drop it resumes from the last id seen.
  async function streamChanges() {
    const headers = { Accept: 'text/event-stream' };
    const token = state.token;
    if (token) headers.Authorization = 'Bearer ' + token;
    const url = '/v1/watch' + (state.changesAfter === null ? '' : '?after=' + state.changesAfter);
    const abort = new AbortController();
    state.changesAbort = abort;
    try {
      const response = await fetch(url, { headers: headers, cache: 'no-store', signal: abort.signal });
      if (response.status === 401) {
        // Asked again only once a token is given (the token form restarts it): no polling while it
        // asks; at once if the token changed while this request was out.
        text('changes-status', 'needs a token');
        if (state.token !== token) { setTimeout(streamChanges, 0); return; }
        state.changesWaiting = true;
        return;
      }
      if (response.status === 410) {
        compacted();
      } else if (!response.ok) {
        text('changes-status', 'unavailable (' + response.status + '); trying again');
      } else {
        text('changes-status', 'watching');
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let pending = '';
        for (;;) {
          const chunk = await reader.read();
          if (chunk.done) break;
          pending += decoder.decode(chunk.value, { stream: true });
          let end;
          while ((end = pending.indexOf('\n\n')) >= 0) {
            changeBlock(pending.slice(0, end));
            pending = pending.slice(end + 2);
          }
        }
        text('changes-status', 'reconnecting…');
      }
    } catch (e) {
      // Aborted because the token changed: the restart is already on its way.
      if (abort.signal.aborted) return;
      text('changes-status', 'reconnecting…');
    }
    if (!abort.signal.aborted) setTimeout(streamChanges, 2000);
  }

  // The token changed: the stream restarts under it (it shows only what the new token may read).
  function restartChanges() {
    state.changesWaiting = false;
    if (state.changesAbort) state.changesAbort.abort();
    streamChanges();
  }

  // The feed no longer holds what follows this page's position (the tab slept past retention):
  // say so in the list, and go on from now.
  function compacted() {
    state.changesAfter = null;
    const row = $('changes').tBodies[0].insertRow(0);
    cell(row, '—'); cell(row, time(Date.now())); cell(row, 'gap: changes since the last one shown were compacted; from now on'); cell(row, '—');
    show('changes-empty', false);
  }

  // One SSE block: its id is where the stream resumes; its data, an event to show (a block
  // without data is the stream's opening, naming where it starts).
  function changeBlock(block) {
    let id = null, data = null, named = null;
    for (const line of block.split('\n')) {
      if (line.startsWith('id: ')) id = line.slice(4);
      else if (line.startsWith('data: ')) data = line.slice(6);
      else if (line.startsWith('event: ')) named = line.slice(7);
    }
    if (id !== null) state.changesAfter = id;
    // resume_after read as text: a revision may exceed what a JavaScript number holds exactly.
    if (named === 'cutoff' && data) {
      const m = /"resume_after":(\d+)/.exec(data);
      if (m) state.changesAfter = m[1];
    }
    if (named === 'error' && data && data.indexOf('"compacted"') >= 0) compacted();
    if (named !== null || data === null) return;
    const event = JSON.parse(data);
    const what = [];
    if (event.event && event.event.type) what.push(event.event.type + (event.event.namespace ? ' ' + event.event.namespace + (event.event.name ? '/' + event.event.name : '') : ''));
    for (const c of event.changes || []) what.push((c.deleted ? 'del ' : 'put ') + c.key);
    const body = $('changes').tBodies[0];
    const row = body.insertRow(0);
    cell(row, id);
    cell(row, time(event.at_ms));
    cell(row, what.join(', '));
    cell(row, event.epoch);
    while (body.rows.length > CHANGES) body.deleteRow(body.rows.length - 1);
    show('changes-empty', false);
  }

  document.addEventListener('DOMContentLoaded', () => {
    $('token-form').addEventListener('submit', (e) => {
      e.preventDefault();
      state.token = $('token').value.trim();
      if (state.token) sessionStorage.setItem('lake-token', state.token); else sessionStorage.removeItem('lake-token');
      $('token').value = '';
      show('token-panel', false);   // asked again at once if the node refuses this one
      refresh().then(() => { if (view() === 'data') browse(true); });
      restartChanges();
    });
    $('token-forget').addEventListener('click', () => { state.token = ''; sessionStorage.removeItem('lake-token'); refresh(); restartChanges(); });
    $('token-button').addEventListener('click', () => { $('token-reason').textContent = 'Set or change the token for this tab.'; show('token-panel', $('token-panel').hidden); });
    $('resign').addEventListener('click', () => show('resign-confirm', true));
    $('resign-no').addEventListener('click', () => show('resign-confirm', false));
    $('resign-yes').addEventListener('click', resign);
    $('browse-form').addEventListener('submit', (e) => { e.preventDefault(); browse(true); });
    $('next-page').addEventListener('click', () => browse(false));
    $('show-system').addEventListener('change', () => browse(true));
    window.addEventListener('hashchange', () => { refresh(); if (view() === 'data' && !$('keys').tBodies[0].rows.length) browse(true); });
    refresh();
    if (view() === 'data') browse(true);
    setInterval(() => refresh(true), REFRESH_MS);
    setInterval(tick, 250);
    streamChanges();
  });
})();
