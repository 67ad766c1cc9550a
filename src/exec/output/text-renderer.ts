import type { ExecEvent } from '../events.js';
import { COLOUR, describeDecision, oneLine, PLAIN, type LineStyle } from './decision-line.js';
import { countsOf, type RunTally } from './tally.js';

/** Where output goes and what the terminal is: injected, so every byte is testable. */
export interface OutputIO {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Milliseconds; only differences are used. */
  readonly now: () => number;
}

/** `NO_COLOR` set to anything non-empty turns colour off (no-color.org); colour needs a terminal. */
function colourWanted(io: Pick<OutputIO, 'stderrIsTTY' | 'env'>): boolean {
  return io.stderrIsTTY && !io.env['NO_COLOR'];
}

const CLEAR_LINE = '\r\x1b[2K';
/** The status line is cut to this many columns: a wrapped line cannot be redrawn with \r. */
const STATUS_WIDTH = 79;

export function formatElapsed(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}

/**
 * Text mode: the agent's reply on stdout as it streams; on stderr one line per decision and per tool
 * call, and on a terminal a status line (tool calls, allowed, denied, elapsed, the current tool)
 * redrawn in place and cleared at the end. `quiet` keeps only errors and the turn's end.
 */
export class TextRenderer {
  private readonly style: LineStyle;
  private readonly startedAt: number;
  private statusShown = false;
  private stdoutAtLineStart = true;
  private current: string | undefined;
  private done = false;

  constructor(private readonly io: OutputIO, private readonly tally: RunTally, private readonly quiet: boolean) {
    this.style = colourWanted(io) ? COLOUR : PLAIN;
    this.startedAt = io.now();
  }

  /** Called after the event is in the tally, so the status line counts it. */
  onEvent(event: ExecEvent): void {
    switch (event.type) {
      case 'text':
        this.clearStatus();
        this.io.stdout(event.text);
        if (event.text.length > 0) this.stdoutAtLineStart = event.text.endsWith('\n');
        this.drawStatus();
        return;
      case 'session':
        this.log(`acp-broker: session ${event.sessionId}${event.agent ? ` with ${oneLine(event.agent.name)}${event.agent.version ? ` ${oneLine(event.agent.version)}` : ''}` : ''}`);
        return;
      case 'tool_call':
        this.current = event.title ?? event.kind ?? event.toolCallId;
        if (!this.io.stderrIsTTY) this.log(`acp-broker: ${'TOOL'.padEnd(9)} ${oneLine(this.current)}${event.kind ? `  [${event.kind}]` : ''}`);
        else this.redraw();
        return;
      case 'tool_call_update':
        if (event.status === 'completed' || event.status === 'failed') this.current = undefined;
        this.redraw();
        return;
      case 'decision':
        this.log(describeDecision(event, this.style));
        return;
      case 'stop':
        this.log(`acp-broker: turn ended: ${oneLine(event.stopReason)}`, true);
        return;
      case 'error':
        // The relay itself says why an agent cannot start (for `run` as well); once is enough.
        if (event.code !== 'agent_start_failed') this.log(`acp-broker: ${oneLine(event.message)}`, true);
        return;
      case 'start': case 'thought': case 'plan': case 'summary':
        return;
      default: {
        const unknown: never = event;
        throw new Error(`unhandled exec event ${JSON.stringify(unknown)}`);
      }
    }
  }

  /** Redraws the status line (the elapsed time moves on). */
  tick(): void {
    this.redraw();
  }

  /** The end: the status line cleared, the reply ended with a newline, the counts as one plain line. */
  finish(durationMs: number): void {
    this.clearStatus();
    this.done = true;
    if (!this.stdoutAtLineStart) this.io.stdout('\n');
    this.stdoutAtLineStart = true;
    const c = countsOf(this.tally);
    this.log(`acp-broker: tool calls ${c.toolCalls}, allowed ${c.allowed}, denied ${c.denied}, fell back ${c.fellBack}, ${(durationMs / 1000).toFixed(1)}s`);
  }

  private log(line: string, always = false): void {
    if (this.quiet && !always) return;
    this.clearStatus();
    // On a shared terminal a line of our own must not continue the agent's half-written one.
    if (this.io.stdoutIsTTY && this.io.stderrIsTTY && !this.stdoutAtLineStart) {
      this.io.stderr('\n');
      this.stdoutAtLineStart = true;
    }
    this.io.stderr(`${line}\n`);
    this.drawStatus();
  }

  private redraw(): void {
    this.clearStatus();
    this.drawStatus();
  }

  private clearStatus(): void {
    if (!this.statusShown) return;
    this.io.stderr(CLEAR_LINE);
    this.statusShown = false;
  }

  private drawStatus(): void {
    if (!this.io.stderrIsTTY || this.quiet || this.done) return;
    // Drawn only where it cannot land inside the agent's half-written line on the same terminal.
    if (this.io.stdoutIsTTY && !this.stdoutAtLineStart) return;
    this.io.stderr(this.statusLine());
    this.statusShown = true;
  }

  private statusLine(): string {
    const c = countsOf(this.tally);
    const refused = c.denied + c.fellBack;
    const counts = `acp-broker ▸ tool calls ${c.toolCalls} · allowed ${c.allowed} · denied ${refused} · ${formatElapsed(this.io.now() - this.startedAt)}`;
    const current = this.current === undefined ? '' : ` · ${oneLine(this.current)}`;
    const line = `${counts}${current}`;
    const cut = [...line].length > STATUS_WIDTH ? `${[...line].slice(0, STATUS_WIDTH - 1).join('')}…` : line;
    return refused > 0 ? cut.replace(`denied ${refused}`, this.style.verdict('deny', `denied ${refused}`)) : cut;
  }
}
