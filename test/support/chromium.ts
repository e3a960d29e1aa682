import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The Chromium the browser tests drive: `CHROMIUM_PATH` when set (e.g. Debian's /usr/bin/chromium),
 * else the one `npm ci` installs with @sparticuz/chromium, so a fresh machine needs nothing else.
 * Throws when there is none: a browser test never skips silently.
 */
export async function chromiumExecutable(): Promise<string> {
  const override = process.env.CHROMIUM_PATH;
  if (override) {
    if (!fs.existsSync(override)) throw new Error(`CHROMIUM_PATH=${override} does not exist`);
    return override;
  }
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(__dirname, 'chromium-path-cli.mjs')], { cwd: path.join(__dirname, '..', '..') });
  if (!stdout || !fs.existsSync(stdout)) throw new Error(`@sparticuz/chromium gave no browser (${stdout || 'empty path'})`);
  return stdout;
}

/** Flags for a headless Chromium run as root in a sandbox-less container, without background traffic. */
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
