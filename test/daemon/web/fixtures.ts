/** Realistic approvals, as a broker would open them (secrets already masked). */
import type { ApprovalRequest } from '../../../src/escalation/channel.js';

const inMinutes = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

export function publishRequest(overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    approvalId: 'a1',
    agent: 'claude-code-acp',
    workspace: '/home/dev/shop-api',
    sessionId: 'sess_7f3a9c',
    kind: 'execute',
    title: 'Publish the package to npm',
    command: 'npm version patch && npm publish --access public',
    paths: [],
    items: [
      { item: 'npm version patch', decision: 'allow', rules: ['npm-scripts'] },
      { item: 'npm publish --access public', decision: 'ask', rules: ['ask-before-publishing'] },
    ],
    reason: 'rule ask-before-publishing: publishing a package is visible to everyone and cannot be undone',
    diffs: [],
    options: [
      { optionId: 'allow', name: 'Allow once', kind: 'allow_once' },
      { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      {
        optionId: 'acp-broker:allow_always:1', name: 'Always allow `npm publish --access public` in shop-api', kind: 'allow_always',
        covers: '`npm publish --access public` in /home/dev/shop-api, for claude-code-acp',
      },
      {
        optionId: 'acp-broker:reject_always:1', name: 'Always reject `npm publish --access public` in shop-api', kind: 'reject_always',
        covers: '`npm publish --access public` in /home/dev/shop-api, for claude-code-acp',
      },
    ],
    deadline: inMinutes(5),
    ...overrides,
  };
}

export function editRequest(overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    approvalId: 'a2',
    agent: 'gemini',
    workspace: '/home/dev/shop-api',
    sessionId: 'sess_c01d2e',
    kind: 'edit',
    title: 'Edit .env.production',
    command: undefined,
    paths: [{ path: '/home/dev/shop-api/.env.production', access: 'write' }],
    items: [{ item: 'write /home/dev/shop-api/.env.production', decision: 'ask', rules: ['ask-env-files'] }],
    reason: 'rule ask-env-files: environment files hold credentials',
    diffs: [{
      path: '/home/dev/shop-api/.env.production',
      oldText: 'NODE_ENV=production\nPORT=8080\nDATABASE_URL=postgres://shop:***@db.internal/shop\nLOG_LEVEL=warn\n',
      newText: 'NODE_ENV=production\nPORT=8080\nDATABASE_URL=postgres://shop:***@db.internal/shop\nLOG_LEVEL=debug\nFEATURE_CHECKOUT_V2=1\n',
    }],
    options: [
      { optionId: 'proceed_once', name: 'Allow once', kind: 'allow_once' },
      { optionId: 'cancel', name: 'Reject', kind: 'reject_once' },
      {
        optionId: 'acp-broker:allow_always:2', name: 'Always allow writes to .env.production in shop-api', kind: 'allow_always',
        covers: 'writes to /home/dev/shop-api/.env.production, for gemini',
      },
      {
        optionId: 'acp-broker:reject_always:2', name: 'Always reject writes to .env.production in shop-api', kind: 'reject_always',
        covers: 'writes to /home/dev/shop-api/.env.production, for gemini',
      },
    ],
    deadline: undefined,
    ...overrides,
  };
}
