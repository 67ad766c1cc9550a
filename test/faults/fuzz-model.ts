import fc from 'fast-check';

// The model behind the fuzz tests: random policies, tool calls, shell lines and traffic in both
// directions, plus an oracle that says when a deny rule certainly matches a request. The oracle is
// deliberately simple (a sufficient condition, never a necessary one): when it says "a deny rule
// matches", no allow may come back; when it says nothing, anything the policy yields is fine.

export const WORKSPACES = ['/home/dev/project', '/tmp/w'];
export const SESSIONS = ['s1', 's2'];

const PROGRAMS = ['git', 'npm', 'rm', 'echo', 'ls', 'cat', 'make', 'curl', 'node'];
const ARGS = ['status', 'push', 'test', 'install', 'origin', 'main', '-rf', '--force', '/tmp/x', 'README.md', '.env', '$(date)', '"two words"', "'q'", '*.ts', '1'];
const WRAPPERS = ['sudo', 'nohup', 'env', 'timeout 10', 'nice'];
const SEPARATORS = [' && ', ' || ', '; ', ' | ', '\n'];
const REDIRECT_TARGETS = ['out.txt', '.env', '/etc/passwd', '/home/dev/project/.env', 'src/gen.ts'];
const PATHS = ['/home/dev/project/.env', '/home/dev/project/src/a.ts', 'src/b.ts', '/etc/passwd', '.env', '../x/.env', '/tmp/y', '~/.ssh/id_rsa'];
const URLS = ['https://example.com/x', 'http://169.254.169.254/latest', 'https://registry.npmjs.org/'];
export const KINDS = ['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'other'] as const;

// ---------------------------------------------------------------------------------------------
// Policies

type Pattern =
  | { type: 'command'; words: string[] }
  | { type: 'paths'; glob: string }
  | { type: 'kind'; kind: string };

export interface RuleSpec {
  decision: 'allow' | 'ask' | 'deny';
  enforcement: 'enforce' | 'warn' | 'shadow';
  pattern: Pattern;
}

export interface PolicySpec {
  layers: { layer: 'user' | 'managed'; default: 'allow' | 'ask' | 'deny'; nonInteractive: 'deny' | 'cancel'; rules: RuleSpec[] }[];
}

const COMMAND_PATTERNS = [['git', 'push'], ['git'], ['rm'], ['rm', '-rf'], ['npm', 'install'], ['npm', 'test'], ['make'], ['curl'], ['echo'], ['cat'], ['ls'], ['node']];
const PATH_GLOBS = ['**/.env', '/etc/**', '/home/dev/project/**', 'src/**', '~/.ssh/**'];

const rule: fc.Arbitrary<RuleSpec> = fc.record({
  decision: fc.constantFrom('allow', 'ask', 'deny', 'deny'),
  enforcement: fc.constantFrom('enforce', 'enforce', 'enforce', 'warn', 'shadow'),
  pattern: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...COMMAND_PATTERNS).map((words) => ({ type: 'command' as const, words })) },
    { weight: 2, arbitrary: fc.constantFrom(...PATH_GLOBS).map((glob) => ({ type: 'paths' as const, glob })) },
    { weight: 1, arbitrary: fc.constantFrom(...KINDS).map((kind) => ({ type: 'kind' as const, kind })) },
  ),
});

export const policySpec: fc.Arbitrary<PolicySpec> = fc.record({
  layers: fc.array(fc.record({
    layer: fc.constantFrom('user' as const, 'managed' as const),
    default: fc.constantFrom('allow' as const, 'ask' as const, 'deny' as const),
    nonInteractive: fc.constantFrom('deny' as const, 'cancel' as const),
    rules: fc.array(rule, { maxLength: 8 }),
  }), { minLength: 1, maxLength: 2 }),
});

export function policyYaml(layer: PolicySpec['layers'][number]): string {
  const rules = layer.rules.map((r, i) => {
    const match = r.pattern.type === 'command' ? `{ command: [${JSON.stringify(r.pattern.words.join(' '))}] }`
      : r.pattern.type === 'paths' ? `{ paths: [${JSON.stringify(r.pattern.glob)}] }`
        : `{ kind: [${r.pattern.kind}] }`;
    return `  - id: r${i}\n    decision: ${r.decision}\n    enforcement: ${r.enforcement}\n    match: ${match}\n`;
  }).join('');
  return `version: 1\ndefault: ${layer.default}\nnon_interactive: ${layer.nonInteractive}\nrules:${rules ? `\n${rules}` : ' []\n'}`;
}

