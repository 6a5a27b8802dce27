// The fedbridge console: polls /api/state every second and draws what it says. No libraries, no build step.
(function () {
  'use strict';
  var SVG = 'http://www.w3.org/2000/svg';
  var COLORS = { UP: '#2e7d32', STALLED: '#f9a825', CONNECTING: '#f9a825', DOWN: '#c62828' };

  function el(name, attrs, text) {
    var e = name.indexOf('svg:') === 0 ? document.createElementNS(SVG, name.substring(4)) : document.createElement(name);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) { e.textContent = text; }
    return e;
  }

  function peerLabel(l) {
    if (l.name) { return l.name; }
    var m = /^[a-z+]+:\/\/(?:[^@/]*@)?([^/?]+)/.exec(l.peer);
    return m ? m[1] : l.peer;
  }

  function duration(s) {
    if (s < 60) { return s.toFixed(0) + ' s'; }
    if (s < 3600) { return (s / 60).toFixed(0) + ' min'; }
    return (s / 3600).toFixed(1) + ' h';
  }

  function drawGraph(state) {
    var svg = document.getElementById('graph');
    while (svg.firstChild) { svg.removeChild(svg.firstChild); }
    var cx = 250, cy = state.links.length <= 2 ? 220 : 165, r = 140;
    // one node per peer broker (two links to one broker share its node)
    var peers = [];
    var byLabel = {};
    state.links.forEach(function (l) {
      var label = peerLabel(l);
      if (!byLabel[label]) { byLabel[label] = { label: label, links: [] }; peers.push(byLabel[label]); }
      byLabel[label].links.push(l);
    });
    var edges = el('svg:g', { 'class': 'links' });
    var nodes = el('svg:g', { 'class': 'nodes' });
    svg.appendChild(edges);
    svg.appendChild(nodes);
    peers.forEach(function (p, i) {
      // one or two peers above this broker (a triangle for three brokers), more around it
      var a = peers.length <= 2 ? -Math.PI / 2 + (peers.length === 1 ? 0 : (i === 0 ? -1 : 1) * Math.PI / 4)
        : -Math.PI / 2 + 2 * Math.PI * i / peers.length;
      p.x = cx + r * Math.cos(a) * 1.2;
      p.y = cy + r * Math.sin(a) * (peers.length <= 2 ? 1 : 0.85);
      p.links.forEach(function (l, j) {
        var off = (j - (p.links.length - 1) / 2) * 8;
        var line = el('svg:line', { 'class': 'link', 'data-peer': l.peer, 'data-peer-name': l.name || '',
          'data-state': l.state, x1: cx + off, y1: cy + off, x2: p.x + off, y2: p.y + off,
          stroke: COLORS[l.state] || '#999', 'stroke-width': 4, 'stroke-linecap': 'round' });
        line.appendChild(el('svg:title', {}, l.peer + ': ' + l.state + (l.lastError ? ' (' + l.lastError + ')' : '')));
        edges.appendChild(line);
        // the label beside the line's middle, on the side away from the centre line
        var dx = p.x - cx, dy = p.y - cy, len = Math.sqrt(dx * dx + dy * dy) || 1, side = dx < 0 ? -1 : 1;
        var mx = (cx + p.x) / 2 + off + side * 16 * dy / len * -1 + (side < 0 ? -26 : 26);
        var my = (cy + p.y) / 2 + off + 4;
        edges.appendChild(el('svg:text', { 'class': 'link-label', x: mx, y: my, 'text-anchor': 'middle' },
          l.state === 'UP' || l.state === 'STALLED' ? l.rate.toFixed(1) + ' msg/s' : l.state.toLowerCase()));
      });
      var down = p.links.every(function (l) { return l.state === 'DOWN'; });
      nodes.appendChild(node(p.label, p.x, p.y, down ? '#9e9e9e' : '#455a64'));
    });
    nodes.appendChild(node(state.broker, cx, cy, '#1565c0'));
  }

  function node(name, x, y, fill) {
    var g = el('svg:g', { 'class': 'node', 'data-broker': name });
    g.appendChild(el('svg:circle', { cx: x, cy: y, r: 30, fill: fill }));
    g.appendChild(el('svg:text', { x: x, y: y + 4, 'text-anchor': 'middle' }, name.length > 9 ? name.substring(0, 8) + '…' : name));
    g.appendChild(el('svg:title', {}, name));
    return g;
  }

  function sparkline(history) {
    var w = 120, h = 22, max = Math.max.apply(null, history.concat([1]));
    var svg = el('svg:svg', { 'class': 'spark', width: w, height: h, viewBox: '0 0 ' + w + ' ' + h });
    if (history.length === 1) { history = [history[0], history[0]]; }
    var pts = history.map(function (v, i) {
      var x = history.length < 2 ? w : i * w / (history.length - 1);
      return x.toFixed(1) + ',' + (h - 1 - v / max * (h - 2)).toFixed(1);
    });
    svg.appendChild(el('svg:polyline', { points: pts.join(' '), fill: 'none', stroke: '#1565c0', 'stroke-width': 1.5 }));
    return svg;
  }

  function row(cells, attrs) {
    var tr = el('tr', attrs);
    cells.forEach(function (c) {
      var td = el('td', c.cls ? { 'class': c.cls } : {});
      if (c.node) { td.appendChild(c.node); } else { td.textContent = c.text; }
      if (c.title) { td.title = c.title; }
      tr.appendChild(td);
    });
    return tr;
  }

  function fill(id, rows) {
    var body = document.querySelector('#' + id + ' tbody');
    while (body.firstChild) { body.removeChild(body.firstChild); }
    rows.forEach(function (r) { body.appendChild(r); });
  }

  function render(state) {
    document.getElementById('broker').textContent = state.broker;
    document.title = 'fedbridge ' + state.broker;
    var ready = document.getElementById('ready');
    ready.textContent = state.ready ? 'ready' : 'not ready';
    ready.className = 'badge ' + (state.ready ? 'ready' : 'unready');
    ready.title = state.checks.checks.filter(function (c) { return c.status !== 'UP'; })
      .map(function (c) { return c.name + ': ' + c.detail; }).join('\n');
    document.getElementById('summary').textContent = state.connections + ' connections · memory '
      + (state.memoryUsed / 1048576).toFixed(1) + ' / ' + (state.memoryLimit / 1048576).toFixed(0) + ' MiB'
      + (state.diskLow ? ' · DISK LOW' : '') + ' · ' + state.duplicatesDropped + ' duplicates dropped';
    drawGraph(state);
    fill('links', state.links.map(function (l) {
      return row([{ text: peerLabel(l), title: l.peer }, { text: l.state, cls: 'state ' + l.state },
        { text: l.forwarded, cls: 'num' }, { text: l.rate.toFixed(1), cls: 'num' }, { text: l.pending, cls: 'num' },
        { text: l.reconnects, cls: 'num' }, { text: duration(l.secondsInState), cls: 'num' },
        { text: l.lastError || '', cls: 'error', title: l.lastError || '' }], { 'class': 'link-row', 'data-peer': l.peer });
    }));
    fill('queues', state.queues.map(function (q) {
      return row([{ text: q.name }, { text: q.pending, cls: 'num depth' }, { node: sparkline(q.history) },
        { text: q.consumers, cls: 'num' }, { text: q.enqueued, cls: 'num' }, { text: q.dequeued, cls: 'num' }],
        { 'class': 'queue', 'data-queue': q.name });
    }));
  }

  function poll() {
    fetch('/api/state', { cache: 'no-store' })
      .then(function (r) { if (!r.ok) { throw new Error('HTTP ' + r.status); } return r.json(); })
      .then(function (s) {
        render(s);
        document.getElementById('status').textContent = 'updated ' + new Date(s.time).toLocaleTimeString();
        document.body.setAttribute('data-updated', String(s.time));
      })
      .catch(function (e) { document.getElementById('status').textContent = 'no contact with the broker: ' + e.message; })
      .then(function () { setTimeout(poll, 1000); });
  }

  poll();
}());
