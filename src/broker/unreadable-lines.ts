import { INTERCEPTED_METHODS } from '../protocol/acp.js';
import { topLevelIdAndMethod, trailingTopLevelId } from '../protocol/json-head.js';
import { classify, RPC_ERRORS } from '../protocol/jsonrpc.js';
import type { Outbox } from './outbox.js';

/**
 * A line that is not JSON but names an intercepted method (or uses escapes that could): a lenient
 * client might still read a request in it (a BOM, a trailing comma), so it is never relayed; the
 * agent gets an error when the request's id can be read.
 */
export function refuseUnreadable(line: Buffer, outbox: Outbox, log: (message: string) => void): void {
  const head = line.subarray(line[0] === 0xef && line[1] === 0xbb && line[2] === 0xbf ? 3 : 0);
  const { id: headId, method } = topLevelIdAndMethod(head.subarray(0, 4096));
  const id = headId !== undefined ? headId : trailingTopLevelId(head.subarray(Math.max(0, head.length - 4096)));
  log(`acp-broker: an agent line that is not valid JSON${method ? ` but names ${method}` : ' but may hold an intercepted request'} was not relayed`);
  if (id === undefined || method === undefined || !INTERCEPTED_METHODS.has(method)) return;
  outbox.errorToAgent(id, { code: RPC_ERRORS.invalidRequest, message: `acp-broker: this ${method} request is not valid JSON; it was not relayed` });
}

/** A JSON-RPC batch (ACP uses none) holding an intercepted request: not relayed, each such request refused. */
export function refuseBatch(batch: readonly unknown[], outbox: Outbox, log: (message: string) => void): void {
  log('acp-broker: a JSON-RPC batch from the agent names an intercepted method; it was not relayed');
  for (const element of batch) {
    const message = classify(element);
    if (message.type !== 'request' || !INTERCEPTED_METHODS.has(message.method)) continue;
    outbox.errorToAgent(message.id, { code: RPC_ERRORS.invalidRequest, message: `acp-broker: ${message.method} in a batch is not supported; it was not relayed` });
  }
}
