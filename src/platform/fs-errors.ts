/** What a failed file-system call means for the person who named the path, in a few words. */
export function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT': return 'no such file or directory';
    case 'EACCES': case 'EPERM': return 'permission denied';
    case 'EISDIR': return 'is a directory, not a file';
    case 'ENOTDIR': return 'a part of the path is not a directory';
    case 'ELOOP': return 'too many levels of symbolic links';
    case 'ENAMETOOLONG': return 'the path is too long';
    case 'EROFS': return 'read-only file system';
    case 'ENOSPC': return 'no space left on the device';
    default: return code ?? (error instanceof Error ? error.message : String(error));
  }
}
