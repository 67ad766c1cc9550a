import { optionOfKind, type OfferedOption, type PermissionOption, type PermissionOptionKind, type PermissionOutcome } from '../protocol/acp.js';

/** What the broker answers the agent, chosen by option kind — never a hard-coded or unoffered id. */
export type Answer =
  | { readonly type: 'outcome'; readonly outcome: PermissionOutcome; readonly optionKind: PermissionOptionKind | undefined }
  /** Allowed by policy but the agent offers no one-shot allow: a human must choose. */
  | { readonly type: 'needs_human' };

/**
 * allow → the `allow_once` option (never the agent's `allow_always`: that would make the agent persist
 * its own hidden rule). deny → `reject_once`, else `reject_always`, else the cancelled outcome.
 */
export function answerFor(decision: 'allow' | 'deny' | 'cancel', options: readonly OfferedOption[]): Answer {
  switch (decision) {
    case 'allow': {
      const once = optionOfKind(options, 'allow_once');
      return once ? selected(once) : { type: 'needs_human' };
    }
    case 'deny': {
      const reject = optionOfKind(options, 'reject_once') ?? optionOfKind(options, 'reject_always');
      return reject ? selected(reject) : cancelled();
    }
    case 'cancel':
      return cancelled();
  }
}

function selected(option: PermissionOption): Answer {
  return { type: 'outcome', outcome: { outcome: 'selected', optionId: option.optionId }, optionKind: option.kind };
}

function cancelled(): Answer {
  return { type: 'outcome', outcome: { outcome: 'cancelled' }, optionKind: undefined };
}
