/** Starts anvil, the binary shipped in @foundry-rs/anvil-linux-amd64, on a free port. */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type CreateAnvilOptions, createAnvil } from '@viem/anvil';

const require = createRequire(import.meta.url);

export const anvilBinary = join(dirname(require.resolve('@foundry-rs/anvil-linux-amd64/package.json')), 'bin', 'anvil');

export type AnvilNode = {
  rpcUrl: string;
  port: number;
  stop(): Promise<void>;
};

export type StartAnvilOptions = Omit<CreateAnvilOptions, 'anvilBinary' | 'silent' | 'port' | 'host'> & {
  /** 0 (the default) lets the OS choose a free port, so parallel runs never collide. */
  port?: number;
  /** The address it listens on: this machine only (127.0.0.1) unless told (a container's 0.0.0.0). */
  host?: string;
};

export async function startAnvil(options: StartAnvilOptions = {}): Promise<AnvilNode> {
  const anvil = createAnvil({
    ...options,
    port: options.port ?? 0,
    host: options.host ?? '127.0.0.1',
    anvilBinary,
    // Without this every stop() lingers 10 s; `silent` must stay off or start-up hangs.
    stopTimeout: 1000,
    // A process group of its own: Ctrl-C in a terminal signals the whole foreground group, and the node must
    // outlive that instant so the daemon can record what is in flight and stop it last. (execa's own clean-up
    // is off for a detached child: the exit hook below stands in for it.)
    // Its environment is the least it needs, never ours: no key, no API key, no database URL reaches it.
    execArgs: ([binary, args, options]) => [binary, args, { ...options, detached: true, extendEnv: false, env: childEnvironment() }],
  });
  let exited = false;
  let onExited: () => void = () => {};
  const gone = new Promise<void>((resolve) => (onExited = resolve));
  // Whatever way this process exits (a second Ctrl-C, process.exit), the node goes with it: stop() kills it
  // synchronously before its first await.
  const killOnExit = () => void anvil.stop().catch(() => {});
  process.once('exit', killOnExit);
  anvil.on('exit', () => {
    exited = true;
    onExited();
    process.off('exit', killOnExit);
  });
  let port: number | undefined;
  const unsubscribe = anvil.on('message', (message) => {
    const match = /Listening on [\d.]+:(\d+)/.exec(message);
    if (match?.[1]) port = Number(match[1]);
  });
  await anvil.start();
  unsubscribe();
  if (port === undefined) {
    await anvil.stop();
    throw new Error(`anvil started but did not say which port it listens on: ${anvil.logs.join('')}`);
  }
  // Stopped once its process has exited: @viem/anvil's own stop() also waits for a close event that may have come
  // before it listened, and then reports "failed to stop in time" a second later.
  const stop = async () => {
    if (exited) return;
    const stopping = anvil.stop();
    await Promise.race([gone, stopping.catch((error: unknown) => (exited ? undefined : Promise.reject(error)))]);
  };
  return { rpcUrl: `http://127.0.0.1:${port}`, port, stop };
}

/** What a child process is given of our environment: where programs and temporary files are, and nothing secret. */
export function childEnvironment(): NodeJS.ProcessEnv {
  const kept = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ'] as const;
  return Object.fromEntries(kept.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]]])));
}
