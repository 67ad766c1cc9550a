import { describe, expect, it } from 'vitest';
import type { ExecEvent, SummaryEvent } from '../../../src/exec/events.js';
import { cell, inline, renderReport } from '../../../src/exec/output/report.js';
import { countsOf, newTally, recordEvent } from '../../../src/exec/output/tally.js';
import { allowed, denied, error, fellBack, session, start, stop, toolCall, toolDone } from './sample-events.js';

function report(events: ExecEvent[], exitCode: number, durationMs = 12_345): string {
  const tally = newTally();
  for (const e of events) recordEvent(tally, e);
  const summary: SummaryEvent = { v: 1, type: 'summary', time: 't', exitCode, stopReason: tally.stopReason, durationMs, counts: countsOf(tally) };
  return renderReport(tally, summary);
}

describe('the --report Markdown', () => {
  it('says what the agent did: result, counts, every refused request with rule and reason, every tool call', () => {
    const md = report([start, session, toolCall('call_1', 'npm test'), allowed('npm test'), toolDone('call_1'),
      toolCall('call_2', 'git push --force'), denied('git push --force'), toolDone('call_2', 'failed'), fellBack('/work/repo/package.json'), stop], 4);
    expect(md).toBe(`## acp-broker exec: a request was denied (--fail-on-deny)

| | |
|---|---|
| Agent | claude-code-acp --verbose (claude-code 0.16.2) |
| Working directory | /work/repo |
| Stop reason | end\\_turn |
| Exit code | 4 (a request was denied (--fail-on-deny)) |
| Duration | 12.3 s |
| Tool calls | 2 |
| Allowed | 1 |
| Denied | 1 |
| Fell back (non-interactive) | 1 |
| Answered by a person | 0 |

### Denied or fallen-back requests (2)

| # | Verdict | Request | Decided by | Reason |
|---|---|---|---|---|
| 1 | DENY | git push --force | rule destructive | rule destructive denies git push --force |
| 2 | DENY | Write /work/repo/package.json | rule edits asked, non-interactive fallback (deny) | rule edits asks before writing /work/repo/package.json |

### Tool calls (2)

| # | Tool call | Kind | Status |
|---|---|---|---|
| 1 | npm test | execute | completed |
| 2 | git push --force | execute | failed |
`);
  });

  it('a run that failed says so, with no stop reason and its error', () => {
    const md = report([start, error], 1);
    expect(md).toContain('## acp-broker exec: the turn failed\n');
    expect(md).toContain('| Stop reason | none (the turn did not end) |\n');
    expect(md).toContain('### Denied or fallen-back requests (0)\n\nNone.\n');
    expect(md).toContain('### Errors\n\n- turn_failed: session/prompt failed: {"code":-32603}\n');
  });

  it('whatever the agent wrote stays text: no table break, link, image, HTML or math', () => {
    const md = report([denied('echo a | tee b\n![x](https://e.vil/p.png) <img src=x> [l](u) $x$ `c` **b**')], 0);
    const row = md.split('\n').find((l) => l.startsWith('| 1 |'))!;
    expect(row.split(/(?<!\\)\|/)).toHaveLength(7); // 5 cells, none split by the agent's '|'
    expect(row).toContain('echo a \\| tee b<br>\\!\\[x\\](https://e.vil/p.png) \\<img src=x\\> \\[l\\](u) \\$x\\$ \\`c\\` \\*\\*b\\*\\*');
    expect(inline('a\nb\r\nc')).toBe('a b c');
    expect(cell('a\r\nb')).toBe('a<br>b');
  });

  it('more than 500 rows: the table is cut and says how many more the audit log has', () => {
    const events = Array.from({ length: 502 }, (_, i) => toolCall(`c${i}`, `cmd ${i}`));
    const md = report(events, 0);
    expect(md).toContain('| 500 | cmd 499 |');
    expect(md).not.toContain('| 501 |');
    expect(md).toContain('… and 2 more (the audit log has every one).');
  });
});
