import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileAuditSink, type AuditSink } from '../audit/sink.js';
import { BrokerError } from '../core/errors.js';
import type { Engine } from '../engine/engine.js';
import { decisionIdGenerator, engineDecisionDeps, openGrantStore } from '../engine/relay-deps.js';
import { brokerDirs } from '../platform/dirs.js';
import { signalAgentTree } from '../relay/process-group.js';
import { runAgent } from '../relay/run-agent.js';
import { EXEC_EXIT, type DecisionOutputEvent, type ExecEvent } from '../exec/events.js';
import { readMcpConfig } from '../exec/mcp-config.js';
import { eventOfAudit } from '../exec/session-events.js';
import { RunTally } from '../exec/tally.js';
import { whenDecisionsReady } from '../startup/deferred-loading.js';
import { tuneJitForRelay } from '../startup/jit-tuning.js';
import { LateGrantStore } from '../startup/late-grant-store.js';
import { startEngine } from '../startup/start-engine.js';
import { approvalsChannel } from './approvals.js';
import { single, type ParsedArgs } from './args.js';
import { policySources } from './policy-sources.js';
import { readPromptFile } from './preflight.js';

/**
 * `acp-broker exec`: a headless run for CI. The agent is wrapped by the broker in non-interactive
 * mode and driven by exec's SDK client (src/exec/), which carries out the fs and terminal calls the
 * broker let through. Exit codes: EXEC_EXIT (src/exec/events.ts).
 */
export async function execCommand(args: ParsedArgs): Promise<number> {
  if (args.agent.length === 0) throw new BrokerError('usage', 'missing the agent command: acp-broker exec --prompt TEXT -- AGENT_COMMAND [ARGS...]');
  const promptText = single(args, '--prompt');
  const promptFile = single(args, '--prompt-file');
  if ((promptText === undefined) === (promptFile === undefined)) throw new BrokerError('usage', 'give exactly one of --prompt TEXT or --prompt-file FILE');
  // A bad --mcp-config is a usage error before anything is read or started.
  const mcpConfig = single(args, '--mcp-config');
  const mcpServers = mcpConfig === undefined ? [] : readMcpConfig(mcpConfig);
  const prompt = promptText === '-' ? await readStdin() : promptText ?? readPromptFile(promptFile!);
  const maxDuration = single(args, '--max-duration');
  tuneJitForRelay();
  const cwd = resolve(single(args, '--cwd') ?? process.cwd());
  const stderr = (s: string) => process.stderr.write(s);
  const dirs = brokerDirs();
  const starting = await startEngine(policySources(args, dirs), dirs, stderr, { watch: true });
  if (!starting) return EXEC_EXIT.usage;
  let engine: Engine | undefined;
  const quiet = args.flags.has('--quiet');
  const tally = new RunTally();
  const consume = textConsumer({ quiet, stdout: (s) => process.stdout.write(s), stderr });
  const emit = (event: ExecEvent) => { tally.see(event); consume(event); };
  const auditPath = single(args, '--audit') ?? join(dirs.state, 'audit.jsonl');
  // A CI run's record must exist: an audit file that cannot be opened fails the run before it starts.
  const fileSink = fileAuditSink(auditPath, (m) => stderr(`${m}\n`), undefined, { required: true });
  const audit: AuditSink = {
    write(event) {
      fileSink.write(event);
      const decision = eventOfAudit(event);
      if (decision) emit(decision);
      else if (event.event === 'unprompted' && !quiet) stderr(`acp-broker: unprompted ${event.kind} ${event.title ?? ''}\n`);
    },
    close: () => fileSink.close(),
  };
  // Decisions wait for the parser, the layered policy and the grants store, all loading in parallel
  // with the agent's own start-up.
  const grants = new LateGrantStore();
  const decisionsReady = whenDecisionsReady({
    engine: starting.ready, grants: openGrantStore(dirs, audit, stderr), attach: (ready, store) => { engine = ready; grants.attach(store); },
  });
  const agentCommand = args.agent as [string, ...string[]];
  const [command, ...agentArgs] = agentCommand;
  // With the approvals daemon, an ask waits for a human there until --timeout, then falls back.
  const approvals = await approvalsChannel(args, stderr);
  const timeout = Number(single(args, '--timeout') ?? EXEC_APPROVAL_TIMEOUT_S);
  const clientToBroker = new PassThrough();
  const brokerToClient = new PassThrough();
  const session = runAgent({
    command, args: agentArgs, clientIn: clientToBroker, clientOut: brokerToClient, stderr: process.stderr, cwd,
    deps: {
      // Used only once decisionsReady has resolved (the broker holds decisions until then).
      ...engineDecisionDeps(() => engine, { dirs, grants, fallbackWorkspace: cwd, nonInteractive: true }),
      decisionsReady, audit, newDecisionId: decisionIdGenerator(), log: (m) => stderr(`${m}\n`),
      ...(approvals ? { channels: [approvals], escalationTimeoutMs: timeout * 1000 } : {}),
    },
  });
  // A signal ends the agent's whole process group first (as in `run`); exec then ends as a failed
  // turn once the agent's exit is known, its terminals with it. Without this they outlive exec.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => signalAgentTree(session.child, signal));
  }
  // The SDK client (zod and its schemas: ~250 ms) loads while the agent boots, not before its spawn.
  const [{ runExec }, { Terminals }] = await Promise.all([import('../exec/run.js'), import('../exec/terminals.js')]);
  const terminals = new Terminals({ cwd });
  // Everything the agent wrote has been relayed once its exit is known: the client then sees the
  // end of the stream, so a turn cut short (or an agent that never started) fails instead of waiting.
  void session.exitCode.then(() => brokerToClient.end());
  const code = await runExec({
    toAgent: clientToBroker, fromAgent: brokerToClient, agentCommand, cwd, prompt, mcpServers, terminals,
    ...(maxDuration !== undefined ? { maxDurationMs: Number(maxDuration) * 1000 } : {}),
    agentExit: session.exitCode, startError: session.startError, signalAgent: (signal) => signalAgentTree(session.child, signal),
    emit, tally,
  });
  approvals?.close();
  await audit.close();
  return code;
}

