import { setImmediate as nextTurn } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import { auditLine, type AuditSink } from '../audit/sink.js';
import { encode } from '../protocol/jsonrpc.js';
import { Broker, type DecisionDeps } from '../broker/broker.js';

/**
 * A rehearsal of the decision path, run once the engine has loaded and before the first real
 * decision. Node runs JavaScript interpreted until the JIT has seen it often enough: cold, one
 * decision costs several times a warm one, and a session's first thousands of decisions would pay
 * that. So a throwaway Broker (same code, same policy, parser and grants, nothing of its own kept)
 * decides synthetic requests shaped like the real agents' traffic. Its answers, forwards and audit
 * events go nowhere; it reads grants and never writes them (nobody answers its escalations).
 * It runs in slices so the relay goes on meanwhile, and stops at a time budget.
 */
export interface RehearsalOptions {
  /** Synthetic permission requests to decide (fewer if the budget runs out). */
  readonly requests: number;
  /** Wall-clock budget in ms; the rehearsal stops when it is spent. */
  readonly budgetMs: number;
  /** Longest stretch without yielding to the event loop, in ms. */
  readonly sliceMs: number;
  /**
   * Real work has arrived (a line from the agent or the editor): the rehearsal stops at once, before
   * its next synthetic request — it never competes with real traffic for the CPU.
   */
  readonly stop?: () => boolean;
}

export const DEFAULT_REHEARSAL: RehearsalOptions = { requests: 4000, budgetMs: 1000, sliceMs: 4 };

/** Resolves with the number of synthetic requests decided. Never throws: a failure only ends it early. */
export async function rehearseDecisions(deps: DecisionDeps, options: RehearsalOptions = DEFAULT_REHEARSAL): Promise<number> {
  // Events are serialized as the real sink would, then dropped.
  const audit: AuditSink = { write: (event) => void auditLine(event), close: async () => {} };
  let ids = 0;
  const broker = new Broker({
    ...deps, audit, toAgent: () => {}, toClient: () => {}, log: () => {}, newDecisionId: () => `rehearsal-${++ids}`,
  });
  const workspace = deps.fallbackWorkspace;
  broker.fromClient(encode({ jsonrpc: '2.0', id: 'rehearsal', method: 'session/new', params: { cwd: workspace, mcpServers: [] } }));
  broker.fromAgent(encode({ jsonrpc: '2.0', id: 'rehearsal', result: { sessionId: SESSION } }));
  const started = performance.now();
  let done = 0;
  try {
    const stop = options.stop ?? (() => false);
    while (done < options.requests && performance.now() - started < options.budgetMs && !stop()) {
      const sliceEnd = performance.now() + options.sliceMs;
      do {
        for (const l of syntheticCall(done, workspace)) broker.fromAgent(l);
        done++;
      } while (done < options.requests && performance.now() < sliceEnd && !stop());
      await nextTurn();
    }
  } catch {
    // A throwing decision path fails closed for real requests too; the rehearsal just ends.
  } finally {
    broker.shutdown();
  }
  return done;
}

const SESSION = 'acp-broker-rehearsal';
const CLAUDE_OPTIONS = [
  { kind: 'allow_always', name: 'Always Allow', optionId: 'allow_always' },
  { kind: 'allow_once', name: 'Allow', optionId: 'allow' },
  { kind: 'reject_once', name: 'Reject', optionId: 'reject' },
];
const GEMINI_OPTIONS = [
  { optionId: 'proceed_always', name: 'Allow for this session', kind: 'allow_always' },
  { optionId: 'proceed_once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'cancel', name: 'Reject', kind: 'reject_once' },
];

/** Commands of the shapes the shell analysis meets: plain, compound, redirected, needing the full parser. */
const COMMANDS: readonly ((n: number) => string)[] = [
  (n) => `npm test -- --shard=${n}`,
  (n) => `echo ${n} && git status`,
  (n) => `git diff --stat HEAD~${n} | head -n 20`,
  (n) => `rm -rf build-${n}`,
  (n) => `ls -la dir${n} > /tmp/listing-${n}.txt`,
  (n) => `cd src && grep -rn "item${n}" .`,
  (n) => `npm run lint -- --fix src/${n}; git add -A`,
  (n) => `echo "$(date) run ${n}" >> log.txt`,
];

/** The lines one agent sends for one tool call, cycling through claude-, gemini- and codex-shaped requests. */
function syntheticCall(n: number, workspace: string): Buffer[] {
  const command = COMMANDS[n % COMMANDS.length]!(n);
  const toolCallId = `rehearsal-${n}`;
  const file = `${workspace}/src/module-${n}.ts`;
  const request = (toolCall: object, options: object[]) =>
    encode({ jsonrpc: '2.0', id: `rehearsal-${n}`, method: 'session/request_permission', params: { sessionId: SESSION, options, toolCall } });
  const update = (update: object) => encode({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: SESSION, update } });
  switch (n % 6) {
    case 0: { // claude-code-acp: the tool_call carries the input, the request names it
      const rawInput = { command, description: 'Run a command' };
      return [
        update({ toolCallId, sessionUpdate: 'tool_call', rawInput, status: 'pending', title: `\`${command}\``, kind: 'execute', content: [] }),
        request({ toolCallId, rawInput, title: `\`${command}\`` }, CLAUDE_OPTIONS),
      ];
    }
    case 1: // gemini-cli: the title is the command
      return [request({ toolCallId, status: 'pending', title: command, content: [], locations: [], kind: 'execute' }, GEMINI_OPTIONS)];
    case 2: // codex-acp: argv with bash -lc
      return [request({ toolCallId, kind: 'execute', status: 'pending', title: command,
        rawInput: { call_id: toolCallId, command: ['/bin/bash', '-lc', command], cwd: workspace } }, CLAUDE_OPTIONS)];
    case 3: { // an edit with its location and diff
      const rawInput = { file_path: file, content: `export const n = ${n};\n` };
      return [
        update({ toolCallId, sessionUpdate: 'tool_call', rawInput, status: 'pending', title: `Write ${file}`, kind: 'edit',
          content: [{ type: 'diff', path: file, oldText: null, newText: rawInput.content }], locations: [{ path: file }] }),
        request({ toolCallId, rawInput, title: `Write ${file}` }, CLAUDE_OPTIONS),
      ];
    }
    case 4: // a read
      return [request({ toolCallId, status: 'pending', title: `Read ${file}`, locations: [{ path: file }], kind: 'read' }, GEMINI_OPTIONS)];
    default: // a fetch
      return [request({ toolCallId, status: 'pending', title: `Fetch https://docs.example.com/page-${n}`, kind: 'fetch',
        rawInput: { url: `https://docs.example.com/page-${n}` } }, GEMINI_OPTIONS)];
  }
}
