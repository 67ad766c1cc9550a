import { closeSync, openSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/core/errors.js';
import type { ExecEvent } from '../../../src/exec/events.js';
import { makeOutput, type OutputOptions } from '../../../src/exec/output/output.js';
import { tempDir } from '../../helpers/cli.js';
import { allowed, denied, fellBack, plan, session, start, stop, text, thought, toolCall, toolDone } from './sample-events.js';

function run(options: Partial<OutputOptions>, env: Record<string, string>, events: ExecEvent[], runExitCode = 0) {
  let out = '';
  let err = '';
  let clock = Date.parse('2026-12-01T18:00:00.000Z');
  const output = makeOutput({ format: 'text', reportPath: undefined, failOnDeny: false, quiet: false, ...options }, {
    stdout: (t) => { out += t; }, stderr: (t) => { err += t; }, stdoutIsTTY: false, stderrIsTTY: false, env,
    now: () => clock, token: () => 'TOKEN0123456789', tickMs: 0,
  });
  for (const e of events) { clock += 100; output.onEvent(e); }
  const code = output.finish({ exitCode: runExitCode });
  return { code, out, err, output, stdoutNow: () => out };
}

const EVENTS: ExecEvent[] = [start, session, thought, plan, toolCall('call_1', 'npm test'), allowed('npm test'), toolDone('call_1'),
  denied('git push --force'), fellBack('/work/repo/package.json'), text('Done.'), stop];

describe('exec output', () => {
  it('json: stdout is one event per line, exactly as given, then the summary (with the final exit code) last', () => {
    const { out, code } = run({ format: 'json', failOnDeny: true }, {}, [...EVENTS, { v: 1, type: 'summary', time: 'x', exitCode: 0, stopReason: null, durationMs: 0, counts: { toolCalls: 0, allowed: 0, denied: 0, fellBack: 0, answeredByHuman: 0 } }]);
    const lines = out.trimEnd().split('\n').map((l) => JSON.parse(l) as ExecEvent);
    expect(lines.slice(0, -1)).toEqual(EVENTS);
    expect(lines.at(-1)).toEqual({
      v: 1, type: 'summary', time: '2026-12-01T18:00:01.200Z', exitCode: 4, stopReason: 'end_turn', durationMs: 1200,
      counts: { toolCalls: 1, allowed: 1, denied: 1, fellBack: 1, answeredByHuman: 0 },
    });
    expect(code).toBe(4);
  });

  it('--report FILE gets the Markdown; GITHUB_STEP_SUMMARY gets it appended after what was there', () => {
    const dir = tempDir();
    const report = join(dir, 'report.md');
    const summary = join(dir, 'summary.md');
    writeFileSync(summary, '# earlier step\n');
    run({ reportPath: report }, { GITHUB_STEP_SUMMARY: summary }, EVENTS);
    const markdown = readFileSync(report, 'utf8');
    expect(markdown).toContain('## acp-broker exec: success\n');
    expect(markdown).toContain('| 1 | DENY | git push --force | rule destructive | rule destructive denies git push --force |');
    expect(readFileSync(summary, 'utf8')).toBe(`# earlier step\n${markdown}`);
  });

  it('GITHUB_ACTIONS=true: commands paused while the agent runs, then one warning per refusal — on stderr, also in json mode', () => {
    const { out, err } = run({ format: 'json' }, { GITHUB_ACTIONS: 'true' }, EVENTS);
    expect(out).not.toContain('::');
    expect(err).toBe([
      '::stop-commands::TOKEN0123456789',
      '::TOKEN0123456789::',
      '::warning title=acp-broker%3A denied::DENY git push --force [rule destructive]: rule destructive denies git push --force',
      '::warning title=acp-broker%3A fell back::DENY Write /work/repo/package.json [rule edits asked, non-interactive fallback (deny)]: rule edits asks before writing /work/repo/package.json',
      '',
    ].join('\n'));
  });

  it('text mode in GitHub Actions: the pause comes before any agent text, the warnings after the last line', () => {
    const { err, out } = run({}, { GITHUB_ACTIONS: 'true' }, EVENTS);
    expect(out).toBe('Done.\n');
    const lines = err.trimEnd().split('\n');
    expect(lines[0]).toBe('::stop-commands::TOKEN0123456789');
    expect(lines.indexOf('::TOKEN0123456789::')).toBe(lines.length - 3);
    expect(lines.slice(-2).every((l) => l.startsWith('::warning '))).toBe(true);
  });

  it('a crash after the pause resumes commands when the process exits; a finished run does not resume twice', () => {
    const make = () => {
      let err = '';
      let resumeAtExit: (() => void) | undefined;
      const output = makeOutput({ format: 'json', reportPath: undefined, failOnDeny: false, quiet: false }, {
        stdout: () => {}, stderr: (t) => { err += t; }, stdoutIsTTY: false, stderrIsTTY: false, env: { GITHUB_ACTIONS: 'true' },
        now: () => 0, token: () => 'T0K3N', tickMs: 0, atExit: (resume) => { resumeAtExit = resume; },
      });
      output.onEvent(start);
      return { output, exit: () => resumeAtExit!(), err: () => err };
    };
    const crashed = make();
    crashed.exit();
    expect(crashed.err()).toBe('::stop-commands::T0K3N\n::T0K3N::\n');
    const finished = make();
    finished.output.finish({ exitCode: 0 });
    finished.exit();
    expect(finished.err()).toBe('::stop-commands::T0K3N\n::T0K3N::\n');
  });

  it('outside GitHub Actions (or GITHUB_ACTIONS other than true): no workflow commands, no step summary', () => {
    for (const env of [{}, { GITHUB_ACTIONS: 'false' }]) expect(run({}, env, EVENTS).err).not.toContain('::');
  });

  it('a run that never started leaves no pause behind', () => {
    const { err } = run({}, { GITHUB_ACTIONS: 'true' }, [], 127);
    expect(err).not.toContain('stop-commands');
    expect(err).not.toContain('::TOKEN');
  });

  it('--fail-on-deny in text mode says why the exit code is 4', () => {
    const { code, err } = run({ failOnDeny: true }, {}, EVENTS);
    expect(code).toBe(4);
    expect(err.trimEnd().split('\n').at(-1)).toBe('acp-broker: 2 request(s) denied or fell back: exit code 4 (--fail-on-deny)');
  });

  it('the report goes to the file opened before the agent ran, not to a symlink put in its place', () => {
    const dir = tempDir();
    const report = join(dir, 'report.md');
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'keep me\n');
    const output = makeOutput({ format: 'json', reportPath: report, failOnDeny: false, quiet: false }, {
      stdout: () => {}, stderr: () => {}, stdoutIsTTY: false, stderrIsTTY: false, env: {}, now: () => 0, tickMs: 0,
    });
    const opened = openSync(report, 'r');
    unlinkSync(report);
    symlinkSync(victim, report);
    output.onEvent(start);
    output.finish({ exitCode: 0 });
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n');
    expect(readFileSync(opened, 'utf8')).toContain('## acp-broker exec: success');
    closeSync(opened);
  });

  it('a report file that cannot be written is a bad-input error (exit 2) before anything runs', () => {
    let thrown: unknown;
    try {
      run({ reportPath: join(tempDir(), 'no-such-dir', 'r.md') }, {}, []);
    } catch (error) { thrown = error; }
    expect(thrown).toBeInstanceOf(BrokerError);
    expect((thrown as BrokerError).code).toBe('bad_input');
    expect((thrown as BrokerError).message).toMatch(/^cannot write the report .*no-such-dir\/r\.md: /);
  });

  it('a step summary that cannot be written is one line on stderr; the run\'s exit code stands', () => {
    const { code, err } = run({}, { GITHUB_STEP_SUMMARY: join(tempDir(), 'missing', 's.md') }, EVENTS);
    expect(code).toBe(0);
    expect(err).toMatch(/acp-broker: cannot write the step summary .*missing\/s\.md: /);
  });

  it('events after finish are ignored; finishing twice is a bug', () => {
    const { output, out, stdoutNow } = run({ format: 'json' }, {}, EVENTS);
    output.onEvent(text('late'));
    expect(stdoutNow()).toBe(out);
    expect(() => output.finish({ exitCode: 0 })).toThrow('finished twice');
  });
});