/**
 * Today's text output, until the renderers of src/exec/output take over: agent text on stdout,
 * decisions and the run's end on stderr.
 */
function textConsumer(io: { quiet: boolean; stdout: (s: string) => void; stderr: (s: string) => void }): (event: ExecEvent) => void {
  return (event) => {
    switch (event.type) {
      case 'text': io.stdout(event.text); break;
      case 'session': if (!io.quiet) io.stderr(`acp-broker: session ${event.sessionId}\n`); break;
      case 'decision': if (!io.quiet) io.stderr(`${describeDecision(event)}\n`); break;
      case 'stop': io.stderr(`acp-broker: turn ended: ${event.stopReason}\n`); break;
      case 'summary': io.stdout('\n'); break;
      // The relay has already said why an agent could not start.
      case 'error': if (event.code !== 'agent_start_failed') io.stderr(`acp-broker: ${event.message}\n`); break;
      default: break;
    }
  };
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** How long `exec` waits for an answer in the approvals daemon before the fallback, by default. */
const EXEC_APPROVAL_TIMEOUT_S = 300;

function describeDecision(event: DecisionOutputEvent): string {
  const what = event.command ?? event.title ?? event.kind ?? event.method;
  const source = event.source;
  const by = source.type === 'rule' ? `rule ${source.ruleId}` : source.type === 'grant' ? `grant ${source.grantId}`
    : source.type === 'fallback' ? `non-interactive fallback (${source.fallback})` : source.type;
  return `acp-broker: ${event.decision.toUpperCase().padEnd(9)} ${what}  [${by}] ${event.reason ?? ''}`;
}
