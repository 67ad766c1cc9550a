import { TOOL_KINDS, type ToolKind } from '../core/facts.js';

/** Programmatic tool names of the real agents, by kind. */
const KIND_BY_TOOL: Readonly<Record<string, ToolKind>> = {
  bash: 'execute', run_shell_command: 'execute', shell: 'execute', exec_command: 'execute', local_shell: 'execute',
  bashoutput: 'read', killshell: 'execute',
  read: 'read', read_file: 'read', read_many_files: 'read', notebookread: 'read',
  glob: 'search', grep: 'search', ls: 'search', list_directory: 'search', search_file_content: 'search',
  edit: 'edit', multiedit: 'edit', write: 'edit', notebookedit: 'edit', replace: 'edit', write_file: 'edit', apply_patch: 'edit',
  webfetch: 'fetch', websearch: 'fetch', web_fetch: 'fetch', google_web_search: 'fetch',
  exitplanmode: 'switch_mode',
  todowrite: 'think', task: 'think',
};

/** claude-code-acp routes its own tools through MCP as `mcp__acp__Bash` etc. */
function toolBaseName(tool: string): string {
  const match = /^mcp__acp__(.+)$/.exec(tool);
  return (match ? match[1]! : tool).toLowerCase();
}

function isToolKind(value: unknown): value is ToolKind {
  return typeof value === 'string' && (TOOL_KINDS as readonly string[]).includes(value);
}

/** Kind when the agent did not send one: from the tool name, the title, then the input's shape. */
export function inferKind(input: { kind: unknown; tool: string | undefined; title: string | undefined; rawInput: unknown }): ToolKind {
  if (isToolKind(input.kind)) return input.kind;
  if (input.tool) {
    const byTool = KIND_BY_TOOL[toolBaseName(input.tool)];
    if (byTool) return byTool;
  }
  const title = input.title?.trim() ?? '';
  if (/^`[^`]*`$/s.test(title)) return 'execute';
  if (/^(Edit|Write|Create|Writing to)\b/.test(title)) return 'edit';
  if (/^Read\b/.test(title)) return 'read';
  const raw = input.rawInput;
  if (raw !== null && typeof raw === 'object') {
    const r = raw as Record<string, unknown>;
    if (r.command !== undefined) return 'execute';
    if (r.url !== undefined) return 'fetch';
    if ((r.file_path !== undefined || r.path !== undefined) && (r.content !== undefined || r.new_string !== undefined || r.edits !== undefined)) return 'edit';
    if (r.changes !== undefined) return 'edit';
  }
  return 'other';
}
