import { existsSync, readFileSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { formatLocation } from '../core/errors.js';
import { compilePolicy } from '../engine/pipeline.js';
import { readPolicyFile } from '../engine/read-policy.js';
import { formatDiagnostic, type Diagnostic } from '../policy/diagnostics.js';
import { describeExample, ruleMatchesExample } from '../policy/examples.js';
import { lintPolicy, rulesWithoutExamples } from '../policy/lint.js';
import { PROJECT_POLICY_PATH } from '../policy/trust.js';
import type { PolicyFile } from '../policy/types.js';
import { brokerDirs } from '../platform/dirs.js';
import { TrustFile } from '../runtime/trust-file.js';
import { createShellAnalyzer } from '../shell/index.js';
import type { ShellAnalyzer } from '../shell/types.js';
import type { ParsedArgs } from './args.js';
import { policySources } from './policy-sources.js';

interface Io { stdout: (s: string) => void; stderr: (s: string) => void }

/** The files a policy command works on: those named, else the policies the broker would use. */
function filesOf(args: ParsedArgs): string[] {
  if (args.positionals.length > 0) return args.positionals.map((f) => resolve(f));
  return policySources(args, brokerDirs()).map((s) => s.file);
}

/** `policy`: the file's own rules (the last of its chain); `extendedRules`: those of the policies it extends. */
function loadForTooling(file: string, shell: ShellAnalyzer): { policy: PolicyFile | undefined; extendedRules: number; diagnostics: Diagnostic[] } {
  const read = readPolicyFile(file);
  if ('diagnostic' in read) return { policy: undefined, extendedRules: 0, diagnostics: [read.diagnostic] };
  // A project's own policy is checked as the broker loads it (it may extend bundled policies only).
  const layer = file.endsWith(join(sep, ...PROJECT_POLICY_PATH)) ? 'project' : 'user';
  const compiled = compilePolicy({ source: { file, layer }, text: read.text }, shell);
  const diagnostics = [...compiled.diagnostics];
  const policy = compiled.files?.at(-1);
  if (policy) diagnostics.push(...lintPolicy(policy, read.text));
  // This file's problems first, in reading order; those of the files it extends after.
  const rank = (d: Diagnostic) => (d.location.file === file ? 0 : 1);
  diagnostics.sort((a, b) => rank(a) - rank(b) || a.location.line - b.location.line || a.location.column - b.location.column);
  const extendedRules = (compiled.files ?? []).slice(0, -1).reduce((n, f) => n + f.rules.length, 0);
  return { policy, extendedRules, diagnostics };
}

/** `acp-broker validate [FILE...]`: every problem, errors and warnings; exit 1 on any error. */
export async function validateCommand(args: ParsedArgs, io: Io): Promise<number> {
  const shell = await createShellAnalyzer();
  let errors = 0;
  let warnings = 0;
  for (const file of filesOf(args)) {
    const { policy, extendedRules, diagnostics } = loadForTooling(file, shell);
    for (const d of diagnostics) io.stdout(`${formatDiagnostic(d)}\n`);
    const e = diagnostics.filter((d) => d.severity === 'error').length;
    errors += e;
    warnings += diagnostics.length - e;
    const extended = extendedRules > 0 ? ` + ${extendedRules} from the policies it extends` : '';
    if (e === 0 && policy) io.stderr(`${file}: ok (${policy.rules.length} rule${policy.rules.length === 1 ? '' : 's'}${extended})\n`);
  }
  io.stderr(`${errors} error(s), ${warnings} warning(s)\n`);
  return errors > 0 ? 1 : 0;
}

/** `acp-broker test [FILE...]`: run every rule's examples; exit 1 on a failing example. */
export async function testCommand(args: ParsedArgs, io: Io): Promise<number> {
  const shell = await createShellAnalyzer();
  let failures = 0;
  let passed = 0;
  let unloadable = 0;
  for (const file of filesOf(args)) {
    const { policy, diagnostics } = loadForTooling(file, shell);
    if (!policy) {
      unloadable++;
      for (const d of diagnostics.filter((x) => x.severity === 'error')) io.stdout(`${formatDiagnostic(d)}\n`);
      continue;
    }
    for (const rule of policy.rules) {
      for (const [expected, list] of [[true, rule.examples.match], [false, rule.examples.notMatch]] as const) {
        for (const example of list) {
          if (ruleMatchesExample(rule, example, shell) === expected) { passed++; continue; }
          failures++;
          io.stdout(`FAIL ${formatLocation(example.location)}: rule \`${rule.id}\` (${formatLocation(rule.location)}): ${describeExample(example)} ${expected ? 'should match but does not' : 'should not match but does'}\n`);
        }
      }
    }
    const missing = rulesWithoutExamples(policy);
    for (const rule of missing) io.stdout(`note ${formatLocation(rule.location)}: rule \`${rule.id}\` has no examples\n`);
  }
  io.stdout(`${passed} passed, ${failures} failed\n`);
  return failures > 0 || unloadable > 0 ? 1 : 0;
}

/** `acp-broker trust [DIR]`: let a project's own policy's allow rules count, for exactly this content. */
export async function trustCommand(args: ParsedArgs, io: Io): Promise<number> {
  const dir = resolve(args.positionals[0] ?? process.cwd());
  const file = join(dir, ...PROJECT_POLICY_PATH);
  if (!existsSync(file)) {
    io.stderr(`acp-broker: ${file} does not exist; nothing to trust\n`);
    return 1;
  }
  const text = readFileSync(file, 'utf8');
  const shell = await createShellAnalyzer();
  const loaded = compilePolicy({ source: { file, layer: 'project' }, text }, shell);
  const problems = loaded.diagnostics.filter((d) => d.severity === 'error');
  if (!loaded.files || problems.length > 0) {
    for (const d of problems) io.stdout(`${formatDiagnostic(d)}\n`);
    io.stderr('acp-broker: not trusted: the project policy is invalid\n');
    return 1;
  }
  new TrustFile(brokerDirs().config).trust(file, text);
  const allows = loaded.files.flatMap((f) => f.rules).filter((r) => r.decision === 'allow').map((r) => r.id);
  io.stdout(`trusted ${file}${allows.length ? ` — its allow rules now apply: ${allows.join(', ')}` : ''}\nAny change to the file makes it untrusted again.\n`);
  return 0;
}
