import { Ledger } from '../ledger/ledger.ts';
import { parseCommandArgs } from './command.ts';
import { UsageError } from './errors.ts';
import { ledgerLocationFor, ledgerOptions } from './ledger-file.ts';
import { checkPauseArguments, pauseTarget } from './pause-target.ts';

/** `routekeeper pause`: resolves to the exit code (its help is in catalog.ts). */
export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('pause', argv, { wallet: { type: 'string' }, reason: { type: 'string' }, ...ledgerOptions }, true);
  if (positionals.length > 1) throw new UsageError(`pause: one strategy id or wallet, got ${positionals.length}: ${positionals.join(' ')}`);
  if (values.reason !== undefined && values.reason.trim() === '') throw new UsageError('pause: --reason is empty');
  checkPauseArguments('pause', { id: positionals[0], wallet: values.wallet });
  const ledger = await Ledger.openForPauses(await ledgerLocationFor(values));
  try {
    const target = await pauseTarget('pause', ledger, { id: positionals[0], wallet: values.wallet });
    if (!target) throw new UsageError("pause: which strategy or wallet? See 'routekeeper pause --help'.");
    const already = (await ledger.pauses.all()).find(
      (pause) => pause.scope === target.scope && pause.key === (target.scope === 'wallet' ? target.key.toLowerCase() : target.key),
    );
    if (already) {
      console.log(`the ${target.label} is already paused since ${new Date(already.pausedAt).toISOString()}: ${already.reason}`);
      return 0;
    }
    await ledger.pauses.pause({ scope: target.scope, key: target.key, reason: values.reason ?? 'paused by hand (routekeeper pause)' });
    console.log(
      `paused the ${target.label}: a running daemon starts none of its runs from its next slot; 'routekeeper resume ${positionals[0] ?? target.key}' lifts it`,
    );
    return 0;
  } finally {
    await ledger.close();
  }
}
