#!/usr/bin/env node
// The floor for the start-up figure: the least a Node middleware can do — spawn the agent and pipe
// stdio both ways, nothing loaded, nothing inspected. `node bench/bare-relay.mjs -- AGENT ARGS...`
import { spawn } from 'node:child_process';

const [command, ...args] = process.argv.slice(process.argv.indexOf('--') + 1);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
child.stdin.on('error', () => {});
child.on('exit', (code) => process.stdout.write('', () => process.exit(code ?? 1)));
