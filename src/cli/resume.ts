import { isAddress } from 'viem';
import { Ledger } from '../ledger/ledger.ts';
import { parseCommandArgs } from './command.ts';
import { UsageError } from './errors.ts';
import { ledgerFileFor } from './ledger-file.ts';

/** `routekeeper resume`: resolves to the exit code (its help is in catalog.ts). */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('resume', argv, {
    strategy: { type: 'string' },
    wallet: { type: 'string' },
    ledger: { type: 'string' },
  });
  if (values.strategy !== undefined && values.wallet !== undefined) throw new UsageError('resume: give --strategy or --wallet, not both');
  if (values.wallet !== undefined && !isAddress(values.wallet, { strict: false })) throw new UsageError(`resume: --wallet '${values.wallet}' is not an address`);
  const ledger = Ledger.openForPauses(ledgerFileFor(values.ledger));
  try {
    const target: [scope: 'strategy' | 'wallet', key: string] | undefined =
      values.strategy !== undefined ? ['strategy', values.strategy] : values.wallet !== undefined ? ['wallet', values.wallet] : undefined;
    if (!target) {
      const pauses = ledger.pauses();
      if (pauses.length === 0) console.log('nothing is paused');
      for (const pause of pauses) console.log(`${pause.scope} ${pause.key}  paused ${new Date(pause.pausedAt).toISOString()}  ${pause.reason}`);
      return 0;
    }
    if (!ledger.resume(...target)) {
      console.log(`the ${target[0]} ${target[1]} is not paused`);
      return 1;
    }
    console.log(`lifted the pause of the ${target[0]} ${target[1]}`);
    return 0;
  } finally {
    ledger.close();
  }
}