function enforcedDenies(policy: PolicySpec): Pattern[] {
  return policy.layers.flatMap((l) => l.rules.filter((r) => r.decision === 'deny' && r.enforcement === 'enforce').map((r) => r.pattern));
}

// ---------------------------------------------------------------------------------------------
// Shell lines

export interface LineSpec {
  commands: { wrapper: string | undefined; words: string[] }[];
  separators: string[];
  redirect: string | undefined;
}

const simpleCommand = fc.record({
  wrapper: fc.option(fc.constantFrom(...WRAPPERS), { nil: undefined, freq: 4 }),
  words: fc.tuple(fc.constantFrom(...PROGRAMS), fc.array(fc.constantFrom(...ARGS), { maxLength: 3 })).map(([p, a]) => [p, ...a]),
});

export const lineSpec: fc.Arbitrary<LineSpec> = fc.array(simpleCommand, { minLength: 1, maxLength: 4 }).chain((commands) => fc.record({
  commands: fc.constant(commands),
  separators: fc.array(fc.constantFrom(...SEPARATORS), { minLength: commands.length - 1, maxLength: commands.length - 1 }),
  redirect: fc.option(fc.constantFrom(...REDIRECT_TARGETS), { nil: undefined }),
}));

export function lineText(spec: LineSpec): string {
  const parts = spec.commands.map((c) => `${c.wrapper ? `${c.wrapper} ` : ''}${c.words.join(' ')}`);
  let text = parts[0]!;
  for (let i = 1; i < parts.length; i++) text += spec.separators[i - 1]! + parts[i]!;
  return spec.redirect ? `${text} > ${spec.redirect}` : text;
}

// ---------------------------------------------------------------------------------------------
// Tool calls and their oracle

export type ToolCallSpec =
  | { type: 'execute'; line: LineSpec; explicitKind: boolean; locations: string[] }
  | { type: 'paths'; kind: (typeof KINDS)[number]; paths: string[] }
  | { type: 'fetch'; url: string }
  | { type: 'garbage'; value: unknown };

export const toolCallSpec: fc.Arbitrary<ToolCallSpec> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ type: fc.constant('execute' as const), line: lineSpec, explicitKind: fc.boolean(), locations: fc.array(fc.constantFrom(...PATHS), { maxLength: 1 }) }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('paths' as const), kind: fc.constantFrom('read' as const, 'edit' as const, 'delete' as const, 'search' as const), paths: fc.array(fc.constantFrom(...PATHS), { minLength: 1, maxLength: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('fetch' as const), url: fc.constantFrom(...URLS) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('garbage' as const), value: fc.jsonValue({ maxDepth: 3 }) }) },
);

export function toolCallJson(spec: ToolCallSpec, toolCallId: string): unknown {
  switch (spec.type) {
    case 'execute': {
      const command = lineText(spec.line);
      return {
        toolCallId, title: `\`${command}\``, ...(spec.explicitKind ? { kind: 'execute' } : {}), rawInput: { command },
        ...(spec.locations.length ? { locations: spec.locations.map((path) => ({ path })) } : {}),
      };
    }
    case 'paths': return { toolCallId, title: `${spec.kind} ${spec.paths.join(', ')}`, kind: spec.kind, locations: spec.paths.map((path) => ({ path })) };
    case 'fetch': return { toolCallId, title: `Fetch ${spec.url}`, kind: 'fetch', rawInput: { url: spec.url } };
    case 'garbage': return spec.value;
  }
}

/** Paths a call certainly touches, as the oracle resolves them (workspace-independent checks only). */
function pathDenied(glob: string, path: string): boolean {
  switch (glob) {
    case '**/.env': return path === '.env' || path.endsWith('/.env');
    case '/etc/**': return path.startsWith('/etc/');
    case '~/.ssh/**': return path.startsWith('~/.ssh/');
    default: return false; // workspace-relative globs: the oracle does not claim them
  }
}

function commandDenied(words: string[], command: LineSpec['commands'][number]): boolean {
  const argv = command.words;
  const plain = words.filter((w) => !w.startsWith('-'));
  const options = words.filter((w) => w.startsWith('-'));
  return plain.every((w, i) => argv[i] === w) && options.every((o) => argv.includes(o));
}

