import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileAuditSink } from '../audit/sink.js';
import { BrokerError } from '../core/errors.js';
import type { Engine } from '../engine/engine.js';
import { decisionIdGenerator, engineDecisionDeps, openGrantStore } from '../engine/relay-deps.js';
import { brokerDirs } from '../platform/dirs.js';
import { signalAgentTree } from '../relay/process-group.js';
import { runAgent } from '../relay/run-agent.js';
import { loadingGate, whenDecisionsReady } from '../startup/deferred-loading.js';
import type { EarlyChild } from '../startup/early-child.js';
import { tuneJitForRelay } from '../startup/jit-tuning.js';
import { optimizerGate } from '../startup/optimizer-gate.js';
import { LateGrantStore } from '../startup/late-grant-store.js';
import { startEngine } from '../startup/start-engine.js';
import { approvalsChannel } from './approvals.js';
import { single, type ParsedArgs } from './args.js';
import { policySources } from './policy-sources.js';

/** `acp-broker run -- AGENT…`: what the editor launches. Exits with the agent's exit code. */
export async function runCommand(args: ParsedArgs, early?: EarlyChild): Promise<number> {
  if (args.agent.length === 0) throw new BrokerError('usage', 'missing the agent command: acp-broker run [options] -- AGENT_COMMAND [ARGS...]');
  const [command, ...agentArgs] = args.agent as [string, ...string[]];
  if (process.stdin.isTTY && process.stdout.isTTY) {
    // An editor's "terminal login" re-launches the configured command interactively with extra
    // arguments; there is no ACP traffic to broker, so hand the terminal to the agent.
    return runInteractive(command, agentArgs);
  }
  tuneJitForRelay();
  const optimizer = optimizerGate();
  const stderr = (s: string) => process.stderr.write(s);
  // Chunks either side has sent, and requests held for the engine: the broker's own loading and
  // rehearsal give way to the first, and go ahead for the second.
  let traffic = 0;
  let held = () => 0;
  const activity = { traffic: () => traffic, held: () => held() };
  // With an early agent, the heavy loading waits until the agent has spoken (src/startup/README.md).
  const gate = loadingGate(early !== undefined, activity);
  const dirs = brokerDirs();
  const starting = await startEngine(policySources(args, dirs), dirs, stderr, { watch: true, after: gate.opened, pause: gate.quiet });
  if (!starting) {
    if (early) signalAgentTree(early.process, 'SIGTERM');
    return 2;
  }
  let engine: Engine | undefined;
  // Decisions wait for the parser, the layered policy and the grants store, all loading in parallel
  // with the agent's own start-up.
  const auditPath = single(args, '--audit') ?? join(dirs.state, 'audit.jsonl');
  const audit = fileAuditSink(auditPath, (m) => stderr(`${m}\n`));
  const grants = new LateGrantStore();
  const graceMs = Number(single(args, '--grace-ms') ?? 2000);
  const timeout = single(args, '--timeout'); // checked by preflight
  // Used only once decisionsReady has resolved (the broker holds decisions until then).
  const decisionDeps = engineDecisionDeps(() => engine, {
    dirs, grants, fallbackWorkspace: process.cwd(), nonInteractive: args.flags.has('--non-interactive'), onDecision: optimizer && (() => optimizer.decisionMade()),
  });
  const decisionsReady = whenDecisionsReady({
    engine: starting.ready, grants: gate.opened.then(gate.quiet).then(() => openGrantStore(dirs, audit, stderr)),
    attach: (ready, store) => { engine = ready; grants.attach(store); }, rehearse: { deps: decisionDeps, ...activity },
  });
  let approvals: Awaited<ReturnType<typeof approvalsChannel>>;
  try {
    approvals = await approvalsChannel(args, stderr, { after: gate.opened });
  } catch (error) {
    // `--approvals daemon` and none runs: nothing may be left running, not even an early agent.
    if (early) signalAgentTree(early.process, 'SIGTERM');
    throw error;
  }
  const session = runAgent({
    command, args: agentArgs, ...(early ? { child: early } : {}), clientIn: process.stdin, clientOut: process.stdout, stderr: process.stderr, graceMs,
    onTraffic: () => { traffic++; },
    deps: {
      ...decisionDeps, decisionsReady, audit, newDecisionId: decisionIdGenerator(), log: (m) => stderr(`${m}\n`),
      ...(timeout !== undefined ? { escalationTimeoutMs: Number(timeout) * 1000 } : {}),
      ...(approvals ? { channels: [approvals] } : {}),
    },
  });
  held = () => session.broker.heldCount();
  if (early) gate.openWhenSpoken(session.child);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => signalAgentTree(session.child, signal));
  }
  const code = await session.exitCode;
  approvals?.close();
  await audit.close();
  return code;
}

function runInteractive(command: string, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit' });
    child.on('error', (error) => { process.stderr.write(`acp-broker: cannot start \`${command}\`: ${error.message}\n`); resolve(127); });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}
