import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileAuditSink, type AuditSink } from '../audit/sink.js';
import { BrokerError } from '../core/errors.js';
import type { Engine } from '../engine/engine.js';
import { decisionIdGenerator, engineDecisionDeps, openGrantStore } from '../engine/relay-deps.js';
import { EXEC_EXIT, type ExecEvent } from '../exec/events.js';
import { readMcpConfig } from '../exec/mcp-config.js';
import { outputOptions } from '../exec/output/options.js';
import { makeOutput, processOutputDeps } from '../exec/output/output.js';
import { decisionFromAudit } from '../exec/session-events.js';
import { brokerDirs } from '../platform/dirs.js';
import { signalAgentTree } from '../relay/process-group.js';
import { runAgent } from '../relay/run-agent.js';
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
 * broker let through. The run's events go to exec/output (text or JSON, report, annotations), whose
 * `finish` gives the exit code (EXEC_EXIT, src/exec/events.ts).
 */
export async function execCommand(args: ParsedArgs): Promise<number> {
  if (args.agent.length === 0) throw new BrokerError('usage', 'missing the agent command: acp-broker exec --prompt TEXT -- AGENT_COMMAND [ARGS...]');
  const promptText = single(args, '--prompt');
  const promptFile = single(args, '--prompt-file');
  if ((promptText === undefined) === (promptFile === undefined)) throw new BrokerError('usage', 'give exactly one of --prompt TEXT or --prompt-file FILE');
  // Bad output options or --mcp-config are usage errors before anything is read or started.
  const outputFlags = outputOptions(args);
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
  const output = makeOutput(outputFlags, processOutputDeps());
  const emit = (event: ExecEvent) => output.onEvent(event);
  let engine: Engine | undefined;
  const auditPath = single(args, '--audit') ?? join(dirs.state, 'audit.jsonl');
  // A CI run's record must exist: an audit file that cannot be opened fails the run before it starts.
  const fileSink = fileAuditSink(auditPath, (m) => stderr(`${m}\n`), undefined, { required: true });
  const audit: AuditSink = {
    write(event) {
      fileSink.write(event);
      const decision = decisionFromAudit(event);
      if (decision) emit(decision);
      else if (event.event === 'unprompted' && outputFlags.format === 'text' && !outputFlags.quiet) stderr(`acp-broker: unprompted ${event.kind} ${event.title ?? ''}\n`);
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
  // Before the spawn: under GitHub Actions `start` pauses workflow commands, and the agent's stderr
  // is ours from its first byte.
  emit({ v: 1, type: 'start', time: new Date().toISOString(), agent: { command, args: agentArgs }, cwd });
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
  const end = await runExec({
    toAgent: clientToBroker, fromAgent: brokerToClient, agentCommand, cwd, prompt, mcpServers, terminals,
    ...(maxDuration !== undefined ? { maxDurationMs: Number(maxDuration) * 1000 } : {}),
    agentExit: session.exitCode, startError: session.startError, signalAgent: (signal) => signalAgentTree(session.child, signal),
    emit,
  });
  approvals?.close();
  await audit.close();
  return output.finish(end);
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** How long `exec` waits for an answer in the approvals daemon before the fallback, by default. */
const EXEC_APPROVAL_TIMEOUT_S = 300;