/** True when some enforced deny rule certainly matches some item of this call. */
export function oracleDenies(policy: PolicySpec, spec: ToolCallSpec): boolean {
  const denies = enforcedDenies(policy);
  if (spec.type === 'garbage') return false;
  const kind = spec.type === 'execute' ? (spec.explicitKind ? 'execute' : undefined) : spec.type === 'fetch' ? 'fetch' : spec.kind;
  const paths = spec.type === 'execute' ? [...spec.locations, ...(spec.line.redirect ? [spec.line.redirect] : [])] : spec.type === 'paths' ? spec.paths : [];
  return denies.some((p) => {
    switch (p.type) {
      case 'kind': return kind !== undefined && p.kind === kind;
      case 'paths': return paths.some((path) => pathDenied(p.glob, path));
      case 'command': return spec.type === 'execute' && spec.line.commands.some((c) => commandDenied(p.words, c));
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Traffic

export const OPTION_SETS = [
  [{ optionId: 'a1', name: 'Allow', kind: 'allow_once' }, { optionId: 'a2', name: 'Always', kind: 'allow_always' }, { optionId: 'r1', name: 'Reject', kind: 'reject_once' }],
  [{ optionId: 'a1', name: 'Allow', kind: 'allow_once' }, { optionId: 'r1', name: 'Reject', kind: 'reject_once' }],
  [{ optionId: 'a2', name: 'Always', kind: 'allow_always' }, { optionId: 'r2', name: 'Never', kind: 'reject_always' }],
  [{ optionId: 'a1', name: 'Allow', kind: 'allow_once' }],
];
export const ALLOW_KINDS = new Set(['allow_once', 'allow_always']);

export type AgentEvent =
  | { type: 'permission'; session: number; options: number; call: ToolCallSpec; toolCallId: number }
  | { type: 'garbage-permission'; params: unknown }
  | { type: 'tool-update'; session: number; toolCallId: number; update: 'tool_call' | 'tool_call_update'; status: string | undefined; call: ToolCallSpec }
  | { type: 'enforced'; method: 'fs/read_text_file' | 'fs/write_text_file' | 'terminal/create'; session: number; path: string; line: LineSpec }
  | { type: 'chunk'; text: string }
  | { type: 'session-created'; n: number; session: number }
  | { type: 'cancel-request'; requestId: number }
  | { type: 'junk'; text: string };

export type ClientEvent =
  | { type: 'new-session'; n: number; workspace: number }
  | { type: 'cancel'; session: number }
  | { type: 'answer'; pick: number; option: number }
  | { type: 'unknown-answer'; id: number }
  | { type: 'prompt'; session: number; text: string }
  | { type: 'junk'; text: string };

const noNewline = (s: string) => s.replace(/[\n\r\u2028\u2029]/g, ' ');

export const agentEvent: fc.Arbitrary<AgentEvent> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ type: fc.constant('permission' as const), session: fc.nat(1), options: fc.nat(OPTION_SETS.length - 1), call: toolCallSpec, toolCallId: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('garbage-permission' as const), params: fc.jsonValue({ maxDepth: 3 }) }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('tool-update' as const), session: fc.nat(1), toolCallId: fc.nat(5), update: fc.constantFrom('tool_call' as const, 'tool_call_update' as const), status: fc.constantFrom(undefined, 'pending', 'in_progress', 'completed', 'failed'), call: toolCallSpec }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('enforced' as const), method: fc.constantFrom('fs/read_text_file' as const, 'fs/write_text_file' as const, 'terminal/create' as const), session: fc.nat(1), path: fc.constantFrom(...PATHS), line: lineSpec }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('chunk' as const), text: fc.string({ maxLength: 30 }) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('session-created' as const), n: fc.nat(3), session: fc.nat(1) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('cancel-request' as const), requestId: fc.nat(20) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('junk' as const), text: fc.string({ maxLength: 40 }).map(noNewline) }) },
);

