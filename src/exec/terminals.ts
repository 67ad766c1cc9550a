/**
 * The `terminal/*` methods: each terminal runs one real process in a process group of its own, so
 * `kill`, `release` and the end of exec end everything it started (strays that left the group are
 * found as for the agent: relay/process-group.ts). A command with `args` runs as given; a command
 * alone is a shell line (that is how the broker judged it: src/facts/shell-call.ts) and runs with
 * `bash -c`. stdout and stderr go to one output, as on a terminal.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { RequestError } from '@agentclientprotocol/sdk';
import { endAgentGroup, OWN_PROCESS_GROUP, signalAgentTree } from '../relay/process-group.js';
import { OutputBuffer } from './output-buffer.js';

export interface TerminalExit {
  readonly exitCode: number | null;
  readonly signal: string | null;
}

export interface CreateTerminal {
  readonly command: string;
  readonly args?: readonly string[] | null;
  readonly env?: readonly { readonly name: string; readonly value: string }[] | null;
  readonly cwd?: string | null;
  readonly outputByteLimit?: number | null;
}

/** Output kept when the agent sets no `outputByteLimit`: a runaway command must not exhaust memory. */
export const DEFAULT_OUTPUT_BYTE_LIMIT = 16 * 1024 * 1024;
/** After the command exits, how long its output may still arrive (a child can hold the pipe open). */
const OUTPUT_AFTER_EXIT_MS = 200;

interface Terminal {
  readonly child: ChildProcess;
  readonly output: OutputBuffer;
  exit: TerminalExit | undefined;
  readonly exited: Promise<TerminalExit>;
}

export class Terminals {
  private readonly open = new Map<string, Terminal>();
  private next = 0;
  private closed = false;

  constructor(private readonly options: { readonly cwd: string; readonly env?: NodeJS.ProcessEnv }) {}

  create(params: CreateTerminal): string {
    if (this.closed) throw RequestError.internalError(undefined, 'exec is ending: no new terminal');
    const cwd = params.cwd ?? this.options.cwd;
    if (!cwd.startsWith('/')) throw RequestError.invalidParams({ cwd }, `the cwd must be absolute: ${JSON.stringify(cwd)}`);
    const args = params.args ?? [];
    const env: NodeJS.ProcessEnv = { ...(this.options.env ?? process.env) };
    for (const { name, value } of params.env ?? []) env[name] = value;
    const [program, argv] = args.length > 0 ? [params.command, [...args]] : ['bash', ['-c', params.command]];
    const child = spawn(program, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: OWN_PROCESS_GROUP });
    const output = new OutputBuffer(params.outputByteLimit ?? DEFAULT_OUTPUT_BYTE_LIMIT);
    child.stdout!.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => output.push(chunk));
    const terminal: Terminal = {
      child, output, exit: undefined,
      exited: new Promise<TerminalExit>((resolve) => {
        const settle = (exit: TerminalExit) => {
          terminal.exit ??= exit;
          resolve(terminal.exit);
        };
        child.once('error', (error) => {
          output.push(Buffer.from(`cannot start ${program}: ${error.message}\n`));
          settle({ exitCode: 127, signal: null });
        });
        child.once('exit', (code, signal) => {
          const exit = { exitCode: code, signal };
          // The last output is read before the exit is told, unless a child holds the pipes open.
          let streams = 2;
          const done = () => { if (--streams === 0) settle(exit); };
          child.stdout!.once('close', done);
          child.stderr!.once('close', done);
          setTimeout(() => settle(exit), OUTPUT_AFTER_EXIT_MS).unref();
        });
      }),
    };
    const id = `term_${++this.next}`;
    this.open.set(id, terminal);
    return id;
  }

  output(id: string): { output: string; truncated: boolean; exitStatus: TerminalExit | null } {
    const terminal = this.get(id);
    return { output: terminal.output.text(), truncated: terminal.output.truncated, exitStatus: terminal.exit ?? null };
  }

  waitForExit(id: string): Promise<TerminalExit> {
    return this.get(id).exited;
  }

  /** Ends the command and everything in its group; the terminal stays readable. */
  kill(id: string): void {
    end(this.get(id));
  }

  /** Kills what still runs and forgets the terminal. */
  release(id: string): void {
    const terminal = this.get(id);
    end(terminal);
    this.open.delete(id);
    void endAgentGroup(terminal.child.pid, 0);
  }

  /** Ends every terminal's processes, and resolves once their groups are empty. */
  async closeAll(): Promise<void> {
    this.closed = true;
    const all = [...this.open.values()];
    this.open.clear();
    for (const terminal of all) end(terminal);
    await Promise.all(all.map((terminal) => endAgentGroup(terminal.child.pid, 500)));
  }

  private get(id: string): Terminal {
    const terminal = this.open.get(id);
    if (!terminal) throw new RequestError(-32002, `Resource not found: terminal ${id}`, { terminalId: id });
    return terminal;
  }
}

/** SIGKILL to the terminal's process group (and strays): a command asked to die gets no say. */
function end(terminal: Terminal): void {
  signalAgentTree(terminal.child, 'SIGKILL');
}
