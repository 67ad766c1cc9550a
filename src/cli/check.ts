import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { answerFor } from '../broker/answer.js';
import { BrokerError } from '../core/errors.js';
import { decide } from '../decision/decide.js';
import { loadEngine } from '../engine/engine.js';
import { mergeToolCall } from '../facts/tool-call.js';
import { isPermissionOption } from '../protocol/acp.js';
import type { Evaluation } from '../policy/evaluate.js';
import { nonInteractiveFallback } from '../policy/types.js';
import { realpathCanonicalizer } from '../platform/canonicalize.js';
import { brokerDirs } from '../platform/dirs.js';
import { describeFsError } from '../platform/fs-errors.js';
import { diskFileExists } from '../platform/file-exists.js';
import { diskTreeLister } from '../platform/tree-lister.js';
import { diskGitRevisionResolver } from '../platform/git-revision-resolver.js';
import { diskGitHistoryLister } from '../platform/git-history-lister.js';
import { single, type ParsedArgs } from './args.js';
import { buildRequest, parseCheckAgent, shellLineOf, type CheckAction } from './check-request.js';
import { policySources } from './policy-sources.js';

/**
 * `acp-broker check -- CMD`, `check --kind K --path P`, `check REQUEST.json|-`: decide one
 * permission request offline and explain why. Exit 0 allow, 1 deny, 3 ask (a script can gate on
 * it), 2 for bad input or policy.
 */
export async function checkCommand(args: ParsedArgs, io: { stdout: (s: string) => void; stderr: (s: string) => void }): Promise<number> {
  const dirs = brokerDirs();
  const action = actionOf(args);
  const agent = parseCheckAgent(single(args, '--agent'));
  if (action === undefined && agent !== undefined) throw new BrokerError('usage', '--agent builds the request from -- COMMAND or --kind/--path; a REQUEST.json is already in its agent\'s shape');
  const explicitCwd = single(args, '--cwd');
  const cwdOf = (toolCall?: Record<string, unknown>) => resolve(explicitCwd ?? (toolCall && inferCwd(toolCall)) ?? process.cwd());
  const built = action && buildRequest(action, agent, cwdOf(), dirs.home);
  const params = built ?? readRequest(requestSource(args));
  const engine = await loadEngine(policySources(args, dirs), dirs, io.stderr);
  if (!engine) return 2;
  const cwd = cwdOf(built ? undefined : params.toolCall);
  const policy = engine.policies.forWorkspace(cwd);
  // From the policy alone: remembered grants are not consulted.
  const { facts, evaluation } = decide(mergeToolCall(undefined, params.toolCall), {
    policy, workspace: cwd, home: engine.dirs.home, agent: built?.agentName, shell: engine.shell,
    canonicalize: realpathCanonicalizer(), fileExists: diskFileExists(), listTree: diskTreeLister(), resolveGitRevision: diskGitRevisionResolver(), listGitHistory: diskGitHistoryLister(),
  });
  const options = (Array.isArray(params.options) ? params.options : []).filter(isPermissionOption);
  const nonInteractive = nonInteractiveFallback(policy);
  const interactive = evaluation.decision === 'ask' ? undefined : answerFor(evaluation.decision, options);
  const headless = answerFor(evaluation.decision === 'ask' ? nonInteractive : evaluation.decision, options);
  const answer = (a: ReturnType<typeof answerFor> | undefined) => a === undefined ? 'escalated to the client' : a.type === 'needs_human' ? 'escalated (no allow_once offered)'
    : a.outcome.outcome === 'selected' ? `selected ${a.outcome.optionId} (${a.optionKind})` : 'cancelled';
  const report = {
    decision: evaluation.decision, reason: evaluation.reason, source: evaluation.source, workspace: cwd,
    facts: { kind: facts.kind, tool: facts.tool ?? null, title: facts.title ?? null, command: facts.shellLine ?? null, unresolvable: facts.unresolvable },
    items: evaluation.items.map((i) => ({ item: i.label, decision: i.decision ?? null, matches: i.matches })),
    wouldHave: evaluation.wouldHave,
    answer: { interactive: answer(interactive), nonInteractive: answer(headless) },
  };
  io.stdout(args.flags.has('--json') ? `${JSON.stringify(report, null, 2)}\n` : explain(report, evaluation));
  return CHECK_EXIT_CODES[evaluation.decision];
}

const CHECK_EXIT_CODES = { allow: 0, deny: 1, ask: 3 } as const;

const PATH_KINDS = ['read', 'edit', 'delete', 'move'] as const;

