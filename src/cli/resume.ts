import { Ledger } from '../ledger/ledger.ts';
import { parseCommandArgs } from './command.ts';
import { UsageError } from './errors.ts';
import { ledgerLocationFor, ledgerOptions } from './ledger-file.ts';
import { checkPauseArguments, pauseTarget } from './pause-target.ts';

/** `routekeeper resume`: resolves to the exit code (its help is in catalog.ts). */
export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    'resume',
    argv,
    {
      strategy: { type: 'string' },
      wallet: { type: 'string' },
      ...ledgerOptions,
    },
    true,
  );
  if (positionals.length > 1) throw new UsageError(`resume: one strategy id or wallet, got ${positionals.length}: ${positionals.join(' ')}`);
  checkPauseArguments('resume', { id: positionals[0], strategy: values.strategy, wallet: values.wallet });
  const ledger = await Ledger.openForPauses(await ledgerLocationFor(values));
  try {
    const target = await pauseTarget('resume', ledger, { id: positionals[0], strategy: values.strategy, wallet: values.wallet });
    if (!target) {
      const pauses = await ledger.pauses.all();
      if (pauses.length === 0) console.log('nothing is paused');
      for (const pause of pauses) console.log(`${pause.scope} ${pause.key}  paused ${new Date(pause.pausedAt).toISOString()}  ${pause.reason}`);
      return 0;
    }
    if (!(await ledger.pauses.lift(target.scope, target.key))) {
      console.log(`the ${target.label} is not paused`);
      return 1;
    }
    console.log(`lifted the pause of the ${target.label}`);
    return 0;
  } finally {
    await ledger.close();
  }
}
