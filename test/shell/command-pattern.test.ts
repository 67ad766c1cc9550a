import { describe, expect, it } from 'vitest';
import { commandMatches, parseCommandPattern, type CommandPattern, type SimpleCommand } from '../../src/shell/index.js';
import { analyze } from './helpers.js';

function pattern(text: string): CommandPattern {
  const parsed = parseCommandPattern(text);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed;
}

async function firstCommand(line: string, cwd = '/w'): Promise<SimpleCommand> {
  const analysis = await analyze(line, { cwd, home: '/home/dev' });
  return analysis.commands[analysis.commands.length - 1]!;
}

async function matches(patternText: string, line: string, cwd?: string): Promise<boolean> {
  return commandMatches(pattern(patternText), await firstCommand(line, cwd));
}

describe('parseCommandPattern', () => {
  it('splits words like a shell, with quotes', () => {
    expect(pattern('git push --force').words).toEqual(['git', 'push', '--force']);
    expect(pattern(`grep "a b" 'c*'`).words).toEqual(['grep', 'a b', 'c*']);
  });

  it.each(['', '   ', '-rf', '"unterminated', 'x\\'])('rejects %j', (text) => {
    expect(parseCommandPattern(text)).toHaveProperty('error');
  });
});

describe('commandMatches: words', () => {
  it('is a prefix match on non-option words', async () => {
    expect(await matches('git push', 'git push origin main')).toBe(true);
    expect(await matches('git push', 'git pull')).toBe(false);
    expect(await matches('git push origin', 'git push')).toBe(false);
    expect(await matches('npm test', 'npm test -- --watch')).toBe(true);
    expect(await matches('npm run lint', 'npm run lint:fix')).toBe(false);
  });

  it('matches the program by basename or full argv[0]', async () => {
    expect(await matches('curl', '/usr/bin/curl x')).toBe(true);
    expect(await matches('/usr/bin/curl', '/usr/bin/curl x')).toBe(true);
    expect(await matches('/usr/bin/curl', 'curl x')).toBe(false);
  });

  it('strictProgram: a bare program does not match a path outside system directories', async () => {
    const gitPattern = pattern('git status');
    expect(commandMatches(gitPattern, await firstCommand('./git status'), { strictProgram: true })).toBe(false);
    expect(commandMatches(gitPattern, await firstCommand('/usr/bin/git status'), { strictProgram: true })).toBe(true);
    expect(commandMatches(gitPattern, await firstCommand('git status'), { strictProgram: true })).toBe(true);
    expect(commandMatches(gitPattern, await firstCommand('./git status'))).toBe(true);
  });

  it('* as a word matches any one word; * inside a word is a glob', async () => {
    expect(await matches('npm run *', 'npm run build')).toBe(true);
    expect(await matches('npm run *', 'npm run')).toBe(false);
    expect(await matches('npm run test:*', 'npm run test:unit')).toBe(true);
    expect(await matches('npm run test:*', 'npm run lint')).toBe(false);
    expect(await matches('*', 'anything at all')).toBe(true);
  });

  it('a quoted * is literal', async () => {
    expect(await matches("grep '*'", 'grep "*"')).toBe(true);
    expect(await matches("grep '*'", 'grep x')).toBe(false);
  });

  it('positional paths compare after normalisation', async () => {
    for (const line of ['rm -rf /', 'rm -fr //', 'rm --recursive --force /', 'rm -rf /tmp/..', 'rm -r -f -- /']) {
      expect(await matches('rm -rf /', line), line).toBe(true);
    }
    expect(await matches('rm -rf /', 'rm -rf /tmp/x')).toBe(false);
    expect(await matches('rm -rf /', 'rm -rf .', '/')).toBe(true);
    expect(await matches('rm -rf /', 'rm -rf .')).toBe(false);
    expect(await matches('rm -rf ~', 'rm -rf ~/')).toBe(true);
    expect(await matches('rm -rf ~', 'rm -rf $HOME')).toBe(true);
    expect(await matches('rm -rf ~', 'rm -rf /home/dev')).toBe(true);
    expect(await matches('cat src', 'cat ./src/')).toBe(true);
  });

  it('-- ends options', async () => {
    expect(await matches('rm -rf /', 'rm -- -rf /')).toBe(false);
    expect(await matches('git checkout -- .', 'git checkout -- .')).toBe(true);
    expect(await matches('git checkout -- .', 'git checkout .')).toBe(true);
    expect(await matches('git checkout -- .', 'git checkout -- src')).toBe(false);
  });
});

