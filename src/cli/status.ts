import { toJson } from '../json.ts';
import { Ledger } from '../ledger/ledger.ts';
import { statusReport } from '../status/report.ts';
import { statusText } from '../status/text.ts';
import { parseCommandArgs } from './command.ts';
import { UsageError } from './errors.ts';
import { ledgerLocationFor, ledgerOptions } from './ledger-file.ts';

/** `routekeeper status`: resolves to the exit code (its help is in catalog.ts). */
export async function run(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs('status', argv, { json: { type: 'boolean' }, strategy: { type: 'string' }, ...ledgerOptions });
  const ledger = await Ledger.openReadOnly(await ledgerLocationFor(values));
  const file = ledger.location;
  try {
    const report = await statusReport(ledger, { strategyId: values.strategy });
    if (values.strategy !== undefined && report.strategies.length === 0) {
      const known = (await ledger.strategies.all()).map((strategy) => strategy.id);
      throw new UsageError(`status: no strategy '${values.strategy}' in ${file}${known.length ? `; known: ${known.join(', ')}` : ''}`);
    }
    console.log(values.json ? toJson(report) : statusText(report, file));
    return 0;
  } finally {
    await ledger.close();
  }
}
