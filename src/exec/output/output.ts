import { randomBytes } from 'node:crypto';
import { appendFileSync, closeSync, openSync, writeSync } from 'node:fs';
import { BrokerError } from '../../core/errors.js';
import { describeFsError } from '../../platform/fs-errors.js';
import { EXEC_EXIT, type ExecEvent, type SummaryEvent } from '../events.js';
import { finalExitCode } from './exit-code.js';
import { renderReport } from './report.js';
import { countsOf, newTally, recordEvent, refused, type RunTally } from './tally.js';
import { TextRenderer, type OutputIO } from './text-renderer.js';
import { refusalAnnotations, resumeCommands, stopCommands } from './workflow-commands.js';

export interface OutputOptions {
  readonly format: 'text' | 'json';
  readonly reportPath: string | undefined;
  readonly failOnDeny: boolean;
  /** Text mode: no decision log, no status line (errors and the turn's end still show). */
  readonly quiet: boolean;
}

/** How the run core says it ended: its own exit code (EXEC_EXIT), and what it knows better than the events. */
export interface RunEnd {
  readonly exitCode: number;
  readonly stopReason?: string | null;
  readonly durationMs?: number;
}

export interface ExecOutput {
  /** One call per event, in order. A `summary` given here is ignored: `finish` writes the one summary. */
  onEvent(event: ExecEvent): void;
  /** Writes the summary, the report and the annotations; returns the code `exec` exits with. */
  finish(end: RunEnd): number;
}

/** The edges `makeOutput` writes to; the optional ones have defaults. */
export interface OutputDeps extends OutputIO {
  /** The stop-commands token (random by default). */
  readonly token?: () => string;
  /** How often a terminal's status line is redrawn (0: never by itself). */
  readonly tickMs?: number;
  /** Runs `resume` if the process exits before `finish` (a crash must not leave commands paused). */
  readonly atExit?: (resume: () => void) => void;
}

/**
 * Every consumer of a run's events: the text or JSON stream, the Markdown report (file and GitHub
 * step summary), GitHub annotations and the final exit code. A report file that cannot be written is
 * an error here (exit 2), before the agent starts.
 */
export function makeOutput(options: OutputOptions, deps: OutputDeps): ExecOutput {
  const tally = newTally();
  const startedAt = deps.now();
  // Opened now, before the agent runs: the file written at the end is this one, even if the agent
  // replaced the path (with a symlink, say) in the meantime.
  let reportFd: number | undefined;
  if (options.reportPath !== undefined) {
    try {
      reportFd = openSync(options.reportPath, 'w', 0o644);
    } catch (error) {
      throw new BrokerError('bad_input', `cannot write the report ${options.reportPath}: ${describeFsError(error)}`, { cause: error });
    }
  }
  const github = deps.env['GITHUB_ACTIONS'] === 'true';
  // Annotations go to stderr in both modes: stdout is the reply (text) or the event stream (json),
  // and the runner reads workflow commands from both streams.
  // Paused when the agent is launched (the `start` event), not before: a run that never starts
  // (policy error) must not leave the step's commands paused.
  const token = github ? (deps.token ?? (() => randomBytes(16).toString('hex')))() : undefined;
  let paused = false;
  const text = options.format === 'text' ? new TextRenderer(deps, tally, options.quiet) : undefined;
  const tickMs = deps.tickMs ?? 1000;
  const ticker = text && deps.stderrIsTTY && !options.quiet && tickMs > 0 ? setInterval(() => text.tick(), tickMs) : undefined;
  ticker?.unref();
  let finished = false;

  return {
    onEvent(event) {
      if (finished || event.type === 'summary') return;
      recordEvent(tally, event);
      if (event.type === 'start' && token !== undefined && !paused) {
        deps.stderr(`${stopCommands(token)}\n`);
        paused = true;
        deps.atExit?.(() => { if (!finished) deps.stderr(`${resumeCommands(token)}\n`); });
      }
      if (text) text.onEvent(event);
      else deps.stdout(`${JSON.stringify(event)}\n`);
    },
    finish(end) {
      if (finished) throw new Error('exec output finished twice');
      finished = true;
      if (ticker) clearInterval(ticker);
      const durationMs = end.durationMs ?? Math.max(0, deps.now() - startedAt);
      const counts = countsOf(tally);
      const exitCode = finalExitCode({ runExitCode: end.exitCode, refusedCount: counts.denied + counts.fellBack, failOnDeny: options.failOnDeny });
      const summary: SummaryEvent = {
        v: 1, type: 'summary', time: new Date(deps.now()).toISOString(), exitCode,
        stopReason: end.stopReason !== undefined ? end.stopReason : tally.stopReason, durationMs, counts,
      };
      if (text) {
        text.finish(durationMs);
        if (exitCode === EXEC_EXIT.denied) deps.stderr(`acp-broker: ${counts.denied + counts.fellBack} request(s) denied or fell back: exit code ${exitCode} (--fail-on-deny)\n`);
      } else {
        deps.stdout(`${JSON.stringify(summary)}\n`);
      }
      writeReports(options, deps, tally, summary, reportFd);
      if (token !== undefined) {
        if (paused) deps.stderr(`${resumeCommands(token)}\n`);
        for (const line of refusalAnnotations(tally.decisions.filter(refused))) deps.stderr(`${line}\n`);
      }
      return exitCode;
    },
  };
}

function writeReports(options: OutputOptions, deps: OutputDeps, tally: RunTally, summary: SummaryEvent, reportFd: number | undefined): void {
  const stepSummary = deps.env['GITHUB_STEP_SUMMARY'];
  if (reportFd === undefined && !stepSummary) return;
  const markdown = `${renderReport(tally, summary)}\n`;
  const attempt = (what: string, path: string, write: (path: string, text: string) => void) => {
    try {
      write(path, markdown);
    } catch (error) {
      deps.stderr(`acp-broker: cannot write the ${what} ${path}: ${describeFsError(error)}\n`);
    }
  };
  if (reportFd !== undefined) {
    attempt('report', options.reportPath!, () => {
      const bytes = Buffer.from(markdown);
      for (let at = 0; at < bytes.length;) at += writeSync(reportFd, bytes, at);
    });
    closeSync(reportFd);
  }
  if (stepSummary) attempt('step summary', stepSummary, appendFileSync);
}

/** The real process's edges. */
export function processOutputDeps(): OutputDeps {
  return {
    stdout: (text) => { process.stdout.write(text); },
    stderr: (text) => { process.stderr.write(text); },
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    env: process.env,
    now: Date.now,
    atExit: (resume) => { process.once('exit', resume); },
  };
}
