// Debian's Chromium, which the browser tests and the bench's viewer figures (#13) drive through
// playwright-core (npm cannot fetch a browser here). When it is missing and this is a Debian
// machine run as root, it is installed as CI installs it (apt-get); otherwise the caller says what
// to install.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

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
