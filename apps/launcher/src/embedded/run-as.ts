import { execFileSync, spawnSync } from 'node:child_process';

/** Who PostgreSQL runs as: this process's user, or (PostgreSQL refuses root) the `postgres` system user. */
export interface RunAs {
  uid?: number;
  gid?: number;
  /** For messages: the user's name. */
  name: string;
}

export const isRoot = (): boolean => process.getuid?.() === 0;

/** As root, the `postgres` system user, created when missing (as Debian's packages would). */
export function postgresUser(): RunAs {
  if (!isRoot()) return { name: process.env.USER ?? 'the current user' };
  const lookup = () => spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  if (lookup().status !== 0) {
    try {
      execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'], {
        stdio: 'ignore',
      });
    } catch {
      throw new Error(
        'PostgreSQL cannot run as root and there is no `postgres` user to run it as: create one (useradd --system postgres) or run npm start as another user.',
      );
    }
  }
  const uid = Number(lookup().stdout.trim());
  const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid, gid, name: 'postgres' };
}

/** Whether `user` may do what `test` checks (`-x` a binary, `-w` a directory), path traversal included. */
export function userCan(user: RunAs, testFlag: '-x' | '-w' | '-r', path: string): boolean {
  if (user.uid === undefined) return true;
  return spawnSync('test', [testFlag, path], { uid: user.uid, gid: user.gid }).status === 0;
}
