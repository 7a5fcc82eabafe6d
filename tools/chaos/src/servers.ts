import { exec } from 'node:child_process';

/**
 * Real restarts of the shared servers (full mode only: a test run beside other tests must not
 * touch them). The commands come from the options, this machine's by default.
 */
export function runCommand(command: string, timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    exec(command, { timeout: timeoutMs }, (err, stdout, stderr) => {
      if (err?.killed) reject(new Error(`${command} did not finish within ${timeoutMs / 1000} s\n${stdout}${stderr}`));
      else if (err) reject(new Error(`${command} failed: ${err.message}\n${stdout}${stderr}`));
      else resolve(`${stdout}${stderr}`.trim());
    });
  });
}

export async function restartPostgres(commands: { postgresRestart: string }): Promise<void> {
  await runCommand(commands.postgresRestart);
}

/** Stops the broker application, keeps it down `downMs`, starts it again. */
export async function restartRabbit(commands: { rabbitStop: string; rabbitStart: string }, downMs: number): Promise<void> {
  await runCommand(commands.rabbitStop);
  try {
    await new Promise((r) => setTimeout(r, downMs));
  } finally {
    await runCommand(commands.rabbitStart);
  }
}
