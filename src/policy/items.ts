import type { CallFacts, PathFact } from '../core/facts.js';
import type { SimpleCommand } from '../shell/types.js';
import type { Rule } from './types.js';

/**
 * A call is split into items — each path, each simple command, each url — and every item must be
 * allowed for the call to be allowed. A call with none has one empty item.
 */
export type CallItem =
  | { readonly type: 'command'; readonly command: SimpleCommand }
  | { readonly type: 'path'; readonly path: PathFact }
  | { readonly type: 'url'; readonly url: string }
  | { readonly type: 'none' };

export function itemsOf(facts: CallFacts): CallItem[] {
  const items: CallItem[] = [];
  for (const command of facts.commands) items.push({ type: 'command', command });
  for (const path of facts.paths) items.push({ type: 'path', path });
  for (const url of facts.urls) items.push({ type: 'url', url });
  if (items.length === 0) items.push({ type: 'none' });
  return items;
}

/** A path only deny rules see (an existing file named by an argument of an unmodelled program, or under a tree grep -r / rg reads). */
export function isDenyOnly(item: CallItem): boolean {
  return item.type === 'path' && item.path.denyOnly === true;
}

/** A path that is a bash glob pattern (judged by every path it may expand to, see evaluate.ts). */
export function isGlobPath(item: CallItem): boolean {
  return item.type === 'path' && item.path.glob === true;
}

/** Positions of the deny rules among `candidates`. */
export function denyRulesAmong(candidates: readonly number[], rules: readonly Rule[]): number[] {
  return candidates.filter((position) => rules[position]!.decision === 'deny');
}

export function describeItem(item: CallItem): string {
  switch (item.type) {
    case 'command': return joinWords(item.command.argv);
    case 'path': return `${item.path.access} ${item.path.path}${item.path.glob ? ' (glob)' : ''}${item.path.denyOnly ? ' (may be opened: an argument of an unmodelled program, or under a tree a command reads)' : ''}`;
    case 'url': return item.url;
    case 'none': return '(call)';
  }
}

/** `argv.join(' ')`, without join's overhead on the few words of a command (this runs for every command item). */
function joinWords(argv: readonly string[]): string {
  let text = argv.length > 0 ? argv[0]! : '';
  for (let i = 1; i < argv.length; i++) text += ` ${argv[i]!}`;
  return text;
}
