/**
 * Whether a process that holds something (the ledger's lock, a wallet's lease) still runs. On this host the
 * operating system says; on another we cannot tell, and only time (a heartbeat, a lease running out) decides.
 */
import { hostname } from 'node:os';

export function processAlive(pid: number, host: string): boolean {
  if (host !== hostname()) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A holder named `host:pid:start` (engine/leases.ts) whose process is gone from this host. */
export function holderGone(holder: string): boolean {
  const [host, pid] = holder.split(':');
  return host !== undefined && /^\d+$/.test(pid ?? '') && !processAlive(Number(pid), host);
}