export const clientEvent: fc.Arbitrary<ClientEvent> = fc.oneof(
  { weight: 1, arbitrary: fc.record({ type: fc.constant('new-session' as const), n: fc.nat(3), workspace: fc.nat(WORKSPACES.length - 1) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('cancel' as const), session: fc.nat(1) }) },
  { weight: 4, arbitrary: fc.record({ type: fc.constant('answer' as const), pick: fc.nat(), option: fc.nat(10) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('unknown-answer' as const), id: fc.nat(50) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('prompt' as const), session: fc.nat(1), text: fc.string({ maxLength: 20 }) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('junk' as const), text: fc.string({ maxLength: 40 }).map(noNewline) }) },
);

export type Step = { from: 'agent'; event: AgentEvent } | { from: 'client'; event: ClientEvent };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: agentEvent.map((event) => ({ from: 'agent' as const, event })) },
  { weight: 2, arbitrary: clientEvent.map((event) => ({ from: 'client' as const, event })) },
);

/** Interleavings of `minLength` to `maxLength` steps (never `.filter` on length: fast-check keeps arrays small). */
export function stepsOf(minLength: number, maxLength: number): fc.Arbitrary<Step[]> {
  return fc.array(step, { minLength, maxLength, size: 'max' });
}

export const steps: fc.Arbitrary<Step[]> = fc.array(step, { maxLength: 40, size: 'medium' });

/** An agent request the broker intercepts: a permission request or an enforced fs/terminal call. */
export interface Intercepted {
  readonly id: number | string;
  readonly method: string;
  /** Well-formed permission request, or an enforced call: the oracle applies. */
  readonly denied: boolean;
  readonly wellFormed: boolean;
  readonly options: readonly { optionId: string; kind: string }[];
}

/** Serialise agent events into lines (with '\n'), noting the intercepted requests. */
export function agentLine(event: AgentEvent, policy: PolicySpec, seq: number, intercepted: Map<string, Intercepted>): string {
  const line = (m: object) => `${JSON.stringify(m)}\n`;
  switch (event.type) {
    case 'permission': {
      const id = 1000 + seq;
      const options = OPTION_SETS[event.options]!;
      const toolCall = toolCallJson(event.call, `t${event.toolCallId}`);
      const wellFormed = toolCall !== null && typeof toolCall === 'object';
      intercepted.set(`n:${id}`, { id, method: 'session/request_permission', denied: wellFormed && oracleDenies(policy, event.call), wellFormed, options });
      return line({ jsonrpc: '2.0', id, method: 'session/request_permission', params: { sessionId: SESSIONS[event.session], options, toolCall } });
    }
    case 'garbage-permission': {
      const id = 1000 + seq;
      intercepted.set(`n:${id}`, { id, method: 'session/request_permission', denied: false, wellFormed: false, options: [] });
      return line({ jsonrpc: '2.0', id, method: 'session/request_permission', params: event.params });
    }
    case 'tool-update': {
      const call = toolCallJson(event.call, `t${event.toolCallId}`);
      const update = { ...(call !== null && typeof call === 'object' && !Array.isArray(call) ? call : {}), toolCallId: `t${event.toolCallId}`, sessionUpdate: event.update, ...(event.status ? { status: event.status } : {}) };
      return line({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: SESSIONS[event.session], update } });
    }
    case 'enforced': {
      const id = `e${seq}`;
      const params = event.method === 'terminal/create'
        ? { sessionId: SESSIONS[event.session], command: 'bash', args: ['-c', lineText(event.line)] }
        : { sessionId: SESSIONS[event.session], path: event.path, ...(event.method === 'fs/write_text_file' ? { content: 'x' } : {}) };
      const kind = event.method === 'terminal/create' ? 'execute' : event.method === 'fs/read_text_file' ? 'read' : 'edit';
      const spec: ToolCallSpec = event.method === 'terminal/create'
        ? { type: 'execute', line: event.line, explicitKind: true, locations: [] }
        : { type: 'paths', kind: kind as 'read' | 'edit', paths: [event.path] };
      intercepted.set(`s:${id}`, { id, method: event.method, denied: oracleDenies(policy, spec), wellFormed: true, options: [] });
      return line({ jsonrpc: '2.0', id, method: event.method, params });
    }
    case 'chunk':
      return line({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.text } } } });
    case 'session-created':
      return line({ jsonrpc: '2.0', id: `new-${event.n}`, result: { sessionId: SESSIONS[event.session] } });
    case 'cancel-request':
      return line({ method: '$/cancel_request', jsonrpc: '2.0', params: { requestId: 1000 + event.requestId } });
    case 'junk':
      return `${event.text}\n`;
  }
}