/** What `-- COMMAND` or `--kind`/`--path`/`--url` ask about; undefined for the REQUEST.json form. */
function actionOf(args: ParsedArgs): CheckAction | undefined {
  const kind = single(args, '--kind');
  const paths = args.options.get('--path') ?? [];
  const url = single(args, '--url');
  const command = args.agent;
  if ((command.length > 0 || kind !== undefined || paths.length > 0 || url !== undefined) && args.positionals.length > 0) {
    throw new BrokerError('usage', `check takes either a request file or -- COMMAND / --kind, not both (got \`${args.positionals[0]}\`)`);
  }
  if (command.length > 0) {
    if (kind !== undefined && kind !== 'execute') throw new BrokerError('usage', `a command after -- is an execute call; --kind ${kind} takes --path${kind === 'fetch' ? ' (--url for fetch)' : ''} instead`);
    if (paths.length > 0 || url !== undefined) throw new BrokerError('usage', `--path and --url describe a file or fetch call, not the command after --`);
    if (command.every((word) => word.trim() === '')) throw new BrokerError('usage', 'the command after -- is empty');
    return { kind: 'execute', line: shellLineOf(command) };
  }
  if (kind === undefined) {
    if (paths.length > 0 || url !== undefined) throw new BrokerError('usage', `--path and --url need --kind (${[...PATH_KINDS, 'fetch'].join(', ')})`);
    return undefined;
  }
  if (kind === 'execute') throw new BrokerError('usage', '--kind execute takes the command after --: check -- COMMAND [ARGS...]');
  if (kind === 'fetch') {
    if (url === undefined || paths.length > 0) throw new BrokerError('usage', '--kind fetch takes one --url URL (and no --path)');
    return { kind: 'fetch', url };
  }
  if (!(PATH_KINDS as readonly string[]).includes(kind)) throw new BrokerError('usage', `--kind takes execute, ${[...PATH_KINDS, 'fetch'].join(', ')}, not \`${kind}\``);
  if (url !== undefined) throw new BrokerError('usage', `--url is for --kind fetch; --kind ${kind} takes --path`);
  if (paths.length === 0 || paths.some((p) => p === '')) throw new BrokerError('usage', `--kind ${kind} needs --path PATH`);
  if (kind === 'move') {
    if (paths.length !== 2) throw new BrokerError('usage', '--kind move takes two --path: the source, then the destination');
    return { kind: 'move', from: paths[0]!, to: paths[1]! };
  }
  return { kind: kind as 'read' | 'edit' | 'delete', paths };
}

function requestSource(args: ParsedArgs): string {
  const source = args.positionals[0];
  if (source === undefined || args.positionals.length > 1) {
    throw new BrokerError('usage', 'check takes -- COMMAND, --kind KIND --path PATH, or one REQUEST.json (- for stdin)');
  }
  return source;
}

/** The params of a `session/request_permission` from a file or stdin: the whole message or its params. */
function readRequest(source: string): { toolCall: Record<string, unknown>; options?: unknown } {
  let text: string;
  try {
    text = source === '-' ? readFileSync(0, 'utf8') : readFileSync(source, 'utf8');
  } catch (error) {
    throw new BrokerError('bad_input', `cannot read ${source === '-' ? 'standard input' : source}: ${describeFsError(error)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new BrokerError('bad_input', `${source}: not JSON: ${(error as Error).message}`);
  }
  const record = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
  const params = record(parsed) && parsed.method === 'session/request_permission' ? parsed.params : parsed;
  if (!record(params) || !record(params.toolCall)) {
    throw new BrokerError('bad_input', `${source}: expected a session/request_permission message or its params, with a toolCall object`);
  }
  return params as { toolCall: Record<string, unknown>; options?: unknown };
}

function inferCwd(toolCall: Record<string, unknown>): string | undefined {
  const raw = toolCall.rawInput as { cwd?: unknown } | undefined;
  return typeof raw?.cwd === 'string' ? raw.cwd : undefined;
}

function explain(report: { decision: string; reason: string; workspace: string; facts: { kind: string; command: string | null; unresolvable: readonly string[] }; answer: { interactive: string; nonInteractive: string } }, evaluation: Evaluation): string {
  const lines = [`decision: ${report.decision.toUpperCase()}`, `reason:   ${report.reason}`, `kind:     ${report.facts.kind}`, `workspace: ${report.workspace}`];
  if (report.facts.command) lines.push(`command:  ${report.facts.command}`);
  if (report.facts.unresolvable.length) lines.push(`unresolvable: ${report.facts.unresolvable.join('; ')}`);
  lines.push('items:');
  for (const item of evaluation.items) {
    lines.push(`  ${(item.decision ?? 'undecided').padEnd(9)} ${item.label}`);
    for (const m of item.matches) {
      const effect = m.enforcement === 'enforce' ? m.decision : `${m.enforcement}: would ${m.decision}${m.effective ? `, counts as ${m.effective}` : ', no effect'}`;
      lines.push(`            rule ${m.ruleId} (${effect}) [${m.layer}] ${displayPath(m.file)}:${m.line}:${m.column}`);
    }
  }
  lines.push(`agent receives: ${report.answer.interactive} (interactive); ${report.answer.nonInteractive} (non-interactive)`);
  return `${lines.join('\n')}\n`;
}

/** Policy files inside the current directory are shown relative to it, as they were probably given. */
function displayPath(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel.startsWith('..') ? file : rel;
}
