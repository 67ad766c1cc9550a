import { describe, expect, it } from 'vitest';
import type { ExecEvent } from '../../../src/exec/events.js';
import { describeDecision } from '../../../src/exec/output/decision-line.js';
import { newTally, recordEvent } from '../../../src/exec/output/tally.js';
import { formatElapsed, TextRenderer, type OutputIO } from '../../../src/exec/output/text-renderer.js';
import { allowed, denied, fellBack, session, start, stop, text, toolCall, toolDone } from './sample-events.js';

// Text mode, byte for byte: what lands on stdout and stderr, in which order, on a terminal or not.
function harness(options: { stdoutIsTTY?: boolean; stderrIsTTY?: boolean; env?: Record<string, string>; quiet?: boolean } = {}) {
  const writes: [string, string][] = [];
  let clock = 1_000_000;
  const io: OutputIO = {
    stdout: (t) => writes.push(['out', t]), stderr: (t) => writes.push(['err', t]),
    stdoutIsTTY: options.stdoutIsTTY ?? false, stderrIsTTY: options.stderrIsTTY ?? false, env: options.env ?? {}, now: () => clock,
  };
  const tally = newTally();
  const renderer = new TextRenderer(io, tally, options.quiet ?? false);
  return {
    writes,
    send: (...events: ExecEvent[]) => { for (const e of events) { recordEvent(tally, e); renderer.onEvent(e); } },
    advance: (ms: number) => { clock += ms; },
    tick: () => renderer.tick(),
    finish: (ms: number) => renderer.finish(ms),
    stream: (name: 'out' | 'err') => writes.filter(([s]) => s === name).map(([, t]) => t).join(''),
  };
}

const RUN: ExecEvent[] = [start, session, toolCall('call_1', 'npm test'), allowed('npm test'), toolDone('call_1'),
  toolCall('call_2', 'git push --force'), denied('git push --force'), toolDone('call_2', 'failed'), text('All tests '), text('pass.')];

