import { Ledger, toJson } from '../ledger/ledger.ts';
import { parseCommandArgs, parseIntegerOption } from './command.ts';
import { ledgerFileFor } from './ledger-file.ts';

/** `routekeeper history`: resolves to the exit code (its help is in catalog.ts). */
export async function run(argv: string[]): Promise<number> {
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
}
