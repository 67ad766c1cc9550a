import { BrokerError } from '../core/errors.js';

/** `--approvals`: whether escalations are also offered to the approvals daemon. */
export type ApprovalsMode = 'auto' | 'daemon' | 'off';

/** `--approvals MODE`; undefined means the default, `auto`. */
export function parseApprovalsMode(value: string | undefined): ApprovalsMode {
  if (value === undefined) return 'auto';
  if (value === 'auto' || value === 'daemon' || value === 'off') return value;
  throw new BrokerError('usage', `--approvals takes auto, daemon or off, not \`${value}\``);
}
