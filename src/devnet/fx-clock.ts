/**
 * Mento v3's fixed-price pools trade only while the FX market is open (not from Friday 21:00 to Sunday 23:00 UTC):
 * tests and benchmarks that route through them set the devnet's clock to a weekday or a weekend, whatever day they
 * run on, and report the world's prices again then (a jump of days leaves every report expired).
 */
import { createPublicClient, createTestClient, http } from 'viem';
import type { DeploymentAddressBook } from '../config/address-book.ts';
import { reportWorldPrices } from './oracle.ts';

const DAY = 86_400n;

/** The devnet at noon UTC of the next `weekday` (0 Sunday … 6 Saturday) after its time, its rates reported then. */
export async function toNextWeekday(book: DeploymentAddressBook, weekday: number): Promise<bigint> {
  const client = createPublicClient({ transport: http(book.rpcUrl) });
  const testClient = createTestClient({ mode: 'anvil', transport: http(book.rpcUrl) });
  const now = (await client.getBlock()).timestamp;
  // Day 0 of the epoch was a Thursday (4).
  let day = now / DAY + 1n;
  while ((day + 4n) % 7n !== BigInt(weekday)) day += 1n;
  const noon = day * DAY + DAY / 2n;
  await testClient.setNextBlockTimestamp({ timestamp: noon });
  await testClient.mine({ blocks: 1 });
  await reportWorldPrices(book.rpcUrl, book);
  return noon;
}

/** The next Wednesday, noon UTC: the FX market open. */
export const wednesday = 3;
/** The next Saturday, noon UTC: the FX market closed. */
export const saturday = 6;
