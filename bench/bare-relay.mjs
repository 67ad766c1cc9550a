#!/usr/bin/env node
// The floor for a Node middleware: spawn the agent and pipe stdio both ways, nothing loaded,
// nothing inspected. `node bench/bare-relay.mjs [--answer-permissions] -- AGENT ARGS...`
//
// With --answer-permissions, the least a middleware that decides permission requests can do: the
// agent's output is split into lines, a `session/request_permission` is parsed and answered at once
// with its first option (no policy, no analysis, no audit), everything else goes to stdout.
import { spawn } from 'node:child_process';

const separator = process.argv.indexOf('--');
const answering = process.argv.slice(2, separator).includes('--answer-permissions');
const [command, ...args] = process.argv.slice(separator + 1);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(child.stdin);
child.stdin.on('error', () => {});
child.on('exit', (code) => process.stdout.write('', () => process.exit(code ?? 1)));

if (!answering) {
  child.stdout.pipe(process.stdout);
} else {
  let rest = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    let out = '';
    for (const line of lines) {
      if (line.includes('"session/request_permission"')) {
        const request = JSON.parse(line);
        const optionId = request.params.options[0].optionId;
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { outcome: { outcome: 'selected', optionId } } })}\n`);
      } else {
        out += `${line}\n`;
      }
    }
    if (out) process.stdout.write(out);
  });
}
