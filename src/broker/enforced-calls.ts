/**
 * An fs or terminal call the agent asks the editor to carry out is judged only if every field that
 * decides what it does is one the broker reads exactly; anything else is refused, never forwarded
 * (the editor would carry it out without asking).
 */
import { isHazardousVariable } from '../shell/hazards.js';
// The variables an env may set: only those on the shared allowlist (any other may decide what runs).
import { isInertVariable } from '../shell/inert-variables.js';

/** Why the call cannot be judged, or undefined when it can. */
export function enforcedCallProblem(method: string, params: Record<string, unknown>): string | undefined {
  if (method === 'fs/read_text_file' || method === 'fs/write_text_file') {
    if (typeof params.path !== 'string' || params.path === '') return 'its path is not a string';
    if (!params.path.startsWith('/')) return `its path is not absolute: ${JSON.stringify(params.path)}`;
    return undefined;
  }
  if (typeof params.command !== 'string' || params.command.trim() === '') return 'its command is not a string';
  if (params.args !== undefined) {
    if (!Array.isArray(params.args) || !params.args.every((arg) => typeof arg === 'string')) return 'its args are not a list of strings';
    // A command with its own arguments and an args list: which words run depends on the editor.
    if (params.args.length > 0 && /\s/.test(params.command.trim())) return 'its command has arguments of its own besides args';
  }
  if (params.cwd !== undefined && params.cwd !== null && (typeof params.cwd !== 'string' || !params.cwd.startsWith('/'))) {
    return 'its cwd is not an absolute path';
  }
  if (params.env !== undefined) {
    if (!Array.isArray(params.env)) return 'its env is not a list';
    for (const entry of params.env) {
      const name = (entry as { name?: unknown } | null)?.name;
      if (typeof name !== 'string' || typeof (entry as { value?: unknown }).value !== 'string') return 'an env entry is not a name and a string value';
      if (isHazardousVariable(name)) return `its env sets ${name}, which changes what the command runs`;
      if (!isInertVariable(name, (entry as { value: string }).value)) return `its env sets ${name}, which the broker does not know to leave what runs unchanged`;
    }
  }
  return undefined;
}
