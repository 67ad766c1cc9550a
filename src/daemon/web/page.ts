/**
 * The inbox's HTML: a static shell with no inline script or style (the Content-Security-Policy
 * forbids both); client-script.ts fills it from the event stream.
 */

const HEAD = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">`;

export const INBOX_PAGE = `${HEAD}
<title>acp-broker inbox</title>
<link rel="stylesheet" href="/inbox.css">
<script src="/inbox.js" defer></script>
</head>
<body>
<header class="bar">
  <h1>acp-broker inbox</h1>
  <p id="connection" class="connection" role="status">connecting…</p>
</header>
<main>
  <section aria-labelledby="pending-heading">
    <h2 id="pending-heading" tabindex="-1">Waiting for you <span id="pending-count" class="count">0</span></h2>
    <p class="hint">Tab moves between answers; Enter or Space answers. <kbd>j</kbd>/<kbd>k</kbd> jump between approvals.</p>
    <p id="notice" class="notice" role="alert" hidden></p>
    <p id="settled-note" class="settled-note" role="status" hidden></p>
    <p id="empty" class="empty">Nothing is waiting for an answer.</p>
    <div id="pending" class="pending"></div>
  </section>
  <section aria-labelledby="recent-heading">
    <h2 id="recent-heading">Recent decisions</h2>
    <p id="recent-problem" class="notice" hidden></p>
    <ol id="recent" class="recent"></ol>
  </section>
</main>
</body>
</html>
`;

/** What a browser without the cookie sees: how to get in, nothing else. */
export const LOCKED_PAGE = `${HEAD}
<title>acp-broker inbox: locked</title>
</head>
<body>
<main>
  <h1>acp-broker inbox</h1>
  <p>This page needs the address with its token. Run <code>acp-broker inbox</code> to open it (or to print it).</p>
</main>
</body>
</html>
`;
