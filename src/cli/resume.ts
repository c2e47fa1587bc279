import { isAddress } from 'viem';
import { Ledger } from '../ledger/ledger.ts';
import { type Command, parseCommandArgs } from './command.ts';
import { UsageError } from './errors.ts';
import { ledgerFileFor } from './ledger-file.ts';

export const resumeCommand: Command = {
  name: 'resume',
  summary: 'list pauses after anomalies, or lift one (--strategy <id> | --wallet <address>)',
  help: `Usage: routekeeper resume [--strategy <id> | --wallet <address>] [--ledger <file>]

A trade whose outcome cannot be trusted (an anomaly: balances that moved otherwise than signed, a receipt
whose amounts disagree) pauses its strategy and its wallet: they trade no more until a person has looked.
Without options, lists the pauses. With one, lifts it; a running daemon sees that before its next run.
Exit 1 when there was no such pause.

Options:
  --strategy <id>      lift the pause of this strategy
  --wallet <address>   lift the pause of this wallet
  --ledger <file>      the ledger (default: ROUTEKEEPER_DATA_DIR (default ./data)/ledger.sqlite, else the devnet's)`,
  async run(argv) {
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
  },
};
