// Debian's Chromium, which the browser tests and the bench's viewer figures (#13) drive through
// playwright-core (npm cannot fetch a browser here). When it is missing and this is a Debian
// machine run as root, it is installed as CI installs it (apt-get); otherwise the caller says what
// to install.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/** CHROMIUM_PATH, else Debian's /usr/bin/chromium, else the first Chromium or Chrome on PATH. */
function findChromium(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const name of NAMES) for (const dir of dirs) if (existsSync(join(dir, name))) return join(dir, name);
  return '/usr/bin/chromium';
}

export const CHROMIUM = findChromium();

/** What to do when there is no browser: said by the test runner and by the browser tests. */
export const NO_CHROMIUM = `no Chromium at ${CHROMIUM}: install it (Debian: apt-get install -y chromium, which npm test does when run as root; .ci/run does) or set CHROMIUM_PATH to a Chromium or Chrome binary`;

/** Installs Chromium when it is missing and apt-get may be used; true if it is there afterwards. */
export async function ensureChromium(log: (line: string) => void = console.log): Promise<boolean> {
  if (existsSync(CHROMIUM)) return true;
  if (process.getuid?.() !== 0 || !existsSync('/usr/bin/apt-get')) return false;
  log('# installing chromium for the browser tests (apt-get install chromium)');
  const run = (args: string[]) =>
    new Promise<number>((resolve) =>
      spawn('apt-get', args, { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).on(
        'exit',
        (code) => resolve(code ?? 1),
      ),
    );
  await run(['update', '-qq']);
  if ((await run(['install', '-y', '-qq', 'chromium'])) !== 0) log('# could not install chromium');
  return existsSync(CHROMIUM);
}
