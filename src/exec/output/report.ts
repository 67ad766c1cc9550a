import { EXEC_EXIT, type SummaryEvent } from '../events.js';
import { decisionSource, decisionSubject } from './decision-line.js';
import { refused, type RunTally } from './tally.js';

/**
 * `--report FILE` (and the GitHub step summary): the run in Markdown. Everything the agent chose
 * (titles, commands, reasons quoting them, its stop reason) is escaped, so it shows as text and
 * never as a link, an image, HTML or a broken table. Decision fields arrive already masked.
 */
export function renderReport(tally: RunTally, summary: SummaryEvent): string {
  const c = summary.counts;
  const lines: string[] = [];
  lines.push(`## acp-broker exec: ${exitMeaning(summary.exitCode)}`, '');
  lines.push('| | |', '|---|---|');
  if (tally.start) lines.push(row('Agent', [tally.start.agent.command, ...tally.start.agent.args].join(' ') + agentName(tally)));
  if (tally.start) lines.push(row('Working directory', tally.start.cwd));
  lines.push(row('Stop reason', summary.stopReason ?? 'none (the turn did not end)'));
  lines.push(`| Exit code | ${summary.exitCode} (${exitMeaning(summary.exitCode)}) |`);
  lines.push(`| Duration | ${(summary.durationMs / 1000).toFixed(1)} s |`);
  lines.push(`| Tool calls | ${c.toolCalls} |`, `| Allowed | ${c.allowed} |`, `| Denied | ${c.denied} |`,
    `| Fell back (non-interactive) | ${c.fellBack} |`, `| Answered by a person | ${c.answeredByHuman} |`, '');

  const refusals = tally.decisions.filter(refused);
  lines.push(`### Denied or fallen-back requests (${refusals.length})`, '');
  if (refusals.length === 0) lines.push('None.', '');
  else {
    lines.push('| # | Verdict | Request | Decided by | Reason |', '|---|---|---|---|---|');
    refusals.slice(0, MAX_ROWS).forEach((d, i) => lines.push(
      `| ${i + 1} | ${d.decision.toUpperCase()} | ${cell(decisionSubject(d))} | ${cell(decisionSource(d))} | ${cell(d.reason ?? '')} |`));
    lines.push(...overflow(refusals.length), '');
  }

  const calls = [...tally.toolCalls.values()];
  lines.push(`### Tool calls (${calls.length})`, '');
  if (calls.length === 0) lines.push('None.', '');
  else {
    lines.push('| # | Tool call | Kind | Status |', '|---|---|---|---|');
    calls.slice(0, MAX_ROWS).forEach((call, i) => lines.push(
      `| ${i + 1} | ${cell(call.title ?? call.toolCallId)} | ${cell(call.kind ?? '')} | ${cell(call.status ?? '')} |`));
    lines.push(...overflow(calls.length), '');
  }

  if (tally.errors.length > 0) {
    lines.push('### Errors', '');
    for (const error of tally.errors) lines.push(`- ${error.code}: ${inline(error.message)}`);
    lines.push('');
  }
  return lines.join('\n');
}

/** A step summary may hold 1 MiB; a table this long is read in the audit log instead. */
const MAX_ROWS = 500;

function overflow(total: number): string[] {
  return total > MAX_ROWS ? ['', `… and ${total - MAX_ROWS} more (the audit log has every one).`] : [];
}

function agentName(tally: RunTally): string {
  const agent = tally.session?.agent;
  return agent ? ` (${agent.name}${agent.version ? ` ${agent.version}` : ''})` : '';
}

function row(label: string, value: string): string {
  return `| ${label} | ${cell(value)} |`;
}

function exitMeaning(code: number): string {
  switch (code) {
    case EXEC_EXIT.success: return 'success';
    case EXEC_EXIT.turnFailed: return 'the turn failed';
    case EXEC_EXIT.usage: return 'usage or policy error';
    case EXEC_EXIT.denied: return 'a request was denied (--fail-on-deny)';
    case EXEC_EXIT.timedOut: return 'timed out (--max-duration)';
    case EXEC_EXIT.agentCannotStart: return 'the agent could not start';
    default: return `exit code ${code}`;
  }
}

/**
 * Text inside Markdown: every character Markdown (or GitHub's: `~`, `$` math) could act on is
 * backslash-escaped — CommonMark lets any ASCII punctuation be — and line breaks become spaces.
 */
export function inline(text: string): string {
  return text.replace(/[\\`*_[\]<>#!|~&$]/g, (ch) => `\\${ch}`).replace(/\r\n|\r|\n/g, ' ');
}

/** A table cell: as inline text, but line breaks kept as `<br>` (a raw newline would end the row). */
export function cell(text: string): string {
  return text.split(/\r\n|\r|\n/).map(inline).join('<br>');
}
