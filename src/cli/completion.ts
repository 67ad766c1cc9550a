import { BrokerError } from '../core/errors.js';
import { SUBCOMMANDS } from './args.js';
import { COMMAND_HELP, GLOBAL_OPTIONS, type OptionHelp, type OptionValue } from './help-texts.js';

/**
 * `acp-broker completion bash|zsh|fish`: completion scripts generated from the help texts, so a new
 * option is completed as soon as it is documented.
 */
export function completionScript(shell: string | undefined): string {
  switch (shell) {
    case 'bash': return bashScript();
    case 'zsh': return zshScript();
    case 'fish': return fishScript();
    default: throw new BrokerError('usage', shell === undefined ? 'completion needs a shell: bash, zsh or fish' : `completion: no script for \`${shell}\` (bash, zsh or fish)`);
  }
}

const COMMANDS = SUBCOMMANDS;

function optionsOf(command: string): readonly OptionHelp[] {
  const own = COMMAND_HELP[command as keyof typeof COMMAND_HELP]?.options ?? [];
  return [...own, ...GLOBAL_OPTIONS.filter((g) => !own.some((o) => o.flag === g.flag))];
}

/** Every option's value, first description wins (a flag means the same in every command). */
function valueOptions(): Map<string, OptionValue> {
  const values = new Map<string, OptionValue>();
  for (const command of COMMANDS) for (const o of optionsOf(command)) if (o.value && !values.has(o.flag)) values.set(o.flag, o.value);
  return values;
}

function bashScript(): string {
  const valueCases = [...valueOptions()].map(([flag, value]) => {
    const action = value.kind === 'file' ? 'compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur"))'
      : value.kind === 'dir' ? 'compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur"))'
      : value.kind === 'choice' ? `COMPREPLY=($(compgen -W '${value.choices.join(' ')}' -- "$cur"))`
      : 'COMPREPLY=()';
    return `    ${flag}) ${action}; return ;;`;
  });
  const optionCases = COMMANDS.map((c) => `    ${c}) opts='${optionsOf(c).map((o) => o.flag).join(' ')}' ;;`);
  const actionCases = COMMANDS.filter((c) => COMMAND_HELP[c].actions).map((c) => `    ${c}) actions='${COMMAND_HELP[c].actions!.join(' ')}' ;;`);
  return `# acp-broker bash completion: source <(acp-broker completion bash)
_acp_broker() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local cmd=run first=1 i
  case " ${COMMANDS.join(' ')} " in *" \${COMP_WORDS[1]} "*) cmd="\${COMP_WORDS[1]}"; first=2 ;; esac
  for ((i = 1; i < COMP_CWORD; i++)); do
    # After \`--\` comes a command line of its own.
    if [[ "\${COMP_WORDS[i]}" == -- ]]; then COMPREPLY=($(compgen -c -- "$cur")); return; fi
  done
  case "$prev" in
${valueCases.join('\n')}
  esac
  local opts='' actions=''
  case "$cmd" in
${optionCases.join('\n')}
  esac
  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$opts --" -- "$cur")); return; fi
  if ((COMP_CWORD == 1)); then COMPREPLY=($(compgen -W '${COMMANDS.join(' ')}' -- "$cur")); return; fi
  case "$cmd" in
${actionCases.join('\n')}
  esac
  if [[ -n "$actions" ]] && ((COMP_CWORD == first)); then COMPREPLY=($(compgen -W "$actions" -- "$cur")); return; fi
  if [[ "$cmd" == help ]]; then COMPREPLY=($(compgen -W '${COMMANDS.join(' ')}' -- "$cur")); return; fi
  compopt -o filenames 2>/dev/null
  COMPREPLY=($(compgen -f -- "$cur"))
}
complete -F _acp_broker acp-broker
`;
}

/** Text inside a zsh `[...]` description or a fish single-quoted string. */
function plain(text: string): string {
  return text.replace(/[[\]:'`\\$]/g, '').replace(/"/g, '');
}

function zshAction(value: OptionValue): string {
  switch (value.kind) {
    case 'file': return `:${value.name}:_files`;
    case 'dir': return `:${value.name}:_files -/`;
    case 'choice': return `:${value.name}:(${value.choices.join(' ')})`;
    case 'text': return `:${value.name}: `;
  }
}

function zshScript(): string {
  const described = COMMANDS.map((c) => `    '${c}:${plain(COMMAND_HELP[c].summary)}'`);
  const cases = COMMANDS.map((c) => {
    const repeatable = (o: OptionHelp) => (o.text.includes('repeatable') ? '*' : '');
    const specs = optionsOf(c).map((o) => `'${repeatable(o)}${o.flag}[${plain(o.text)}]${o.value ? zshAction(o.value) : ''}'`);
    const actions = COMMAND_HELP[c].actions;
    const rest = c === 'help' ? `'1:command:(${COMMANDS.join(' ')})'` : actions ? `'1:action:(${actions.join(' ')})' '*:file:_files'` : "'*:file:_files'";
    return `    ${c}) _arguments -s ${specs.join(' ')} ${rest} ;;`;
  });
  return `#compdef acp-broker
# acp-broker zsh completion: source <(acp-broker completion zsh), or save as _acp-broker on $fpath
_acp_broker() {
  local -a commands
  commands=(
${described.join('\n')}
  )
  if (( CURRENT == 2 )) && [[ $words[CURRENT] != -* ]]; then
    _describe -t commands 'acp-broker command' commands
    return
  fi
  local cmd=$words[2]
  if (( \${commands[(I)$cmd:*]} )); then
    shift words
    (( CURRENT-- ))
  else
    cmd=run
  fi
  case $cmd in
${cases.join('\n')}
  esac
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _acp_broker "$@"
else
  compdef _acp_broker acp-broker
fi
`;
}

function fishScript(): string {
  const lines = ['# acp-broker fish completion: acp-broker completion fish > ~/.config/fish/completions/acp-broker.fish', 'complete -c acp-broker -f'];
  for (const c of COMMANDS) lines.push(`complete -c acp-broker -n __fish_use_subcommand -a ${c} -d '${plain(COMMAND_HELP[c].summary)}'`);
  for (const c of COMMANDS) {
    const when = c === 'run' ? '__fish_use_subcommand' : `'__fish_seen_subcommand_from ${c}'`;
    for (const o of optionsOf(c)) {
      const value = o.value === undefined ? '' : o.value.kind === 'file' ? ' -r -F'
        : o.value.kind === 'dir' ? " -x -a '(__fish_complete_directories)'"
        : o.value.kind === 'choice' ? ` -x -a '${o.value.choices.join(' ')}'` : ' -x';
      lines.push(`complete -c acp-broker -n ${when} -l ${o.flag.slice(2)}${value} -d '${plain(o.text)}'`);
    }
    const actions = COMMAND_HELP[c].actions;
    if (actions) lines.push(`complete -c acp-broker -n '__fish_seen_subcommand_from ${c}' -a '${actions.join(' ')}'`);
  }
  lines.push(`complete -c acp-broker -n '__fish_seen_subcommand_from help' -a '${COMMANDS.join(' ')}'`);
  return `${lines.join('\n')}\n`;
}
