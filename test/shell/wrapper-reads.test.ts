/**
 * Files a wrapper reads itself: xargs' argument file (`-a FILE`, `--arg-file=FILE`) is read and
 * its words become the inner command's arguments, so it is a read of that file (a policy that
 * denies reading `.env` must see `xargs -a .env echo`).
 */
import { describe, expect, it } from 'vitest';
import { analyze } from './helpers.js';

async function reads(line: string) {
  const analysis = await analyze(line);
  return { reads: analysis.redirections.filter((r) => r.access === 'read').map((r) => r.path), unresolvable: analysis.unresolvable };
}

describe('files a wrapper reads', () => {
  it.each([
    ['xargs -a .env echo', ['/w/.env']],
    ['xargs -a.env echo', ['/w/.env']],
    ['xargs --arg-file=.env echo', ['/w/.env']],
    ['xargs --arg-file .env -n1 echo', ['/w/.env']],
    ['xargs --arg .env echo', ['/w/.env']],
    ['cd src && xargs -a ../list rm', ['/w/list']],
  ])('%s reads %j', async (line, files) => {
    expect((await reads(line)).reads).toEqual(files);
  });

  it('an argument file known only at run time is unresolvable', async () => {
    expect((await reads('xargs -a "$F" echo')).unresolvable.join(' ')).toContain('file read by xargs option known only at run time');
  });

  it('xargs reading standard input reads no file', async () => {
    expect((await reads('find . -name x | xargs echo')).reads).toEqual([]);
  });
});
