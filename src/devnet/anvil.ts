/** Starts anvil, the binary shipped in @foundry-rs/anvil-linux-amd64, on a free port. */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type CreateAnvilOptions, createAnvil } from '@viem/anvil';

const require = createRequire(import.meta.url);

export const anvilBinary = join(
  dirname(require.resolve('@foundry-rs/anvil-linux-amd64/package.json')),
  'bin',
  'anvil',
);

export type AnvilNode = {
  rpcUrl: string;
  port: number;
  stop(): Promise<void>;
};

export type StartAnvilOptions = Omit<CreateAnvilOptions, 'anvilBinary' | 'silent' | 'port' | 'host'> & {
  /** 0 (the default) lets the OS choose a free port, so parallel runs never collide. */
  port?: number;
};

export async function startAnvil(options: StartAnvilOptions = {}): Promise<AnvilNode> {
  const anvil = createAnvil({
    ...options,
    port: options.port ?? 0,
    host: '127.0.0.1',
    anvilBinary,
    // Without this every stop() lingers 10 s; `silent` must stay off or start-up hangs.
    stopTimeout: 1000,
  });
  // Ctrl-C in a terminal signals anvil too (same process group): it may be gone before we stop it.
  let exited = false;
  anvil.on('exit', () => {
    exited = true;
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
  const stop = async () => {
    if (exited) return;
    try {
      await anvil.stop();
    } catch (error) {
      // "failed to stop in time" after it did exit (its close event came before we listened) is a stop.
      if (!exited) throw error;
    }
  };
  return { rpcUrl: `http://127.0.0.1:${port}`, port, stop };
}
