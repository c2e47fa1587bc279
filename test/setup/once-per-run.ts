/**
 * Something the run starts once however many projects' global setups ask for it (a devnet world, PostgreSQL), and
 * stops when the last of them is torn down. Vitest loads each project's setup files on their own, so the one copy
 * is kept on the main process's `globalThis`, which they share.
 */
type Started<T> = { value: T; stop(): Promise<void> };
type Entry = { started: Promise<Started<unknown>>; users: number };

const key = Symbol.for('routekeeper.test.once-per-run');
const entries = ((globalThis as { [key]?: Map<string, Entry> })[key] ??= new Map<string, Entry>());

/** `start`s `name` unless another project did; resolves with it and a release that stops it after its last user. */
export async function oncePerRun<T>(name: string, start: () => Promise<Started<T>>): Promise<{ value: T; release(): Promise<void> }> {
  let entry = entries.get(name);
  if (!entry) {
    entry = { started: start(), users: 0 };
    entries.set(name, entry);
  }
  entry.users++;
  const known = entry;
  const { value } = (await known.started) as Started<T>;
  return {
    value,
    async release() {
      if (--known.users > 0) return;
      entries.delete(name);
      await (await known.started).stop();
    },
  };
}

/**
 * Starts `name` now unless something did, with no user yet: a later `oncePerRun` of the same name takes it as started.
 * For a run that will need it for certain (the whole suite), so that its start overlaps the others'.
 */
export function startEarly<T>(name: string, start: () => Promise<Started<T>>): void {
  if (entries.has(name)) return;
  const started = start();
  // Its failure is reported to the setup that waits for it.
  started.catch(() => {});
  entries.set(name, { started, users: 0 });
}
