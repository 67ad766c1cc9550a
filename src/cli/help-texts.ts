import { EXEC_EXIT } from '../exec/events.js';
import type { SUBCOMMANDS } from './args.js';

/** What an option's value is: completion offers files, directories or the listed words for it. */
export type OptionValue =
  | { readonly kind: 'file'; readonly name: string }
  | { readonly kind: 'dir'; readonly name: string }
  | { readonly kind: 'choice'; readonly name: string; readonly choices: readonly string[] }
  | { readonly kind: 'text'; readonly name: string };

export interface OptionHelp {
  readonly flag: string;
  readonly value?: OptionValue;
  readonly text: string;
}

export interface CommandHelp {
  /** One line: what the command is for (the overview lists it). */
  readonly summary: string;
  /** Synopsis lines, without the leading `acp-broker `. */
  readonly usage: readonly string[];
  /** Words that may follow the command (`daemon status`), for completion. */
  readonly actions?: readonly string[];
  readonly options: readonly OptionHelp[];
  readonly details?: readonly string[];
  readonly examples: readonly string[];
  readonly exitCodes: string;
}

type Subcommand = (typeof SUBCOMMANDS)[number];

const FILE = (name = 'FILE'): OptionValue => ({ kind: 'file', name });
const DIR = (name = 'DIR'): OptionValue => ({ kind: 'dir', name });
const TEXT = (name: string): OptionValue => ({ kind: 'text', name });
const CHOICE = (name: string, choices: readonly string[]): OptionValue => ({ kind: 'choice', name, choices });

const POLICY: OptionHelp = { flag: '--policy', value: FILE(), text: 'a policy file (repeatable; they combine, strictest wins); default: the user policy, else the bundled default' };
const MANAGED: OptionHelp = { flag: '--managed-policy', value: FILE(), text: 'a managed layer file (repeatable); nothing below can loosen it' };
const JSON_OUT: OptionHelp = { flag: '--json', text: 'print one JSON document instead of text' };
const HELP: OptionHelp = { flag: '--help', text: 'show this help (also -h)' };
const NON_INTERACTIVE: OptionHelp = { flag: '--non-interactive', text: "nobody can answer: 'ask' becomes the policy's non_interactive fallback" };
const AUDIT: OptionHelp = { flag: '--audit', value: FILE(), text: 'append decision events as JSONL (default: <state dir>/audit.jsonl)' };
const APPROVALS: OptionHelp = { flag: '--approvals', value: CHOICE('MODE', ['auto', 'daemon', 'off']), text: 'auto (default): also offer escalations to the approvals daemon when it runs; daemon: require it; off: never' };
const GRACE: OptionHelp = { flag: '--grace-ms', value: TEXT('MS'), text: 'how long the agent may take to exit after its input closes before it is stopped' };
const EXEC_TIMEOUT: OptionHelp = { flag: '--timeout', value: TEXT('SECONDS'), text: 'an escalated request unanswered this long gets the non_interactive fallback (with the approvals daemon: 300)' };

