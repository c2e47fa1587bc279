/** The fork's clock on a day the FX market is open or closed, for tests through Mento v3's pools (src/devnet/fx-clock.ts). */
import { saturday, toNextWeekday, wednesday } from '../../src/devnet/fx-clock.ts';
import type { DevnetFork } from './devnet.ts';

/** The chain on the next Wednesday at noon UTC: the FX market open. */
export const onAWeekday = (fork: DevnetFork) => toNextWeekday(fork.addressBook, wednesday);

/** The chain on the next Saturday at noon UTC: the FX market closed. */
export const onAWeekend = (fork: DevnetFork) => toNextWeekday(fork.addressBook, saturday);
