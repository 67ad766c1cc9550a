/**
 * Session modes: the agents' own switches that stop them asking (claude `bypassPermissions`, gemini
 * `yolo`, codex `full-access`, qwen-code `auto`/`yolo`). A policy names the modes a session may never
 * be in; across layers the lists add up (strictest wins), as do `unprompted: stop` settings.
 */
import type { PolicySet, UnpromptedAction } from './types.js';

/** Re-exported for policy/load.ts, which builds them. */
export type { ModeRules } from './types.js';

/** Modes that ask before acting, for when the policy names none to prefer. */
const ASKING_MODES: readonly string[] = ['default', 'read-only', 'manual', 'plan'];

export interface ModePolicy {
  forbids(modeId: string): boolean;
  /** The mode to move a session to, among those it offers; undefined when every offered mode is forbidden. */
  safeMode(offered: readonly string[]): string | undefined;
  readonly unprompted: UnpromptedAction;
  /** Where each forbidden mode comes from, for messages: `file` of the first layer that forbids it. */
  sourceOf(modeId: string): string | undefined;
}

export function modePolicyOf(policy: PolicySet): ModePolicy {
  const forbidden = new Map<string, string>();
  const prefer: string[] = [];
  let unprompted: UnpromptedAction = 'warn';
  for (const file of policy.files) {
    for (const mode of file.modes?.deny ?? []) if (!forbidden.has(key(mode))) forbidden.set(key(mode), file.file);
    prefer.push(...(file.modes?.prefer ?? []));
    if (file.unprompted === 'stop') unprompted = 'stop';
  }
  const forbids = (modeId: string) => forbidden.has(key(modeId));
  return {
    forbids,
    unprompted,
    sourceOf: (modeId) => forbidden.get(key(modeId)),
    safeMode(offered) {
      const allowed = offered.filter((mode) => !forbids(mode));
      for (const wanted of [...prefer, ...ASKING_MODES]) {
        const found = allowed.find((mode) => key(mode) === key(wanted));
        if (found !== undefined) return found;
      }
      return allowed[0];
    },
  };
}

/**
 * Agents spell ids differently (`full-access`, `bypassPermissions`) and config option values may be
 * URLs ending in `#mode`: compared case-insensitively, on the fragment when there is one.
 */
function key(modeId: string): string {
  const hash = modeId.lastIndexOf('#');
  return (hash === -1 ? modeId : modeId.slice(hash + 1)).toLowerCase();
}
