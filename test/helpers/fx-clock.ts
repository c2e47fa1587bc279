/**
 * Mento v3's fixed-price pools trade only while the FX market is open (not from Friday 21:00 to Sunday 23:00 UTC):
 * tests that route through them set the chain's clock to a weekday or a weekend, whatever day they run on, and report
 * the world's prices again then (a jump of days leaves every report expired).
 */
import { reportWorldPrices } from '../../src/devnet/oracle.ts';
import type { DevnetFork } from './devnet.ts';

const DAY = 86_400n;

/** The chain at noon UTC of the next `weekday` (0 Sunday … 6 Saturday) after its time, its rates reported then. */
async function toNext(fork: DevnetFork, weekday: number): Promise<bigint> {
  const now = (await fork.publicClient.getBlock()).timestamp;
  // Day 0 of the epoch was a Thursday (4).
  let day = now / DAY + 1n;
  while ((day + 4n) % 7n !== BigInt(weekday)) day += 1n;
  const noon = day * DAY + DAY / 2n;
  await fork.testClient.setNextBlockTimestamp({ timestamp: noon });
  await fork.testClient.mine({ blocks: 1 });
  await reportWorldPrices(fork.addressBook.rpcUrl, fork.addressBook);
  return noon;
}

/** The chain on the next Wednesday at noon UTC: the FX market open. */
export const onAWeekday = (fork: DevnetFork) => toNext(fork, 3);

/** The chain on the next Saturday at noon UTC: the FX market closed. */
export const onAWeekend = (fork: DevnetFork) => toNext(fork, 6);
