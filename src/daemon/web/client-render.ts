/**
 * Browser code (served as /inbox.js with client-script.ts): builds an approval's card and a recent
 * decision's row. Every string from an approval goes into the page through textContent, never as
 * markup: titles, commands and diffs are written by the agent and may be hostile. Characters that
 * hide or reorder text (controls, zero-width, bidi overrides) are shown as \u{…} escapes, as in
 * grant labels (grants/describe.ts), so what the human reads is what would run.
 */
export const CLIENT_RENDER = String.raw`
var KIND_WORDS = {
  execute: 'run a command', edit: 'edit files', read: 'read files', delete: 'delete files', move: 'move files',
  fetch: 'fetch from the network', search: 'search', switch_mode: 'switch its mode', think: 'think'
};
var DIFF_CONTEXT = 3;
var DIFF_MAX_LINES = 400;

var INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

function visible(text) {
  return String(text).replace(INVISIBLE, function (ch) { return '\\u{' + ch.charCodeAt(0).toString(16) + '}'; });
}

function el(tag, className, text) {
  var node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = visible(text);
  return node;
}

function field(list, label, value, className) {
  if (value === undefined || value === null || value === '') return;
  list.appendChild(el('dt', '', label));
  var dd = el('dd', className || '', value);
  list.appendChild(dd);
  return dd;
}

function clock(iso) {
  var d = new Date(iso);
  return isNaN(d.getTime()) ? iso : d.toLocaleTimeString();
}

function countdownText(deadline, now) {
  if (!deadline) return 'waits until someone answers';
  var left = Math.round((Date.parse(deadline) - now) / 1000);
  if (isNaN(left)) return deadline;
  if (left <= 0) return 'deadline passed: falling back';
  var m = Math.floor(left / 60), s = left % 60;
  return 'falls back in ' + m + ':' + (s < 10 ? '0' : '') + s;
}

function splitLines(text) {
  var lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function diffLines(oldText, newText) {
  var a = oldText === null ? [] : splitLines(oldText);
  var b = splitLines(newText);
  var head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  var tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  var out = [];
  if (head > DIFF_CONTEXT) out.push(['gap', '… ' + (head - DIFF_CONTEXT) + ' unchanged lines']);
  for (var i = Math.max(0, head - DIFF_CONTEXT); i < head; i++) out.push(['ctx', '  ' + a[i]]);
  for (var j = head; j < a.length - tail; j++) out.push(['del', '- ' + a[j]]);
  for (var k = head; k < b.length - tail; k++) out.push(['add', '+ ' + b[k]]);
  var after = b.length - tail;
  for (var n = after; n < Math.min(b.length, after + DIFF_CONTEXT); n++) out.push(['ctx', '  ' + b[n]]);
  if (tail > DIFF_CONTEXT) out.push(['gap', '… ' + (tail - DIFF_CONTEXT) + ' unchanged lines']);
  if (out.length > DIFF_MAX_LINES) {
    var more = out.length - DIFF_MAX_LINES;
    out = out.slice(0, DIFF_MAX_LINES);
    out.push(['gap', '… ' + more + ' more lines']);
  }
  return out;
}

function renderDiff(diff) {
  var box = el('details', 'diff');
  box.open = true;
  box.appendChild(el('summary', '', (diff.oldText === null ? 'new file ' : 'edit ') + diff.path));
  var pre = el('pre', 'diff-body');
  diffLines(diff.oldText, diff.newText).forEach(function (line) {
    pre.appendChild(el('span', 'line ' + line[0], line[1] + '\n'));
  });
  box.appendChild(pre);
  return box;
}

function renderItems(items) {
  var table = el('table', 'items');
  var head = table.appendChild(el('thead')).appendChild(el('tr'));
  ['Item', 'Verdict', 'Rules'].forEach(function (h) { head.appendChild(el('th', '', h)); });
  var body = table.appendChild(el('tbody'));
  items.forEach(function (item) {
    var row = body.appendChild(el('tr'));
    row.appendChild(el('td', 'mono', item.item));
    var verdict = item.decision === null ? 'not decided' : item.decision;
    row.appendChild(el('td', 'verdict ' + (item.decision || 'none'), verdict));
    row.appendChild(el('td', 'mono', item.rules.length ? item.rules.join(', ') : '(none)'));
  });
  var wrap = el('div', 'scroll');
  wrap.appendChild(table);
  return wrap;
}

function optionClass(kind) {
  if (kind.indexOf('allow') === 0) return 'option allow' + (kind === 'allow_always' ? ' always' : '');
  if (kind.indexOf('reject') === 0) return 'option reject' + (kind === 'reject_always' ? ' always' : '');
  return 'option';
}

function renderApproval(approval, onAnswer) {
  var r = approval.request;
  var agent = r.agent || approval.broker.agent || 'an agent';
  var card = el('article', 'approval');
  card.dataset.id = approval.id;
  var headingId = 'h-' + Math.random().toString(36).slice(2);
  var where = r.workspace.replace(/[\\/]+$/, '').split(/[\\/]/).pop() || r.workspace;
  var h = el('h3', '', agent + ' wants to ' + (KIND_WORDS[r.kind] || 'use a tool (' + r.kind + ')') + ' in ' + where);
  h.id = headingId;
  h.tabIndex = -1;
  card.setAttribute('aria-labelledby', headingId);
  card.appendChild(h);
  if (r.title) card.appendChild(el('p', 'title', r.title));
  if (r.command) {
    var pre = el('pre', 'command');
    pre.appendChild(el('code', '', r.command));
    card.appendChild(pre);
  }
  if (r.paths.length) {
    var paths = el('ul', 'paths');
    r.paths.forEach(function (p) {
      var li = paths.appendChild(el('li'));
      li.appendChild(el('span', 'access', p.access));
      li.appendChild(el('span', 'mono', p.path));
    });
    card.appendChild(paths);
  }
  var why = el('p', 'reason');
  why.appendChild(el('strong', '', 'Why you are asked: '));
  why.appendChild(document.createTextNode(visible(r.reason)));
  card.appendChild(why);
  if (r.items.length) card.appendChild(renderItems(r.items));
  r.diffs.forEach(function (d) { card.appendChild(renderDiff(d)); });
  var meta = card.appendChild(el('dl', 'meta'));
  field(meta, 'Workspace', r.workspace, 'mono');
  field(meta, 'Session', r.sessionId, 'mono');
  field(meta, 'Broker', approval.broker.pid === undefined ? undefined : 'pid ' + approval.broker.pid);
  field(meta, 'Asked at', clock(approval.openedAt));
  var countdown = field(meta, 'Deadline', countdownText(r.deadline, Date.now()), 'countdown');
  if (r.deadline) countdown.dataset.deadline = r.deadline;
  var options = card.appendChild(el('div', 'options'));
  var buttons = [];
  r.options.forEach(function (option) {
    var cell = options.appendChild(el('div', 'option-cell'));
    var button = cell.appendChild(el('button', optionClass(option.kind), option.name || option.kind));
    button.type = 'button';
    button.dataset.optionId = option.optionId;
    if (option.covers) {
      var covers = cell.appendChild(el('p', 'covers', 'Remembers: ' + option.covers));
      covers.id = 'c-' + Math.random().toString(36).slice(2);
      button.setAttribute('aria-describedby', covers.id);
    }
    button.addEventListener('click', function () { onAnswer(approval.id, option, buttons, status); });
    buttons.push(button);
  });
  var status = card.appendChild(el('p', 'status'));
  status.setAttribute('role', 'status');
  return card;
}

function renderDecision(d) {
  var li = el('li', 'decision');
  var top = li.appendChild(el('div', 'decision-top'));
  top.appendChild(el('span', 'badge ' + (d.decision || 'none'), d.decision || d.outcome || '?'));
  top.appendChild(el('time', 'when', clock(d.time)));
  if (d.agent) top.appendChild(el('span', 'who', d.agent));
  if (d.by) top.appendChild(el('span', 'by', 'by ' + d.by));
  var what = d.command || d.title || d.kind;
  if (what) li.appendChild(el('div', 'what mono', what));
  if (d.reason) li.appendChild(el('div', 'why', d.reason));
  if (d.grants.length) li.appendChild(el('div', 'grants', 'remembered: ' + d.grants.join(', ')));
  return li;
}
`;