export const COMMAND_HELP: Readonly<Record<Subcommand, CommandHelp>> = {
  run: {
    summary: 'wrap an agent (what the editor launches)',
    usage: ['[run] [options] -- AGENT_COMMAND [ARGS...]'],
    options: [POLICY, MANAGED, NON_INTERACTIVE, AUDIT,
      { flag: '--timeout', value: TEXT('SECONDS'), text: 'an escalated request unanswered this long gets the non_interactive fallback (default: no limit)' },
      APPROVALS, GRACE, HELP],
    details: ['stdout carries only the agent\'s ACP messages; everything the broker says goes to stderr.'],
    examples: ['acp-broker -- npx -y @zed-industries/claude-code-acp@0.16.2', 'acp-broker --policy ~/policy.yaml -- gemini --acp'],
    exitCodes: "the agent's own code (128 + signal if it was killed); 127 the agent cannot start; 2 a mistake",
  },
  exec: {
    summary: 'run one prompt headless (CI): every ask gets the non_interactive fallback',
    usage: ['exec [options] (--prompt TEXT | --prompt - | --prompt-file FILE) [--cwd DIR] -- AGENT_COMMAND [ARGS...]'],
    options: [
      { flag: '--prompt', value: TEXT('TEXT'), text: 'the prompt; `-` reads it from stdin' },
      { flag: '--prompt-file', value: FILE(), text: 'read the prompt from FILE' },
      { flag: '--cwd', value: DIR(), text: "the session's working directory (default: this directory)" },
      POLICY, MANAGED, AUDIT, EXEC_TIMEOUT, APPROVALS, GRACE,
      { flag: '--output-format', value: CHOICE('FORMAT', ['text', 'json']), text: 'text (default): the agent\'s text on stdout; json: one JSON event a line' },
      { flag: '--report', value: FILE(), text: 'write a Markdown report (what the agent did, every refusal with its rule, counts); also appended to $GITHUB_STEP_SUMMARY when set' },
      { flag: '--fail-on-deny', text: 'exit 4 when any request was denied or fell back, even if the turn ended normally' },
      { flag: '--max-duration', value: TEXT('SECONDS'), text: 'stop the turn after SECONDS (exit 124)' },
      { flag: '--mcp-config', value: FILE(), text: 'MCP servers to give the session (JSON)' },
      { flag: '--quiet', text: 'no decision lines on stderr' },
      HELP],
    examples: [
      'acp-broker exec --policy policies/ci-strict.yaml --prompt "Make npm test pass" -- claude-code-acp',
      'echo "fix the lint errors" | acp-broker exec --prompt - --output-format json -- codex-acp',
    ],
    exitCodes: [
      `${EXEC_EXIT.success} the turn ended normally`, `${EXEC_EXIT.turnFailed} the turn failed`, `${EXEC_EXIT.usage} usage or an invalid policy`,
      `${EXEC_EXIT.denied} denied (with --fail-on-deny)`, `${EXEC_EXIT.timedOut} timed out (--max-duration)`, `${EXEC_EXIT.agentCannotStart} the agent could not start`,
    ].join('; '),
  },
  check: {
    summary: 'decide a command, a path or a request offline, and explain why',
    usage: [
      'check [--policy FILE]... [--cwd DIR] [--agent AGENT] [--json] -- COMMAND [ARGS...]',
      'check [--policy FILE]... [--cwd DIR] [--agent AGENT] [--json] --kind read|edit|delete|move --path PATH...',
      'check [--policy FILE]... [--agent AGENT] [--json] --kind fetch --url URL',
      'check [--policy FILE]... [--cwd DIR] [--json] REQUEST.json|-',
    ],
    options: [POLICY, MANAGED,
      { flag: '--cwd', value: DIR(), text: 'the workspace to judge against (default: this directory; for REQUEST, its rawInput.cwd)' },
      { flag: '--kind', value: CHOICE('KIND', ['execute', 'read', 'edit', 'delete', 'move', 'fetch']), text: 'the kind of call (default: execute after --)' },
      { flag: '--path', value: FILE('PATH'), text: 'a path the call touches (repeatable; move: source then destination)' },
      { flag: '--url', value: TEXT('URL'), text: 'the URL of a fetch' },
      { flag: '--agent', value: CHOICE('AGENT', ['claude', 'gemini', 'codex']), text: "build the request as that agent sends it (its tool names, title, input); default: a plain ACP request" },
      JSON_OUT, HELP],
    details: [
      'One word after -- is a shell line (`check -- \'make && rm -rf build\'`); several are one command\'s words.',
      'REQUEST is the params of a session/request_permission (or the whole message); - reads stdin.',
      'Remembered grants are not consulted: this is what the policy alone decides.',
      'A policy is loaded with the policies it `extends`; their rules are named with a prefix (default:destructive).',
      'check does not lint: `acp-broker validate` warns about rules that can never match.',
    ],
    examples: ['acp-broker check -- git push --force origin main', 'acp-broker check --kind read --path .env', 'acp-broker check --agent codex --json -- npm test'],
    exitCodes: '0 allow; 1 deny; 3 ask; 2 usage or an invalid policy',
  },
  test: {
    summary: "run every rule's examples",
    usage: ['test [FILE...]'],
    options: [POLICY, MANAGED, HELP],
    details: ['Without FILE: the policies the broker would use.'],
    examples: ['acp-broker test policies/default.yaml'],
    exitCodes: '0 every example holds; 1 a failure or a file that does not load',
  },
  validate: {
    summary: 'check policy files: every problem as file:line:column',
    usage: ['validate [FILE...]'],
    options: [POLICY, MANAGED, HELP],
    details: [
      'Without FILE: the policies the broker would use. A file is checked with the policies it `extends`;',
      'an error in any of them is an error. A .acp-broker/policy.yaml is checked as a project policy.',
      'Lint warnings (exit 0), each with a fix: path patterns that never match (`**.env`, `$workspace/x`',
      'without braces, an unclosed `[`), command patterns with a shell operator (`curl | sh`), and a rule',
      'shadowed by an earlier broader rule of the same decision (`git` before `git status`).',
    ],
    examples: ['acp-broker validate ~/.config/acp-broker/policy.yaml'],
    exitCodes: '0 no error (warnings allowed); 1 an error',
  },
  grants: {
    summary: 'list or revoke remembered "always" answers',
    usage: ['grants list [--json]', 'grants revoke ID [--json]', 'grants clear [--project DIR] [--json]'],
    actions: ['list', 'revoke', 'clear'],
    options: [JSON_OUT, { flag: '--project', value: DIR(), text: "clear: only that project's grants" }, HELP],
    examples: ['acp-broker grants list', 'acp-broker grants clear --project .'],
    exitCodes: '0 done; 1 no such grant or a store error; 2 usage',
  },
  daemon: {
    summary: 'the approvals daemon: desktop notifications and a web inbox',
    usage: ['daemon [--port N] [--no-desktop] [--no-web]', 'daemon status | stop'],
    actions: ['status', 'stop'],
    options: [
      { flag: '--port', value: TEXT('N'), text: 'the web inbox port (0: any free port)' },
      { flag: '--no-desktop', text: 'no desktop notifications' },
      { flag: '--no-web', text: 'no web inbox' },
      HELP],
    examples: ['acp-broker daemon &', 'acp-broker daemon status'],
    exitCodes: '0 done; 1 not running (status, stop); 2 usage',
  },
  approvals: {
    summary: 'answer pending approvals from a terminal',
    usage: ['approvals [list [--json]]', 'approvals allow ID [--always]', 'approvals deny ID [--always]'],
    actions: ['list', 'allow', 'deny'],
    options: [JSON_OUT, { flag: '--always', text: 'remember the answer (a grant)' }, HELP],
    examples: ['acp-broker approvals', 'acp-broker approvals allow 3 --always'],
    exitCodes: '0 done; 1 no such approval or no daemon; 2 usage',
  },
  inbox: {
    summary: "open the approvals daemon's web inbox",
    usage: ['inbox [--print]'],
    options: [{ flag: '--print', text: 'print its address instead of opening a browser' }, HELP],
    examples: ['acp-broker inbox --print'],
    exitCodes: '0 done; 1 no daemon',
  },
  trust: {
    summary: "let a project policy's allow rules count, for its content as it is now",
    usage: ['trust [DIR]'],
    options: [HELP],
    details: ['Trusts DIR/.acp-broker/policy.yaml (DIR: this directory); any change untrusts it again.'],
    examples: ['acp-broker trust .'],
    exitCodes: '0 trusted; 1 no such file or an invalid policy',
  },
  init: {
    summary: 'write a starter policy (the user policy, or a project one)',
    usage: ['init [--force]', 'init --project [DIR] [--force]'],
    options: [
      { flag: '--project', value: DIR(), text: 'write DIR/.acp-broker/policy.yaml instead (DIR: this directory)' },
      { flag: '--force', text: 'replace an existing file' },
      HELP],
    details: ['The starter extends the bundled default and shows, commented out, the rules most people add first.'],
    examples: ['acp-broker init', 'acp-broker init --project . && acp-broker trust .'],
    exitCodes: '0 written; 1 the file exists (without --force) or cannot be written; 2 usage',
  },
  policy: {
    summary: 'show the policy layers and files in force here',
    usage: ['policy show [--cwd DIR] [--policy FILE]... [--managed-policy FILE]... [--json]'],
    actions: ['show'],
    options: [{ flag: '--cwd', value: DIR(), text: 'the project directory (default: this directory)' }, POLICY, MANAGED, JSON_OUT, HELP],
    details: [
      'Layers (managed, user, project with its trust state) with rule counts and problems, under each file',
      'the policies it `extends` with theirs, and whether the bundled default is in force; the effective',
      'default, non_interactive and grant_scope (combined over every file, strictest wins), enforcement',
      'and modes; where grants, trust records and the audit log live.',
    ],
    examples: ['acp-broker policy show', 'acp-broker policy show --cwd ~/src/app --json'],
    exitCodes: '0 every file in force loads; 1 a file in force has an error; 2 usage',
  },
  completion: {
    summary: 'print a shell completion script',
    usage: ['completion bash|zsh|fish'],
    actions: ['bash', 'zsh', 'fish'],
    options: [HELP],
    examples: ['source <(acp-broker completion bash)', 'acp-broker completion fish > ~/.config/fish/completions/acp-broker.fish'],
    exitCodes: '0 printed; 2 an unknown shell',
  },
  help: {
    summary: "show a command's help",
    usage: ['help [COMMAND]'],
    options: [],
    examples: ['acp-broker help check'],
    exitCodes: '0; 2 an unknown command',
  },
};

/** Options every command accepts. */
export const GLOBAL_OPTIONS: readonly OptionHelp[] = [
  { flag: '--help', text: 'show help (also -h; `acp-broker help COMMAND` for one command)' },
  { flag: '--version', text: 'print the version (also -V)' },
];
