/**
 * The inbox's browser code, served as /inbox.js (a same-origin file: the Content-Security-Policy
 * allows no inline script). It keeps the list in step with the event stream (events.ts), answers
 * by POST /api/answer, and refreshes the recent decisions. Plain ES2017, no build step.
 */
import { CLIENT_RENDER } from './client-render.js';

const CLIENT_MAIN = String.raw`
var list = document.getElementById('pending');
var count = document.getElementById('pending-count');
var empty = document.getElementById('empty');
var notice = document.getElementById('notice');
var settledNote = document.getElementById('settled-note');
var connection = document.getElementById('connection');
var recent = document.getElementById('recent');
var recentProblem = document.getElementById('recent-problem');
var cards = new Map();

function updateCount() {
  count.textContent = String(cards.size);
  empty.hidden = cards.size > 0;
  document.title = (cards.size ? '(' + cards.size + ') ' : '') + 'acp-broker inbox';
}

function say(message) {
  notice.textContent = message;
  notice.hidden = !message;
}

function open(approval) {
  if (cards.has(approval.id)) return;
  var card = renderApproval(approval, answer);
  cards.set(approval.id, card);
  list.appendChild(card);
  updateCount();
}

var CHANNEL_NAMES = { client: 'the editor', web: 'the web inbox', desktop: 'a desktop notification', terminal: 'the terminal' };

function describeSettlement(card, settlement) {
  if (settlement.type === 'answered') {
    var button = settlement.optionId === undefined ? null
      : Array.from(card.querySelectorAll('button')).find(function (b) { return b.dataset.optionId === settlement.optionId; });
    return 'answered in ' + (CHANNEL_NAMES[settlement.via] || settlement.via) + (button ? ': ' + button.textContent : '');
  }
  if (settlement.type === 'withdrawn') return 'withdrawn by its broker (' + settlement.reason + ')';
  if (settlement.type === 'gone') return 'its broker is gone';
  return 'no longer waiting';
}

function settle(id, settlement) {
  var card = cards.get(id);
  if (!card) return;
  if (settlement) {
    settledNote.textContent = card.querySelector('h3').textContent + ': ' + describeSettlement(card, settlement) + '.';
    settledNote.hidden = false;
  }
  var hadFocus = card.contains(document.activeElement);
  var next = card.nextElementSibling || card.previousElementSibling;
  cards.delete(id);
  card.remove();
  updateCount();
  // A keyboard user answering one approval lands on the next one, not on the page's start.
  if (hadFocus) focusCard(next, true);
  scheduleRecent();
}

function focusCard(card, onButton) {
  if (!card) return document.getElementById('pending-heading').focus();
  var target = onButton ? card.querySelector('button:not([disabled])') : null;
  (target || card.querySelector('h3')).focus();
  card.scrollIntoView({ block: 'nearest' });
}

function answer(id, option, buttons, status) {
  // A disabled button drops the focus to the page's start: keep it in the card, on its heading.
  var card = cards.get(id);
  if (card && card.contains(document.activeElement)) card.querySelector('h3').focus();
  buttons.forEach(function (b) { b.disabled = true; });
  status.textContent = 'Sending "' + (option.name || option.kind) + '"…';
  fetch('/api/answer', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ id: id, optionId: option.optionId })
  }).then(function (response) {
    return response.json().catch(function () { return {}; }).then(function (body) {
      if (response.ok) {
        status.textContent = 'Answered: ' + (option.name || option.kind);
        return;
      }
      var message = body.message || ('The inbox refused the answer (HTTP ' + response.status + ').');
      status.textContent = message;
      say(message);
      // A settled or vanished approval will not come back: take it off the list.
      if (response.status === 409 || response.status === 404) setTimeout(function () { settle(id); }, 4000);
      else buttons.forEach(function (b) { b.disabled = false; });
    });
  }, function () {
    status.textContent = 'The inbox could not be reached; nothing was answered.';
    buttons.forEach(function (b) { b.disabled = false; });
  });
}

function tick() {
  var now = Date.now();
  document.querySelectorAll('[data-deadline]').forEach(function (node) {
    node.textContent = countdownText(node.dataset.deadline, now);
  });
}

var recentTimer = null;
function scheduleRecent() {
  if (recentTimer) clearTimeout(recentTimer);
  recentTimer = setTimeout(loadRecent, 400);
}

function loadRecent() {
  recentTimer = null;
  fetch('/api/recent', { credentials: 'same-origin' }).then(function (response) {
    return response.json().then(function (body) {
      if (!response.ok) throw new Error(body.message || 'HTTP ' + response.status);
      recent.replaceChildren.apply(recent, body.map(renderDecision));
      if (!body.length) recent.appendChild(el('li', 'empty', 'No decisions in the audit log yet.'));
      recentProblem.hidden = true;
    });
  }).catch(function (error) {
    recentProblem.textContent = error.message;
    recentProblem.hidden = false;
  });
}

function connect() {
  var source = new EventSource('/api/events');
  source.addEventListener('open', function () {
    connection.textContent = 'live';
    connection.className = 'connection live';
  });
  source.addEventListener('error', function () {
    connection.className = 'connection down';
    // A refused reconnection (the daemon restarted with a new token) is final for EventSource.
    if (source.readyState === EventSource.CLOSED) {
      connection.textContent = 'disconnected';
      say('The inbox stopped or restarted: run acp-broker inbox for its current address.');
    } else {
      connection.textContent = 'reconnecting…';
    }
  });
  source.addEventListener('snapshot', function (event) {
    var approvals = JSON.parse(event.data);
    var ids = new Set(approvals.map(function (a) { return a.id; }));
    Array.from(cards.keys()).forEach(function (id) { if (!ids.has(id)) settle(id); });
    approvals.forEach(open);
  });
  source.addEventListener('opened', function (event) { open(JSON.parse(event.data)); });
  source.addEventListener('settled', function (event) {
    var data = JSON.parse(event.data);
    settle(data.id, data.settlement);
  });
}

document.addEventListener('keydown', function (event) {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.key !== 'j' && event.key !== 'k') return;
  var all = Array.from(list.children);
  if (!all.length) return;
  var at = all.findIndex(function (card) { return card.contains(document.activeElement); });
  var next = event.key === 'j' ? Math.min(all.length - 1, at + 1) : Math.max(0, at - 1);
  focusCard(all[next], true);
  event.preventDefault();
});

updateCount();
connect();
loadRecent();
setInterval(tick, 1000);
setInterval(loadRecent, 15000);
`;

export const CLIENT_SCRIPT = `(function () {\n'use strict';\n${CLIENT_RENDER}\n${CLIENT_MAIN}\n})();\n`;