describe('exec text output', () => {
  it('not on a terminal: the reply on stdout, plain lines on stderr, no escape codes', () => {
    const h = harness();
    h.send(...RUN, stop);
    h.finish(1530);
    expect(h.stream('out')).toBe('All tests pass.\n');
    expect(h.stream('err')).toBe([
      'acp-broker: session sess-1 with claude-code 0.16.2',
      'acp-broker: TOOL      npm test  [execute]',
      'acp-broker: ALLOW     npm test  [rule tests] rule tests allows npm test',
      'acp-broker: TOOL      git push --force  [execute]',
      'acp-broker: DENY      git push --force  [rule destructive] rule destructive denies git push --force',
      'acp-broker: turn ended: end_turn',
      'acp-broker: tool calls 2, allowed 1, denied 1, fell back 0, 1.5s',
      '',
    ].join('\n'));
  });

  it('on a terminal: a status line redrawn in place, lines printed above it, cleared at the end; colours', () => {
    const h = harness({ stderrIsTTY: true });
    h.send(start, toolCall('call_1', 'npm test'));
    h.advance(5_000);
    h.tick();
    h.send(allowed('npm test'), toolDone('call_1'), denied('rm -rf /'));
    h.advance(70_000);
    h.tick();
    h.send(stop);
    h.finish(75_000);
    const CLEAR = '\r\x1b[2K';
    expect(h.writes).toEqual([
      ['err', 'acp-broker ▸ tool calls 1 · allowed 0 · denied 0 · 0s · npm test'],
      [
        'err', CLEAR], ['err', 'acp-broker ▸ tool calls 1 · allowed 0 · denied 0 · 5s · npm test'],
      ['err', CLEAR], ['err', 'acp-broker: \x1b[32mALLOW    \x1b[0m npm test  [rule tests] \x1b[2mrule tests allows npm test\x1b[0m\n'],
      ['err', 'acp-broker ▸ tool calls 1 · allowed 1 · denied 0 · 5s · npm test'],
      ['err', CLEAR], ['err', 'acp-broker ▸ tool calls 1 · allowed 1 · denied 0 · 5s'],
      ['err', CLEAR], ['err', 'acp-broker: \x1b[31mDENY     \x1b[0m rm -rf /  [rule destructive] \x1b[2mrule destructive denies rm -rf /\x1b[0m\n'],
      ['err', 'acp-broker ▸ tool calls 1 · allowed 1 · \x1b[31mdenied 1\x1b[0m · 5s'],
      ['err', CLEAR], ['err', 'acp-broker ▸ tool calls 1 · allowed 1 · \x1b[31mdenied 1\x1b[0m · 1m15s'],
      ['err', CLEAR], ['err', 'acp-broker: turn ended: end_turn\n'],
      ['err', 'acp-broker ▸ tool calls 1 · allowed 1 · \x1b[31mdenied 1\x1b[0m · 1m15s'],
      ['err', CLEAR], ['err', 'acp-broker: tool calls 1, allowed 1, denied 1, fell back 0, 75.0s\n'],
    ]);
  });

  it('NO_COLOR (non-empty) keeps the terminal status line but drops every colour; an empty NO_COLOR does not', () => {
    const noColour = harness({ stderrIsTTY: true, env: { NO_COLOR: '1' } });
    noColour.send(denied('rm -rf /'));
    noColour.finish(10);
    expect(noColour.stream('err')).not.toContain('\x1b[3');
    expect(noColour.stream('err')).toContain('acp-broker: DENY      rm -rf /  [rule destructive] rule destructive denies rm -rf /\n');
    expect(noColour.stream('err')).toContain('\r\x1b[2K');
    const empty = harness({ stderrIsTTY: true, env: { NO_COLOR: '' } });
    empty.send(denied('rm -rf /'));
    expect(empty.stream('err')).toContain('\x1b[31mDENY     \x1b[0m');
  });

  it('no colour when stderr is not a terminal, even if stdout is', () => {
    const h = harness({ stdoutIsTTY: true });
    h.send(denied('rm -rf /'));
    expect(h.stream('err')).toBe('acp-broker: DENY      rm -rf /  [rule destructive] rule destructive denies rm -rf /\n');
  });

  it('on one terminal for both streams the status line never lands inside the agent\'s half-written line', () => {
    const h = harness({ stdoutIsTTY: true, stderrIsTTY: true, env: { NO_COLOR: '1' } });
    h.send(text('Working on'));
    h.tick();
    h.send(allowed('npm test'), text(' it.\n'));
    h.finish(2000);
    expect(h.writes).toEqual([
      ['out', 'Working on'],
      ['err', '\n'], ['err', 'acp-broker: ALLOW     npm test  [rule tests] rule tests allows npm test\n'],
      ['err', 'acp-broker ▸ tool calls 0 · allowed 1 · denied 0 · 0s'],
      ['err', '\r\x1b[2K'], ['out', ' it.\n'],
      ['err', 'acp-broker ▸ tool calls 0 · allowed 1 · denied 0 · 0s'],
      ['err', '\r\x1b[2K'], ['err', 'acp-broker: tool calls 0, allowed 1, denied 0, fell back 0, 2.0s\n'],
    ]);
  });

  it('--quiet: no decision log and no status line, but the turn\'s end and errors', () => {
    const h = harness({ stderrIsTTY: true, quiet: true });
    h.send(...RUN, stop);
    h.tick();
    h.finish(100);
    expect(h.stream('err')).toBe('acp-broker: turn ended: end_turn\n');
    expect(h.stream('out')).toBe('All tests pass.\n');
  });

  it('errors show even with --quiet; a start failure is left to the relay, which already said why', () => {
    const h = harness({ quiet: true });
    h.send({ v: 1, type: 'error', time: 't', code: 'agent_start_failed', message: 'cannot start the agent `x`' },
      { v: 1, type: 'error', time: 't', code: 'connection_closed', message: 'the agent closed the connection (agent exit code 1)' });
    expect(h.stream('err')).toBe('acp-broker: the agent closed the connection (agent exit code 1)\n');
  });

  it('a status line too long for 80 columns is cut, so \\r can still redraw it', () => {
    const h = harness({ stderrIsTTY: true });
    h.send(toolCall('c', `Edit ${'x'.repeat(200)}`));
    const line = h.writes.at(-1)![1];
    expect([...line].length).toBe(79);
    expect(line.endsWith('x…')).toBe(true);
  });

  it('what the agent wrote in a title cannot break the log line or drive the terminal', () => {
    const line = describeDecision({ ...denied('x'), command: 'rm -rf /\n\x1b[2Jcleared', reason: 'two\nlines' });
    expect(line).toBe('acp-broker: DENY      rm -rf / ⏎ \ufffd[2Jcleared  [rule destructive] two ⏎ lines');
  });

  it('a fallback names the rule that asked and the fallback', () => {
    expect(describeDecision(fellBack('/work/repo/package.json'))).toBe(
      'acp-broker: DENY      Write /work/repo/package.json  [rule edits asked, non-interactive fallback (deny)] rule edits asks before writing /work/repo/package.json');
  });

  it('elapsed time reads as seconds, then minutes and seconds', () => {
    expect([formatElapsed(999), formatElapsed(59_999), formatElapsed(60_000), formatElapsed(3_725_000)]).toEqual(['0s', '59s', '1m00s', '62m05s']);
  });
});