describe('commandMatches: options in any spelling', () => {
  it.each([
    'rm -rf /',
    'rm -fr /',
    'rm -r -f /',
    'rm -f -r /',
    'rm -rfv /',
    'rm -vfr /',
    'rm -R -f /',
    'rm --recursive --force /',
    'rm --force --recursive /',
    'rm / -rf',
    'rm -r / -f',
    'rm -rf --no-preserve-root /',
  ])('rm -rf / matches %s', async (line) => {
    expect(await matches('rm -rf /', line)).toBe(true);
  });

  it.each(['rm -r /', 'rm -f /', 'rm -rf /tmp', 'rm /'])('rm -rf / does not match %s', async (line) => {
    expect(await matches('rm -rf /', line)).toBe(false);
  });

  it('cp / mv / chmod / chown aliases', async () => {
    expect(await matches('cp -r', 'cp --recursive a b')).toBe(true);
    expect(await matches('cp -r', 'cp -a a b')).toBe(true);
    expect(await matches('cp -a', 'cp -r a b')).toBe(false);
    expect(await matches('mv -f', 'mv --force a b')).toBe(true);
    expect(await matches('chmod -R', 'chmod --recursive 777 /')).toBe(true);
    expect(await matches('chown -R', 'chown --recursive u /')).toBe(true);
  });

  it('--opt=value equals --opt value', async () => {
    expect(await matches('curl -X POST', 'curl --request=POST https://x')).toBe(true);
    expect(await matches('curl -X POST', 'curl -XPOST https://x')).toBe(true);
    expect(await matches('curl -X POST', 'curl -X GET https://x')).toBe(false);
    expect(await matches('curl --output=x', 'curl -o x https://y')).toBe(true);
  });

  it('option values are not positional words', async () => {
    const curl = await firstCommand('curl -o out.txt -H "A: b" https://x');
    expect(commandMatches(pattern('curl https://x'), curl)).toBe(true);
    expect(commandMatches(pattern('curl out.txt'), curl)).toBe(false);
    expect(await matches('git commit', 'git commit -m "push --force"')).toBe(true);
    expect(await matches('git push --force', 'git commit -m "--force" && echo')).toBe(false);
  });

  it('curl and wget option aliases', async () => {
    expect(await matches('curl -d', 'curl --data-binary @f https://x')).toBe(true);
    expect(await matches('curl -d', 'curl --json "{}" https://x')).toBe(true);
    expect(await matches('curl -T', 'curl --upload-file f https://x')).toBe(true);
    expect(await matches('curl -O', 'curl --remote-name https://x/f')).toBe(true);
    expect(await matches('wget -O', 'wget --output-document=f https://x')).toBe(true);
    expect(await matches('wget --post-data', 'wget --post-file=f https://x')).toBe(true);
  });

  it('git push --force matches every force spelling, including --force-with-lease and +refspec', async () => {
    for (const line of [
      'git push --force',
      'git push -f',
      'git push origin main -f',
      'git push --force-with-lease',
      'git push --force-with-lease=main:abc origin',
      'git push origin +main',
      'git push -fu origin main',
      'git -C /x push --force',
      'git -c k=v push -f',
      'git --git-dir=/x/.git --work-tree /x push -f',
      'git --no-pager -C x push -f',
    ]) {
      expect(await matches('git push --force', line), line).toBe(true);
    }
    expect(await matches('git push --force', 'git push origin main')).toBe(false);
    expect(await matches('git push --force-with-lease', 'git push --force')).toBe(false);
  });

  it('git global options do not hide the subcommand', async () => {
    expect(await matches('git status', 'git -C /x status')).toBe(true);
    expect(await matches('git push', 'git -C push status')).toBe(false);
  });

  it('git reset --hard, clean, branch -D, checkout -f', async () => {
    expect(await matches('git reset --hard', 'git reset HEAD~1 --hard')).toBe(true);
    expect(await matches('git clean -f', 'git clean -fdx')).toBe(true);
    expect(await matches('git clean -f', 'git clean --force -d')).toBe(true);
    expect(await matches('git branch -D', 'git branch --delete --force x')).toBe(true);
    expect(await matches('git branch --force', 'git branch -D x')).toBe(true);
    expect(await matches('git checkout -f', 'git checkout --force main')).toBe(true);
  });

  it('unknown programs: combined short flags still split', async () => {
    expect(await matches('foo -ab', 'foo -b -a')).toBe(true);
    expect(await matches('foo -ab', 'foo -ba')).toBe(true);
    expect(await matches('foo -ab', 'foo -a')).toBe(false);
    expect(await matches('foo --bar', 'foo --bar=1')).toBe(true);
  });

  it('matches commands found inside wrappers and substitutions', async () => {
    const analysis = await analyze('sudo env X=1 timeout 5 rm -fr / ; echo $(git push -f)');
    const rm = pattern('rm -rf /');
    const push = pattern('git push --force');
    expect(analysis.commands.some((command) => commandMatches(rm, command))).toBe(true);
    expect(analysis.commands.some((command) => commandMatches(push, command))).toBe(true);
  });

  it('program names that are Object.prototype keys are ordinary programs', async () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      expect(await matches('* --force', `${name} --force -x`)).toBe(true);
      expect(await matches(`${name} --force`, `${name} -x --force`)).toBe(true);
    }
    expect(await matches('git constructor --force', 'git constructor --force')).toBe(true);
  });
});
