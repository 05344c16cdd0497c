// A port for a test's own Postgres that is stopped and started again on the same port.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { freePort } from '../../scripts/embedded-postgres.ts';

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * A free port below the kernel's ephemeral range. While the test's Postgres is down its port is
 * free; a port from that range (what freePort() gives) could then be taken by any listen(0) on the
 * machine (other tests' web processes, other embedded servers), and Postgres would not start
 * again. Nothing takes a port below the range unless asked for it by number.
 */
export async function restartablePort(): Promise<number> {
  let low = 0;
  try {
    low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {}
  if (!(low > 12_000)) return freePort();
  for (let i = 0; i < 50; i++) {
    const port = 10_000 + Math.floor(Math.random() * (low - 10_000));
    if (await canListen(port)) return port;
  }
  return freePort();
}
