/**
 * `--mcp-config FILE`: the MCP servers exec passes in `session/new`. The file is JSON, either the
 * map most agents' settings use (`{"mcpServers": {"NAME": {"command": …} | {"type": "http", "url": …}}}`,
 * Gemini's `httpUrl` for streamable HTTP and a bare `url` for SSE included) or ACP's own array
 * (`[{"name": …, "command": …, "args": [], "env": []}, …]`, also under `mcpServers`). Anything else
 * is refused with one line naming the file and the entry.
 */
import { readFileSync } from 'node:fs';
import type { McpServer } from '@agentclientprotocol/sdk';
import { BrokerError } from '../core/errors.js';
import { describeFsError } from '../platform/fs-errors.js';

type Pairs = { name: string; value: string }[];

export function readMcpConfig(file: string): McpServer[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new BrokerError('bad_input', `--mcp-config ${file}: ${describeFsError(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new BrokerError('bad_input', `--mcp-config ${file}: not JSON: ${(error as Error).message}`);
  }
  try {
    return parseMcpServers(json);
  } catch (error) {
    throw new BrokerError('bad_input', `--mcp-config ${file}: ${(error as Error).message}`);
  }
}

/** The servers of a parsed config; throws an Error saying what is wrong. */
export function parseMcpServers(json: unknown): McpServer[] {
  const servers = isRecord(json) && 'mcpServers' in json ? json.mcpServers : json;
  if (Array.isArray(servers)) return servers.map((entry, i) => acpServer(entry, `mcpServers[${i}]`));
  if (isRecord(servers)) return Object.entries(servers).map(([name, entry]) => mapServer(name, entry));
  throw new Error('expected {"mcpServers": {NAME: {...}}} or an array of ACP McpServer objects');
}

function mapServer(name: string, entry: unknown): McpServer {
  const where = `mcpServers.${name}`;
  if (!isRecord(entry)) throw new Error(`${where} is not an object`);
  const type = entry.type;
  if (typeof entry.command === 'string' && (type === undefined || type === 'stdio')) {
    return { name, command: entry.command, args: strings(entry.args ?? [], `${where}.args`), env: pairsOfMap(entry.env ?? {}, `${where}.env`) };
  }
  const url = typeof entry.httpUrl === 'string' ? entry.httpUrl : entry.url;
  const kind = type ?? (typeof entry.httpUrl === 'string' ? 'http' : 'sse');
  if (typeof url === 'string' && (kind === 'http' || kind === 'sse')) {
    return { type: kind, name, url, headers: pairsOfMap(entry.headers ?? {}, `${where}.headers`) };
  }
  throw new Error(`${where} needs a "command" (stdio) or a "url" with "type" http or sse`);
}

function acpServer(entry: unknown, where: string): McpServer {
  if (!isRecord(entry) || typeof entry.name !== 'string' || entry.name === '') throw new Error(`${where} needs a "name"`);
  const { name, type } = entry;
  if (type === 'http' || type === 'sse') {
    if (typeof entry.url !== 'string') throw new Error(`${where} needs a "url"`);
    return { type, name, url: entry.url, headers: pairList(entry.headers ?? [], `${where}.headers`) };
  }
  if (type !== undefined) throw new Error(`${where}: unknown type ${JSON.stringify(type)} (http, sse, or none for stdio)`);
  if (typeof entry.command !== 'string' || entry.command === '') throw new Error(`${where} needs a "command"`);
  return { name, command: entry.command, args: strings(entry.args ?? [], `${where}.args`), env: pairList(entry.env ?? [], `${where}.env`) };
}

function strings(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new Error(`${where} must be a list of strings`);
  return value as string[];
}

function pairsOfMap(value: unknown, where: string): Pairs {
  if (!isRecord(value) || !Object.values(value).every((v) => typeof v === 'string')) throw new Error(`${where} must map names to strings`);
  return Object.entries(value as Record<string, string>).map(([name, v]) => ({ name, value: v }));
}

function pairList(value: unknown, where: string): Pairs {
  if (!Array.isArray(value) || !value.every((p) => isRecord(p) && typeof p.name === 'string' && typeof p.value === 'string')) {
    throw new Error(`${where} must be a list of {"name", "value"} strings`);
  }
  return (value as Pairs).map((p) => ({ name: p.name, value: p.value }));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
