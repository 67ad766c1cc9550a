/**
 * A path a runner is given stays in the project when it is relative and never steps up: the check
 * sees the words, not the cwd, so any `..` segment counts as leaving (`tests/../../x`), as do `/…`
 * and a `~` the shell did not expand. Tests and conftest.py files outside the project are code the
 * line chose.
 */
export function leavesProject(path: string): boolean {
  return /^[/~]|(^|\/)\.\.(\/|$)/.test(path);
}

/** Why `program` refuses `path` as a path in the project; undefined when it stays in. */
export function outsideProject(program: string, path: string): string | undefined {
  return leavesProject(path) ? `${program} ${path}: a path outside the project` : undefined;
}
