import { Ledger, toJson } from '../ledger/ledger.ts';
import { type Command, parseCommandArgs, parseIntegerOption } from './command.ts';
import { ledgerFileFor } from './ledger-file.ts';

export const historyCommand: Command = {
  name: 'history',
  summary: 'show the ledger: every run, what it traded and why',
  help: `Usage: routekeeper history [--json] [--limit N] [--strategy <id>] [--ledger <file>]

Shows the newest intents first: strategy, slot, kind, status, amounts, reason, transaction, and each
transaction attempt. Reads the ledger without locking it, so it works while the daemon runs.
Default ledger: ROUTEKEEPER_DATA_DIR (default ./data)/ledger.sqlite, else the embedded devnet's.

Options:
  --json             one JSON array (amounts as strings)
  --limit N          at most N intents (default 50)
  --strategy <id>    only this strategy's
  --ledger <file>    read this ledger file`,
  async run(argv) {
    const { values } = parseCommandArgs('history', argv, {
      json: { type: 'boolean' },
      limit: { type: 'string' },
      strategy: { type: 'string' },
      ledger: { type: 'string' },
    });
    const limit = parseIntegerOption('limit', values.limit, { min: 1, max: 100_000 }) ?? 50;
    const file = ledgerFileFor(values.ledger);
    const ledger = Ledger.openReadOnly(file);
    try {
      const intents = ledger.history({ limit, strategyId: values.strategy }).map((intent) => ({ ...intent, attempts: ledger.attemptsOf(intent.id) }));
      if (values.json) {
        console.log(toJson(intents));
        return 0;
      }
      if (intents.length === 0) console.log(`no runs recorded in ${file}`);
      for (const intent of intents) {
        const out = intent.settlement?.amountOut;
        const why = intent.anomaly ?? intent.failure?.reason;
        console.log(
          `${new Date(intent.createdAt).toISOString()}  ${intent.id}  ${intent.kind}  ${intent.status}  in ${intent.amountIn}` +
            `${out !== undefined ? `  out ${out}` : ''}${why ? `  (${why})` : ''}${intent.settlement ? `  tx ${intent.settlement.txHash}` : ''}`,
        );
        for (const attempt of intent.attempts) console.log(`    ${attempt.purpose} nonce ${attempt.nonce} ${attempt.status} ${attempt.hash}`);
      }
      return 0;
    } finally {
      ledger.close();
    }
  },
};
