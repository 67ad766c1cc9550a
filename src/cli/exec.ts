import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileAuditSink, type AuditSink } from '../audit/sink.js';
import { BrokerError } from '../core/errors.js';
import { EXEC_EXIT } from '../exec/events.js';
import type { Engine } from '../engine/engine.js';
import { decisionIdGenerator, engineDecisionDeps, openGrantStore } from '../engine/relay-deps.js';
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
import { runHeadlessClient } from './exec-client.js';
import { readPromptFile } from './preflight.js';
import { decisionFromAudit, endOfTurn, eventsFromUpdate, sessionEvent } from '../exec/output/adapt.js';
import { outputOptions } from '../exec/output/options.js';
import { makeOutput, processOutputDeps } from '../exec/output/output.js';

/**
 * `acp-broker exec`: a headless run for CI. The agent is wrapped by the broker in non-interactive
 * mode and driven by a built-in client. What it shows, reports and exits with is exec/output's:
 * the run's events go to `output.onEvent`, and `output.finish` gives the exit code.
 */
export async function execCommand(args: ParsedArgs): Promise<number> {
  if (args.agent.length === 0) throw new BrokerError('usage', 'missing the agent command: acp-broker exec --prompt TEXT -- AGENT_COMMAND [ARGS...]');
  const promptText = single(args, '--prompt');
  const promptFile = single(args, '--prompt-file');
  if ((promptText === undefined) === (promptFile === undefined)) throw new BrokerError('usage', 'give exactly one of --prompt TEXT or --prompt-file FILE');
  const prompt = promptText ?? readPromptFile(promptFile!);
  const outputFlags = outputOptions(args);
  const output = makeOutput(outputFlags, processOutputDeps());
  const now = () => new Date().toISOString();
  tuneJitForRelay();
  const cwd = resolve(single(args, '--cwd') ?? process.cwd());
  const stderr = (s: string) => process.stderr.write(s);
  const dirs = brokerDirs();
  const starting = await startEngine(policySources(args, dirs), dirs, stderr, { watch: true });
  if (!starting) return 2;
  let engine: Engine | undefined;
  // Decisions wait for the parser, the layered policy and the grants store, all loading in parallel
  // with the agent's own start-up.
  const quiet = args.flags.has('--quiet');
  const auditPath = single(args, '--audit') ?? join(dirs.state, 'audit.jsonl');
  // A CI run's record must exist: an audit file that cannot be opened fails the run before it starts.
  const fileSink = fileAuditSink(auditPath, (m) => stderr(`${m}\n`), undefined, { required: true });
  const audit: AuditSink = {
    write(event) {
      fileSink.write(event);
      const decision = decisionFromAudit(event);
      if (decision) output.onEvent(decision);
      else if (event.event === 'unprompted' && outputFlags.format === 'text' && !quiet) stderr(`acp-broker: unprompted ${event.kind} ${event.title ?? ''}\n`);
    },
    close: () => fileSink.close(),
  };
  const grants = new LateGrantStore();
  const decisionsReady = whenDecisionsReady({
    engine: starting.ready, grants: openGrantStore(dirs, audit, stderr), attach: (ready, store) => { engine = ready; grants.attach(store); },
  });
  const [command, ...agentArgs] = args.agent as [string, ...string[]];
  // With the approvals daemon, an ask waits for a human there until --timeout, then falls back.
  const approvals = await approvalsChannel(args, stderr);
  const timeout = Number(single(args, '--timeout') ?? EXEC_APPROVAL_TIMEOUT_S);
  output.onEvent({ v: 1, type: 'start', time: now(), agent: { command, args: agentArgs }, cwd });
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
  // turn once the agent's exit is known. Without this the agent and its commands outlive exec.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => signalAgentTree(session.child, signal));
  }
  // Everything the agent wrote has been relayed once its exit is known: the client then sees the
  // end of the stream, so a turn cut short (or an agent that never started) fails instead of waiting.
  void session.exitCode.then(() => brokerToClient.end());
  const result = await runHeadlessClient({
    toAgent: clientToBroker, fromAgent: brokerToClient, cwd, prompt,
    onText: () => {},
    onUpdate: (update) => { for (const event of eventsFromUpdate(update, now())) output.onEvent(event); },
    onSession: (sessionId, agentInfo) => output.onEvent(sessionEvent(sessionId, agentInfo, now())),
    onLog: () => {},
  });
  clientToBroker.end();
  const agentCode = await session.exitCode;
  approvals?.close();
  await audit.close();
  const startError = session.startError();
  if (startError) {
    output.onEvent({ v: 1, type: 'error', time: now(), code: 'agent_start_failed', message: `cannot start the agent \`${command}\`: ${startError.message}` });
    return output.finish({ exitCode: EXEC_EXIT.agentCannotStart });
  }
  const end = endOfTurn(result, agentCode, now());
  for (const event of end.events) output.onEvent(event);
  return output.finish({ exitCode: end.exitCode });
}

/** How long `exec` waits for an answer in the approvals daemon before the fallback, by default. */
const EXEC_APPROVAL_TIMEOUT_S = 300;
