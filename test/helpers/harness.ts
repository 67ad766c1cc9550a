import type { AuditRecord } from '../../src/audit/event.js';
import { auditLine, type AuditSink } from '../../src/audit/sink.js';
import { Broker } from '../../src/broker/broker.js';
import type { EscalationChannel } from '../../src/escalation/channel.js';
import { lexicalOnly, type PathCanonicalizer } from '../../src/facts/paths.js';
import { compilePolicy, layerPolicies } from '../../src/engine/pipeline.js';
import type { GrantStore } from '../../src/grants/store.js';
import type { Layer, PolicyFile, PolicySet } from '../../src/policy/types.js';
import { createShellAnalyzer } from '../../src/shell/index.js';
import type { ShellAnalyzer } from '../../src/shell/types.js';

let analyzer: Promise<ShellAnalyzer> | undefined;
export function shell(): Promise<ShellAnalyzer> {
  analyzer ??= createShellAnalyzer();
  return analyzer;
}

/** Compile policy YAML (one file per layer entry) through the broker's pipeline; throws with every error on an invalid one. */
export async function policyFrom(...docs: (string | { text: string; layer: Layer })[]): Promise<PolicySet> {
  const analyzer = await shell();
  const files: PolicyFile[] = [];
  const diagnostics = docs.flatMap((doc, i) => {
    const { text, layer } = typeof doc === 'string' ? { text: doc, layer: 'user' as Layer } : doc;
    const compiled = compilePolicy({ source: { file: `policy-${i}.yaml`, layer }, text }, analyzer);
    files.push(...compiled.files ?? []);
    return compiled.diagnostics;
  });
  const loaded = layerPolicies(files, diagnostics);
  if (!loaded.ok) throw new Error(loaded.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.location.line}:${d.location.column} ${d.message}`).join('\n'));
  return loaded.policy;
}

export interface Harness {
  readonly broker: Broker;
  /** Lines the broker wrote to the agent (its answers and the client's forwarded lines). */
  readonly toAgent: string[];
  readonly toClient: string[];
  readonly audit: AuditRecord[];
  client(message: object | string): void;
  agent(message: object | string): void;
  /** Parsed answers the broker itself sent to the agent, by request id. */
  answers(): Map<string | number, unknown>;
}

/** What an editor and an agent say first: `initialize` (answered as `agentName`), then `session/new` in `cwd`, answered with `sessionId`. */
export function openSession(h: Harness, agentName: string, cwd: string, sessionId: string, agentVersion = '1'): void {
  h.client({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: 1 } });
  h.agent({ jsonrpc: '2.0', id: 0, result: { protocolVersion: 1, agentInfo: { name: agentName, version: agentVersion } } });
  h.client({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd, mcpServers: [] } });
  h.agent({ jsonrpc: '2.0', id: 1, result: { sessionId } });
}

export async function harness(policy: PolicySet, options: { nonInteractive?: boolean; home?: string; grants?: GrantStore; workspace?: string; decisionsReady?: Promise<unknown>; shell?: ShellAnalyzer; escalationTimeoutMs?: number; auditSink?: AuditSink; channels?: EscalationChannel[]; canonicalize?: PathCanonicalizer; fileExists?: (absolutePath: string) => boolean } = {}): Promise<Harness> {
  const toAgent: string[] = [];
  const toClient: string[] = [];
  const audit: AuditRecord[] = [];
  const clientSent = new Set<string>();
  let n = 0;
  const broker = new Broker({
    policyFor: () => policy, shell: options.shell ?? await shell(), home: options.home ?? '/home/dev', fallbackWorkspace: options.workspace ?? '/home/dev/project',
    canonicalize: options.canonicalize ?? lexicalOnly, fileExists: options.fileExists ?? (() => false), nonInteractive: options.nonInteractive ?? false, audit: options.auditSink ?? { write: (e) => audit.push(JSON.parse(auditLine(e)) as AuditRecord), close: async () => {} },
    clock: () => new Date('2026-11-30T12:00:00Z'), newDecisionId: () => `d${++n}`, log: () => {},
    ...(options.grants ? { grants: options.grants } : {}),
    ...(options.decisionsReady ? { decisionsReady: options.decisionsReady } : {}),
    ...(options.escalationTimeoutMs !== undefined ? { escalationTimeoutMs: options.escalationTimeoutMs } : {}),
    ...(options.channels ? { channels: options.channels } : {}),
    toAgent: (b) => toAgent.push(b.toString('utf8')), toClient: (b) => toClient.push(b.toString('utf8')),
  });
  const line = (m: object | string) => Buffer.from(typeof m === 'string' ? m : `${JSON.stringify(m)}\n`);
  return {
    broker, toAgent, toClient, audit,
    client: (m) => { const l = line(m); clientSent.add(l.toString()); broker.fromClient(l); },
    agent: (m) => broker.fromAgent(line(m)),
    answers: () => {
      const out = new Map<string | number, unknown>();
      for (const l of toAgent) {
        if (clientSent.has(l)) continue;
        const m = JSON.parse(l) as { id: string | number; result?: unknown; error?: unknown };
        out.set(m.id, m.result ?? { error: m.error });
      }
      return out;
    },
  };
}

export const ALLOW_ALL = `
version: 1
default: deny
rules:
  - id: allow-all
    decision: allow
    match: { kind: [read, edit, delete, move, search, execute, think, fetch, other] }
`;

export const DENY_ALL = `
version: 1
default: deny
rules:
  - id: deny-all
    decision: deny
    reason: nothing today
    match: { kind: [read, edit, delete, move, search, execute, think, fetch, other, switch_mode] }
`;

/** The options claude-code-acp 0.16 offers (see test/fixtures/captures). */
export const CLAUDE_OPTIONS = [
  { optionId: 'allow_always', name: 'Always Allow', kind: 'allow_always' },
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];
